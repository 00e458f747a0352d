"""Batch iterators of tf.keras.preprocessing.image: Iterator (index order, seeding, the keras
Sequence protocol), NumpyArrayIterator (ImageDataGenerator.flow) and DirectoryIterator
(flow_from_directory), with keras_preprocessing 1.1's draw order so seeded batches match."""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np

from tfcluster.lib.keras.preprocessing import image_utils
from tfcluster.lib.keras.utils.data_utils import Sequence


class Iterator(Sequence):
    white_list_formats = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")

    def __init__(self, n: int, batch_size: int, shuffle: bool, seed: int | None) -> None:
        self.n = n
        self.batch_size = batch_size
        self.seed = seed
        self.shuffle = shuffle
        self.batch_index = 0
        self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array: np.ndarray | None = None
        self.index_generator = self._flow_index()

    def _set_index_array(self) -> None:
        self.index_array = np.random.permutation(self.n) if self.shuffle else np.arange(self.n)

    def __getitem__(self, idx: int) -> Any:
        if idx >= len(self):
            raise ValueError(
                f"Asked to retrieve element {idx}, but the Sequence has length {len(self)}"
            )
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        assert self.index_array is not None
        picked = self.index_array[self.batch_size * idx : self.batch_size * (idx + 1)]
        return self._get_batches_of_transformed_samples(picked)

    def __len__(self) -> int:
        return (self.n + self.batch_size - 1) // self.batch_size

    def on_epoch_end(self) -> None:
        self._set_index_array()

    def reset(self) -> None:
        self.batch_index = 0

    def _flow_index(self) -> Any:
        """Endless index batches; the last batch of an epoch may be short, then a new order."""
        self.reset()
        while True:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)
            if self.batch_index == 0:
                self._set_index_array()
            start = 0 if self.n == 0 else (self.batch_index * self.batch_size) % self.n
            if self.n > start + self.batch_size:
                self.batch_index += 1
            else:
                self.batch_index = 0
            self.total_batches_seen += 1
            assert self.index_array is not None
            yield self.index_array[start : start + self.batch_size]

    def __iter__(self) -> Iterator:  # type: ignore[override]
        return self

    def __next__(self) -> Any:
        return self.next()

    def next(self) -> Any:
        with self.lock:
            picked = next(self.index_generator)
        return self._get_batches_of_transformed_samples(picked)

    def _get_batches_of_transformed_samples(self, index_array: np.ndarray) -> Any:
        raise NotImplementedError


def _save_batch(it: Any, batch_x: np.ndarray, index_array: np.ndarray, hash_high: int) -> None:
    for i, j in enumerate(index_array):
        img = image_utils.array_to_img(batch_x[i], it.data_format, scale=True, dtype="float32")
        tag = np.random.randint(hash_high)
        img.save(os.path.join(it.save_to_dir, f"{it.save_prefix}_{j}_{tag}.{it.save_format}"))


