"""tf.keras.preprocessing.image.ImageDataGenerator (keras_preprocessing 1.1 through TF 1.15):
per-image random augmentation, standardization (rescale, sample/feature-wise centring and
scaling, ZCA whitening fitted by fit()) and the flow* iterators over arrays and directories.
Random parameters are drawn from numpy's global generator in keras's order."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from tfcluster.lib.keras.preprocessing import image_iterators, image_transforms, image_utils

_NOT_FIT = (
    "This ImageDataGenerator specifies `{}`, but it hasn't been fit on any training data. Fit it "
    "first by calling `.fit(numpy_data)`."
)

_DEPRECATED_DATAFRAME_ARGS = {
    "has_ext": "has_ext is deprecated, filenames in the dataframe have to match the exact "
    "filenames in disk.",
    "sort": "sort is deprecated, batches will be created in the same order than the filenames "
    "provided if shuffle is set to False.",
    "drop_duplicates": "drop_duplicates is deprecated, you can drop duplicates by using the "
    "pandas.DataFrame.drop_duplicates method.",
}


def _shift(spec: Any, size: int) -> Any:
    """One shift draw: a choice (and a sign) from a list of values, else uniform in +-spec;
    fractions (all values below 1) scale by the image size."""
    try:
        amount = np.random.choice(spec)
        amount *= np.random.choice([-1, 1])
    except ValueError:
        amount = np.random.uniform(-spec, spec)
    if np.max(spec) < 1:
        amount *= size
    return amount


class ImageDataGenerator:
    def __init__(
        self,
        featurewise_center: bool = False,
        samplewise_center: bool = False,
        featurewise_std_normalization: bool = False,
        samplewise_std_normalization: bool = False,
        zca_whitening: bool = False,
        zca_epsilon: float = 1e-6,
        rotation_range: float = 0,
        width_shift_range: Any = 0.0,
        height_shift_range: Any = 0.0,
        brightness_range: Any = None,
        shear_range: float = 0.0,
        zoom_range: Any = 0.0,
        channel_shift_range: float = 0.0,
        fill_mode: str = "nearest",
        cval: float = 0.0,
        horizontal_flip: bool = False,
        vertical_flip: bool = False,
        rescale: Any = None,
        preprocessing_function: Any = None,
        data_format: str | None = None,
        validation_split: float = 0.0,
        dtype: Any = None,
    ) -> None:
        data_format = image_utils._default_format(data_format)
        self.featurewise_center = featurewise_center
        self.samplewise_center = samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening = zca_whitening
        self.zca_epsilon = zca_epsilon
        self.rotation_range = rotation_range
        self.width_shift_range = width_shift_range
        self.height_shift_range = height_shift_range
        self.shear_range = shear_range
        self.channel_shift_range = channel_shift_range
        self.fill_mode = fill_mode
        self.cval = cval
        self.horizontal_flip = horizontal_flip
        self.vertical_flip = vertical_flip
        self.rescale = rescale
        self.preprocessing_function = preprocessing_function
        self.dtype = image_utils._default_dtype(dtype)
        self.interpolation_order = 1
        if data_format not in {"channels_last", "channels_first"}:
            raise ValueError(
                '`data_format` should be `"channels_last"` (channel after row and column) or '
                '`"channels_first"` (channel before row and column). '
                f"Received: {data_format}"
            )
        self.data_format = data_format
        # Axes of a batch; a single image's are one less.
        if data_format == "channels_first":
            self.channel_axis, self.row_axis, self.col_axis = 1, 2, 3
        else:
            self.channel_axis, self.row_axis, self.col_axis = 3, 1, 2
        if validation_split and not 0 < validation_split < 1:
            raise ValueError(
                "`validation_split` must be strictly between 0 and 1.  Received: "
                f"{validation_split}"
            )
        self._validation_split = validation_split
        self.mean: Any = None
        self.std: Any = None
        self.principal_components: Any = None
        if isinstance(zoom_range, (float, int)):
            self.zoom_range = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) == 2 and all(isinstance(v, (float, int)) for v in zoom_range):
            self.zoom_range = [zoom_range[0], zoom_range[1]]
        else:
            raise ValueError(
                "`zoom_range` should be a float or a tuple or list of two floats. "
                f"Received: {zoom_range}"
            )
        if zca_whitening:
            if not featurewise_center:
                self.featurewise_center = True
                warnings.warn(
                    "This ImageDataGenerator specifies `zca_whitening`, which overrides "
                    "setting of `featurewise_center`.",
                    stacklevel=2,
                )
            if featurewise_std_normalization:
                self.featurewise_std_normalization = False
                warnings.warn(
                    "This ImageDataGenerator specifies `zca_whitening` which overrides "
                    "setting of`featurewise_std_normalization`.",
                    stacklevel=2,
                )
        if featurewise_std_normalization and not featurewise_center:
            self.featurewise_center = True
            warnings.warn(
                "This ImageDataGenerator specifies `featurewise_std_normalization`, which "
                "overrides setting of `featurewise_center`.",
                stacklevel=2,
            )
        if samplewise_std_normalization and not samplewise_center:
            self.samplewise_center = True
            warnings.warn(
                "This ImageDataGenerator specifies `samplewise_std_normalization`, which "
                "overrides setting of `samplewise_center`.",
                stacklevel=2,
            )
        if brightness_range is not None and (
            not isinstance(brightness_range, (tuple, list)) or len(brightness_range) != 2
        ):
            raise ValueError(
                "`brightness_range should be tuple or list of two floats. "
                f"Received: {brightness_range}"
            )
        self.brightness_range = brightness_range

    def flow(
        self,
        x: Any,
        y: Any = None,
        batch_size: int = 32,
        shuffle: bool = True,
        sample_weight: Any = None,
        seed: int | None = None,
        save_to_dir: str | None = None,
        save_prefix: str = "",
        save_format: str = "png",
        subset: str | None = None,
    ) -> image_iterators.NumpyArrayIterator:
        return image_iterators.NumpyArrayIterator(
            x,
            y,
            self,
            batch_size=batch_size,
            shuffle=shuffle,
            sample_weight=sample_weight,
            seed=seed,
            data_format=self.data_format,
            save_to_dir=save_to_dir,
            save_prefix=save_prefix,
            save_format=save_format,
            subset=subset,
            dtype=self.dtype,
        )

    def flow_from_directory(
        self,
        directory: str,
        target_size: Any = (256, 256),
        color_mode: str = "rgb",
        classes: Any = None,
        class_mode: str | None = "categorical",
        batch_size: int = 32,
        shuffle: bool = True,
        seed: int | None = None,
        save_to_dir: str | None = None,
        save_prefix: str = "",
        save_format: str = "png",
        follow_links: bool = False,
        subset: str | None = None,
        interpolation: str = "nearest",
    ) -> image_iterators.DirectoryIterator:
        return image_iterators.DirectoryIterator(
            directory,
            self,
            target_size=target_size,
            color_mode=color_mode,
            classes=classes,
            class_mode=class_mode,
            data_format=self.data_format,
            batch_size=batch_size,
            shuffle=shuffle,
            seed=seed,
            save_to_dir=save_to_dir,
            save_prefix=save_prefix,
            save_format=save_format,
            follow_links=follow_links,
            subset=subset,
            interpolation=interpolation,
            dtype=self.dtype,
        )

    def flow_from_dataframe(
        self,
        dataframe: Any,
        directory: str | None = None,
        x_col: str = "filename",
        y_col: Any = "class",
        weight_col: str | None = None,
        target_size: Any = (256, 256),
        color_mode: str = "rgb",
        classes: Any = None,
        class_mode: str | None = "categorical",
        batch_size: int = 32,
        shuffle: bool = True,
        seed: int | None = None,
        save_to_dir: str | None = None,
        save_prefix: str = "",
        save_format: str = "png",
        subset: str | None = None,
        interpolation: str = "nearest",
        validate_filenames: bool = True,
        **kwargs: Any,
    ) -> Any:
        try:
            import pandas  # noqa: F401  (the DataFrame's own methods do the work)
        except ImportError:
            raise ImportError(
                "ImageDataGenerator.flow_from_dataframe needs pandas: install pandas."
            ) from None
        from tfcluster.lib.keras.preprocessing.image_dataframe import DataFrameIterator

        for old, note in _DEPRECATED_DATAFRAME_ARGS.items():
            if old in kwargs:
                warnings.warn(note, DeprecationWarning, stacklevel=2)
        if class_mode == "other":
            warnings.warn(
                '`class_mode` "other" is deprecated, please use `class_mode` "raw".',
                DeprecationWarning,
                stacklevel=2,
            )
            class_mode = "raw"
        return DataFrameIterator(
            dataframe,
            directory,
            self,
            x_col=x_col,
            y_col=y_col,
            weight_col=weight_col,
            target_size=target_size,
            color_mode=color_mode,
            classes=classes,
            class_mode=class_mode,
            data_format=self.data_format,
            batch_size=batch_size,
            shuffle=shuffle,
            seed=seed,
            save_to_dir=save_to_dir,
            save_prefix=save_prefix,
            save_format=save_format,
            subset=subset,
            interpolation=interpolation,
            validate_filenames=validate_filenames,
            dtype=self.dtype,
        )

    def standardize(self, x: Any) -> Any:
        """Preprocessing function, rescale, then centring/scaling/whitening (in place where
        keras is)."""
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if self.rescale:
            x *= self.rescale
        if self.samplewise_center:
            x -= np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x /= np.std(x, keepdims=True) + 1e-6
        if self.featurewise_center:
            if self.mean is not None:
                x -= self.mean
            else:
                warnings.warn(_NOT_FIT.format("featurewise_center"), stacklevel=2)
        if self.featurewise_std_normalization:
            if self.std is not None:
                x /= self.std + 1e-6
            else:
                warnings.warn(_NOT_FIT.format("featurewise_std_normalization"), stacklevel=2)
        if self.zca_whitening:
            if self.principal_components is not None:
                flat = np.reshape(x, (-1, np.prod(x.shape[-3:])))
                x = np.reshape(np.dot(flat, self.principal_components), x.shape)
            else:
                warnings.warn(_NOT_FIT.format("zca_whitening"), stacklevel=2)
        return x

    def get_random_transform(self, img_shape: Any, seed: int | None = None) -> dict[str, Any]:
        if seed is not None:
            np.random.seed(seed)
        theta: Any = 0
        if self.rotation_range:
            theta = np.random.uniform(-self.rotation_range, self.rotation_range)
        tx: Any = 0
        if self.height_shift_range:
            tx = _shift(self.height_shift_range, img_shape[self.row_axis - 1])
        ty: Any = 0
        if self.width_shift_range:
            ty = _shift(self.width_shift_range, img_shape[self.col_axis - 1])
        shear: Any = 0
        if self.shear_range:
            shear = np.random.uniform(-self.shear_range, self.shear_range)
        if self.zoom_range[0] == 1 and self.zoom_range[1] == 1:
            zx, zy = 1, 1
        else:
            zx, zy = np.random.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        flip_horizontal = (np.random.random() < 0.5) * self.horizontal_flip
        flip_vertical = (np.random.random() < 0.5) * self.vertical_flip
        channel_shift_intensity = None
        if self.channel_shift_range != 0:
            channel_shift_intensity = np.random.uniform(
                -self.channel_shift_range, self.channel_shift_range
            )
        brightness = None
        if self.brightness_range is not None:
            brightness = np.random.uniform(self.brightness_range[0], self.brightness_range[1])
        return {
            "theta": theta,
            "tx": tx,
            "ty": ty,
            "shear": shear,
            "zx": zx,
            "zy": zy,
            "flip_horizontal": flip_horizontal,
            "flip_vertical": flip_vertical,
            "channel_shift_intensity": channel_shift_intensity,
            "brightness": brightness,
        }

    def apply_transform(self, x: Any, transform_parameters: dict[str, Any]) -> Any:
        p = transform_parameters
        rows, cols, chans = self.row_axis - 1, self.col_axis - 1, self.channel_axis - 1
        x = image_transforms.apply_affine_transform(
            x,
            p.get("theta", 0),
            p.get("tx", 0),
            p.get("ty", 0),
            p.get("shear", 0),
            p.get("zx", 1),
            p.get("zy", 1),
            row_axis=rows,
            col_axis=cols,
            channel_axis=chans,
            fill_mode=self.fill_mode,
            cval=self.cval,
            order=self.interpolation_order,
        )
        if p.get("channel_shift_intensity") is not None:
            x = image_transforms.apply_channel_shift(x, p["channel_shift_intensity"], chans)
        if p.get("flip_horizontal", False):
            x = image_transforms.flip_axis(x, cols)
        if p.get("flip_vertical", False):
            x = image_transforms.flip_axis(x, rows)
        if p.get("brightness") is not None:
            x = image_transforms.apply_brightness_shift(x, p["brightness"])
        return x

    def random_transform(self, x: Any, seed: int | None = None) -> Any:
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def fit(self, x: Any, augment: bool = False, rounds: int = 1, seed: int | None = None) -> None:
        """Per-channel mean and std and the ZCA matrix of x (optionally augmented rounds times)."""
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError(
                f"Input to `.fit()` should have rank 4. Got array with shape: {x.shape}"
            )
        if x.shape[self.channel_axis] not in {1, 3, 4}:
            warnings.warn(
                "Expected input to be images (as Numpy array) following the data format "
                f'convention "{self.data_format}" (channels on axis {self.channel_axis}), i.e. '
                f"expected either 1, 3 or 4 channels on axis {self.channel_axis}. However, it "
                f"was passed an array with shape {x.shape} ({x.shape[self.channel_axis]} "
                "channels).",
                stacklevel=2,
            )
        if seed is not None:
            np.random.seed(seed)
        x = np.copy(x)
        if self.rescale:
            x *= self.rescale
        if augment:
            grown = np.zeros((rounds * x.shape[0], *x.shape[1:]), dtype=self.dtype)
            for r in range(rounds):
                for i in range(x.shape[0]):
                    grown[i + r * x.shape[0]] = self.random_transform(x[i])
            x = grown
        shape = [1, 1, 1]
        shape[self.channel_axis - 1] = x.shape[self.channel_axis]
        if self.featurewise_center:
            self.mean = np.reshape(np.mean(x, axis=(0, self.row_axis, self.col_axis)), shape)
            x -= self.mean
        if self.featurewise_std_normalization:
            self.std = np.reshape(np.std(x, axis=(0, self.row_axis, self.col_axis)), shape)
            x /= self.std + 1e-6
        if self.zca_whitening:
            flat = np.reshape(x, (x.shape[0], x.shape[1] * x.shape[2] * x.shape[3]))
            sigma = np.dot(flat.T, flat) / flat.shape[0]
            from scipy import linalg  # only a ZCA fit needs it: tf.keras loads without scipy

            u, s, _ = linalg.svd(sigma)
            s_inv = 1.0 / np.sqrt(s[np.newaxis] + self.zca_epsilon)
            self.principal_components = (u * s_inv).dot(u.T)
