"""DataFrameIterator of tf.keras.preprocessing.image (ImageDataGenerator.flow_from_dataframe):
image file names and labels from a pandas DataFrame, filtered and ordered as
keras_preprocessing 1.1 does (invalid files dropped, classes sorted, split by row order)."""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np

from tfcluster.lib.keras.preprocessing import image_utils
from tfcluster.lib.keras.preprocessing.image_iterators import FileBatchIterator

_NO_CLASSES = ("input", "multi_output", "raw", None)


def _is_image_file(path: str, formats: tuple[str, ...]) -> bool:
    return path.lower().endswith(formats) and os.path.isfile(path)


class DataFrameIterator(FileBatchIterator):
    allowed_class_modes = {"binary", "categorical", "input", "multi_output", "raw", "sparse", None}

    def __init__(
        self,
        dataframe: Any,
        directory: str | None = None,
        image_data_generator: Any = None,
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
        data_format: str = "channels_last",
        save_to_dir: str | None = None,
        save_prefix: str = "",
        save_format: str = "png",
        subset: str | None = None,
        interpolation: str = "nearest",
        dtype: Any = "float32",
        validate_filenames: bool = True,
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
        df = dataframe.copy()
        self.directory = directory or ""
        self.class_mode = class_mode
        self.dtype = image_utils._default_dtype(dtype)
        self._check_params(df, x_col, y_col, weight_col, classes)
        if validate_filenames:
            paths = df[x_col].map(lambda f: os.path.join(self.directory, f))
            keep = paths.apply(_is_image_file, args=(self.white_list_formats,))
            dropped = (~keep).sum()
            if dropped:
                warnings.warn(
                    f'Found {dropped} invalid image filename(s) in x_col="{x_col}". These '
                    "filename(s) will be ignored.",
                    stacklevel=2,
                )
            df = df[keep]
        num_classes = 0
        if class_mode not in _NO_CLASSES:
            df, classes = self._filter_classes(df, y_col, classes)
            num_classes = len(classes)
            self.class_indices = dict(zip(classes, range(num_classes)))
        if self.split:
            n = len(df)
            df = df.iloc[int(self.split[0] * n) : int(self.split[1] * n), :]
        if class_mode not in _NO_CLASSES:
            self.classes = self._class_ids(df, y_col)
        self.filenames = df[x_col].tolist()
        self._sample_weight = df[weight_col].values if weight_col else None
        if class_mode == "multi_output":
            self._targets: Any = [np.array(df[col].tolist()) for col in y_col]
        if class_mode == "raw":
            self._targets = df[y_col].values
        self.samples = len(self.filenames)
        checked = "validated" if validate_filenames else "non-validated"
        if class_mode in _NO_CLASSES:
            print(f"Found {self.samples} {checked} image filenames.")
        else:
            print(
                f"Found {self.samples} {checked} image filenames belonging to {num_classes} "
                "classes."
            )
        self._filepaths = [os.path.join(self.directory, f) for f in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    def _check_params(self, df: Any, x_col: str, y_col: Any, weight_col: Any, classes: Any) -> None:
        mode = self.class_mode
        if mode not in self.allowed_class_modes:
            raise ValueError(
                f"Invalid class_mode: {mode}; expected one of: {self.allowed_class_modes}"
            )
        if mode == "multi_output" and not isinstance(y_col, list):
            raise TypeError(
                f'If class_mode="{mode}", y_col must be a list. Received {type(y_col).__name__}.'
            )
        if not all(df[x_col].apply(lambda v: isinstance(v, str))):
            raise TypeError(f"All values in column x_col={x_col} must be strings.")
        if mode in {"binary", "sparse"} and not all(df[y_col].apply(lambda v: isinstance(v, str))):
            raise TypeError(
                f'If class_mode="{mode}", y_col="{y_col}" column values must be strings.'
            )
        if mode == "binary":
            found = len(set(classes)) if classes else df[y_col].nunique()
            if found != 2:
                raise ValueError(f'If class_mode="binary" there must be 2 classes. Found {found}.')
        if mode == "categorical" and not all(
            df[y_col].apply(lambda v: isinstance(v, (str, list, tuple)))
        ):
            raise TypeError(
                f'If class_mode="{mode}", y_col="{y_col}" column values must be type string, '
                "list or tuple."
            )
        if classes and mode in _NO_CLASSES:
            warnings.warn(f'`classes` will be ignored given the class_mode="{mode}"', stacklevel=3)
        if weight_col and not issubclass(df[weight_col].dtype.type, np.number):
            raise TypeError(f"Column weight_col={weight_col} must be numeric.")

    @staticmethod
    def _filter_classes(df: Any, y_col: Any, classes: Any) -> tuple[Any, list[Any]]:
        """Rows whose labels are among classes (all labels when None), and the sorted classes."""
        df = df.copy()
        if classes:
            wanted = set(classes)

            def keep(labels: Any) -> Any:
                if isinstance(labels, (list, tuple)):
                    return [c for c in labels if c in wanted] or None
                if isinstance(labels, str):
                    return labels if labels in wanted else None
                raise TypeError(
                    f"Expect string, list or tuple but found {type(labels)} in {y_col} column "
                )

            df[y_col] = df[y_col].apply(keep)
            found = wanted
        else:
            found = set()
            for v in df[y_col]:
                found.update(v) if isinstance(v, (list, tuple)) else found.add(v)
        return df.dropna(subset=[y_col]), sorted(found)

    def _class_ids(self, df: Any, y_col: Any) -> list[Any]:
        return [
            [self.class_indices[c] for c in v]
            if isinstance(v, (list, tuple))
            else self.class_indices[v]
            for v in df[y_col]
        ]

    @property
    def filepaths(self) -> list[str]:
        return self._filepaths

    @property
    def labels(self) -> Any:
        return self._targets if self.class_mode in {"multi_output", "raw"} else self.classes

    @property
    def sample_weight(self) -> Any:
        return self._sample_weight