class NumpyArrayIterator(Iterator):
    def __init__(
        self,
        x: Any,
        y: Any,
        image_data_generator: Any,
        batch_size: int = 32,
        shuffle: bool = False,
        sample_weight: Any = None,
        seed: int | None = None,
        data_format: str | None = None,
        save_to_dir: str | None = None,
        save_prefix: str = "",
        save_format: str = "png",
        subset: str | None = None,
        dtype: Any = None,
    ) -> None:
        data_format = image_utils._default_format(data_format)
        self.dtype = image_utils._default_dtype(dtype)
        x_misc: list[np.ndarray] = []
        if type(x) is tuple or type(x) is list:
            extra = x[1]
            x_misc = [np.asarray(e) for e in extra] if type(extra) is list else [np.asarray(extra)]
            x = x[0]
            for e in x_misc:
                if len(x) != len(e):
                    raise ValueError(
                        "All of the arrays in `x` should have the same length. Found a pair "
                        f"with: len(x[0]) = {len(x)}, len(x[?]) = {len(e)}"
                    )
        if y is not None and len(x) != len(y):
            raise ValueError(
                "`x` (images tensor) and `y` (labels) should have the same length. Found: "
                f"x.shape = {np.asarray(x).shape}, y.shape = {np.asarray(y).shape}"
            )
        if sample_weight is not None and len(x) != len(sample_weight):
            raise ValueError(
                "`x` (images tensor) and `sample_weight` should have the same length. Found: "
                f"x.shape = {np.asarray(x).shape}, "
                f"sample_weight.shape = {np.asarray(sample_weight).shape}"
            )
        if subset is not None:
            if subset not in {"training", "validation"}:
                raise ValueError(
                    f"Invalid subset name: {subset}; expected 'training' or 'validation'."
                )
            cut = int(len(x) * image_data_generator._validation_split)
            if y is not None and not np.array_equal(np.unique(y[:cut]), np.unique(y[cut:])):
                raise ValueError(
                    "Training and validation subsets have different number of classes after "
                    "the split. If your numpy arrays are sorted by the label, you might want to "
                    "shuffle them."
                )
            part = slice(None, cut) if subset == "validation" else slice(cut, None)
            x = x[part]
            x_misc = [np.asarray(e[part]) for e in x_misc]
            if y is not None:
                y = y[part]
        self.x = np.asarray(x, dtype=self.dtype)
        self.x_misc = x_misc
        if self.x.ndim != 4:
            raise ValueError(
                "Input data in `NumpyArrayIterator` should have rank 4. You passed an array "
                f"with shape {self.x.shape}"
            )
        channels_axis = 3 if data_format == "channels_last" else 1
        if self.x.shape[channels_axis] not in {1, 3, 4}:
            import warnings

            warnings.warn(
                f'NumpyArrayIterator is set to use the data format convention "{data_format}" '
                f"(channels on axis {channels_axis}), i.e. expected either 1, 3, or 4 channels "
                f"on axis {channels_axis}. However, it was passed an array with shape "
                f"{self.x.shape} ({self.x.shape[channels_axis]} channels).",
                stacklevel=2,
            )
        self.y = None if y is None else np.asarray(y)
        self.sample_weight = None if sample_weight is None else np.asarray(sample_weight)
        self.image_data_generator = image_data_generator
        self.data_format = data_format
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        super().__init__(self.x.shape[0], batch_size, shuffle, seed)

    def _get_batches_of_transformed_samples(self, index_array: np.ndarray) -> Any:
        gen = self.image_data_generator
        batch_x = np.zeros((len(index_array), *self.x.shape[1:]), dtype=self.dtype)
        for i, j in enumerate(index_array):
            x = self.x[j]
            params = gen.get_random_transform(x.shape)
            x = gen.apply_transform(x.astype(self.dtype), params)
            batch_x[i] = gen.standardize(x)
        if self.save_to_dir:
            _save_batch(self, batch_x, index_array, 10000)
        miscs = [e[index_array] for e in self.x_misc]
        first = batch_x if not miscs else [batch_x, *miscs]
        if self.y is None:
            return first
        if self.sample_weight is None:
            return first, self.y[index_array]
        return first, self.y[index_array], self.sample_weight[index_array]


class FileBatchIterator(Iterator):
    """Batches of images read from files (load_img, then the generator's transform and
    standardize), with targets by class_mode; subclasses set filepaths, classes, labels."""

    class_mode: str | None
    classes: Any
    class_indices: dict[Any, int]
    dtype: Any

    def set_processing_attrs(
        self,
        image_data_generator: Any,
        target_size: Any,
        color_mode: str,
        data_format: str | None,
        save_to_dir: str | None,
        save_prefix: str,
        save_format: str,
        subset: str | None,
        interpolation: str,
    ) -> None:
        data_format = image_utils._default_format(data_format)
        self.image_data_generator = image_data_generator
        self.target_size = tuple(target_size)
        if color_mode not in {"rgb", "rgba", "grayscale"}:
            raise ValueError(
                f'Invalid color mode: {color_mode}; expected "rgb", "rgba", or "grayscale".'
            )
        self.color_mode = color_mode
        self.data_format = data_format
        depth = {"rgba": 4, "rgb": 3, "grayscale": 1}[color_mode]
        self.image_shape = (
            (*self.target_size, depth)
            if data_format == "channels_last"
            else (depth, *self.target_size)
        )
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        self.interpolation = interpolation
        self.split: tuple[float, float] | None = None
        if subset is not None:
            fraction = image_data_generator._validation_split
            if subset == "validation":
                self.split = (0, fraction)
            elif subset == "training":
                self.split = (fraction, 1)
            else:
                raise ValueError(
                    f'Invalid subset name: {subset};expected "training" or "validation"'
                )
        self.subset = subset

    @property
    def filepaths(self) -> list[str]:
        raise NotImplementedError

    @property
    def labels(self) -> Any:
        raise NotImplementedError

    @property
    def sample_weight(self) -> Any:
        raise NotImplementedError

    def _get_batches_of_transformed_samples(self, index_array: np.ndarray) -> Any:
        gen = self.image_data_generator
        batch_x = np.zeros((len(index_array), *self.image_shape), dtype=self.dtype)
        paths = self.filepaths
        for i, j in enumerate(index_array):
            img = image_utils.load_img(
                paths[j],
                color_mode=self.color_mode,
                target_size=self.target_size,
                interpolation=self.interpolation,
            )
            x = image_utils.img_to_array(img, data_format=self.data_format, dtype="float32")
            img.close()
            if gen:
                params = gen.get_random_transform(x.shape)
                x = gen.apply_transform(x, params)
                x = gen.standardize(x)
            batch_x[i] = x
        if self.save_to_dir:
            _save_batch(self, batch_x, index_array, 10000000)
        batch_y: Any
        if self.class_mode == "input":
            batch_y = batch_x.copy()
        elif self.class_mode in {"binary", "sparse"}:
            batch_y = np.empty(len(batch_x), dtype=self.dtype)
            for i, j in enumerate(index_array):
                batch_y[i] = self.classes[j]
        elif self.class_mode == "categorical":
            batch_y = np.zeros((len(batch_x), len(self.class_indices)), dtype=self.dtype)
            for i, j in enumerate(index_array):
                batch_y[i, self.classes[j]] = 1.0  # a list of classes marks several
        elif self.class_mode == "multi_output":
            batch_y = [column[index_array] for column in self.labels]
        elif self.class_mode == "raw":
            batch_y = self.labels[index_array]
        else:
            return batch_x
        weights = self.sample_weight
        if weights is None:
            return batch_x, batch_y
        return batch_x, batch_y, weights[index_array]


class DirectoryIterator(FileBatchIterator):
    allowed_class_modes = {"categorical", "binary", "sparse", "input", None}

    def __init__(
        self,
        directory: str,
        image_data_generator: Any,
        target_size: Any = (256, 256),
        color_mode: str = "rgb",
        classes: Any = None,
        class_mode: str | None = "categorical",
        batch_size: int = 32,
        shuffle: bool = True,
        seed: int | None = None,
        data_format: str | None = None,
        save_to_dir: str | None = None,
        save_prefix: str = "",
        save_format: str = "png",
        follow_links: bool = False,
        subset: str | None = None,
        interpolation: str = "nearest",
        dtype: Any = None,
    ) -> None:
        self.set_processing_attrs(
            image_data_generator,
            target_size,
            color_mode,
            data_format,
            save_to_dir,
            save_prefix,
            save_format,
            subset,
            interpolation,
        )
        self.directory = directory
        if class_mode not in self.allowed_class_modes:
            raise ValueError(
                f"Invalid class_mode: {class_mode}; expected one of: {self.allowed_class_modes}"
            )
        self.class_mode = class_mode
        self.dtype = image_utils._default_dtype(dtype)
        if not classes:
            # A missing directory is os.listdir's FileNotFoundError, as in keras.
            classes = [
                d
                for d in sorted(os.listdir(directory))
                if os.path.isdir(os.path.join(directory, d))
            ]
        self.num_classes = len(classes)
        self.class_indices = dict(zip(classes, range(len(classes))))
        labels: list[int] = []
        self.filenames: list[str] = []
        for name in classes:
            got_labels, got_names = image_utils.list_class_files(
                os.path.join(directory, name),
                self.white_list_formats,
                self.split,
                self.class_indices[name],
                follow_links,
            )
            labels += got_labels
            self.filenames += got_names
        self.samples = len(self.filenames)
        self.classes = np.asarray(labels, dtype="int32").reshape(self.samples)
        print(f"Found {self.samples} images belonging to {self.num_classes} classes.")
        self._filepaths = [os.path.join(directory, f) for f in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    @property
    def filepaths(self) -> list[str]:
        return self._filepaths

    @property
    def labels(self) -> np.ndarray:
        return self.classes

    @property
    def sample_weight(self) -> None:
        return None
