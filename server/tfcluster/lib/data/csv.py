"""tf.data.experimental's CSV reading: CsvDataset (records of CSV files as tuples of scalars,
parsed as tf.io.decode_csv parses them) and make_csv_dataset (batches of dicts of columns,
their names and types read from the files when not given, as TF does)."""

from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.lib.data import structure as st
from tfcluster.lib.data.dataset import AUTOTUNE, Dataset, _int64
from tfcluster.lib.data.readers import _compression, _FileDataset, _filenames_tensor, _read
from tfcluster.lib.io.file_match import match
from tfcluster.ops import dataset_ops

CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)


def _default_tensor(value: Any, i: int) -> Tensor:
    """A record default: a dtype (the column is required) or a value (its default)."""
    if isinstance(value, dtypes.DType):
        if value.base_dtype not in CSV_TYPES:
            raise TypeError(f"record_defaults[{i}] must be one of the CSV types, got {value}")
        return convert_to_tensor(np.zeros(0, dtype=value.as_numpy_dtype), dtype=value.base_dtype)
    t = convert_to_tensor(value, name=f"record_defaults_{i}")
    if t.dtype.base_dtype not in CSV_TYPES:
        raise TypeError(
            f"record_defaults[{i}] has DataType {t.dtype.base_dtype.name}, not one of float32, "
            "float64, int32, int64, string"
        )
    return t


class CsvDataset(_FileDataset):
    """A Dataset comprising lines from one or more CSV files."""

    _repr_name = "CsvDatasetV1"

    def __init__(
        self,
        filenames: Any,
        record_defaults: Sequence[Any],
        compression_type: Any = None,
        buffer_size: Any = None,
        header: bool = False,
        field_delim: str = ",",
        use_quote_delim: bool = True,
        na_value: str = "",
        select_cols: Sequence[int] | None = None,
    ) -> None:
        defaults = [_default_tensor(v, i) for i, v in enumerate(record_defaults)]
        if select_cols is not None:
            if list(select_cols) != sorted(set(select_cols)) or min(select_cols, default=0) < 0:
                raise ValueError("select_cols must be non-negative and strictly increasing")
            if len(select_cols) != len(defaults):
                raise ValueError("Length of select_cols and record_defaults do not match.")
        structure = tuple(st.dense(t.dtype, []) for t in defaults)

        def one(names: Tensor) -> Dataset:
            inputs = [
                names,
                _compression(compression_type),
                _int64(256 * 1024 if buffer_size is None else buffer_size, "buffer_size"),
                convert_to_tensor(bool(header), dtype=dtypes.bool_, name="header"),
                convert_to_tensor(field_delim, dtype=dtypes.string, name="field_delim"),
                convert_to_tensor(
                    bool(use_quote_delim), dtype=dtypes.bool_, name="use_quote_delim"
                ),
                convert_to_tensor(na_value, dtype=dtypes.string, name="na_value"),
                convert_to_tensor(
                    np.array(list(select_cols or []), dtype=np.int64),
                    dtype=dtypes.int64,
                    name="select_cols",
                ),
                *defaults,
            ]
            attrs = {**st.op_attrs(structure), "N": len(defaults)}
            return Dataset(dataset_ops.dataset_op("CSVDataset", inputs, attrs), structure)

        super().__init__(_read(filenames, one, None))


# ---- make_csv_dataset ----------------------------------------------------------------------
def _files(pattern: Any) -> list[str]:
    patterns = [pattern] if isinstance(pattern, (str, bytes)) else list(pattern)
    out: list[str] = []
    for p in patterns:
        out += match(p.decode() if isinstance(p, bytes) else str(p))
    if not out:
        raise ValueError(f"No files match `file_pattern` {pattern}.")
    return out


def _open_text(path: str, compression_type: Any) -> io.TextIOBase:
    kind = (
        tensor_util.constant_value(compression_type)
        if isinstance(compression_type, Tensor)
        else compression_type
    )
    kind = kind.decode() if isinstance(kind, bytes) else (kind or "")
    if kind == "GZIP":
        return gzip.open(path, "rt", encoding="utf-8")  # type: ignore[return-value]
    if kind == "ZLIB":
        raise ValueError(f"`compression_type` {kind} is not supported for probing columns.")
    if kind:
        raise ValueError(f"Received unknown `compression_type` {kind}.")
    return open(path, encoding="utf-8")


def _rows(
    files: list[str], delim: str, quote: bool, header: bool, compression_type: Any
) -> Iterator[list[str]]:
    for path in files:
        with _open_text(path, compression_type) as f:
            reader = csv.reader(
                f, delimiter=delim, quoting=csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE
            )
            if header:
                next(reader, None)
            yield from reader


def _infer_type(text: str, na_value: str, previous: dtypes.DType | None) -> dtypes.DType | None:
    """The least permissive CSV type that fits `text` and what the column held before."""
    if text in ("", na_value):
        return previous
    ladder = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string]
    start = ladder.index(previous) if previous is not None else 0
    for dtype in ladder[start:]:
        if _fits(text, dtype):
            return dtype
    return dtypes.string


def _fits(text: str, dtype: dtypes.DType) -> bool:
    try:
        if dtype in (dtypes.int32, dtypes.int64):
            value = int(text)
            bound = 2**31 if dtype == dtypes.int32 else 2**63
            return -bound <= value < bound
        if dtype in (dtypes.float32, dtypes.float64):
            value_f = float(text)
            return (
                dtype == dtypes.float64
                or abs(value_f) <= float(np.finfo(np.float32).max)
                or not np.isfinite(value_f)
            )
    except ValueError:
        return False
    return True


def make_csv_dataset(
    file_pattern: Any,
    batch_size: int,
    column_names: Sequence[str] | None = None,
    column_defaults: Sequence[Any] | None = None,
    label_name: str | None = None,
    select_columns: Sequence[Any] | None = None,
    field_delim: str = ",",
    use_quote_delim: bool = True,
    na_value: str = "",
    header: bool = True,
    num_epochs: int | None = None,
    shuffle: bool = True,
    shuffle_buffer_size: int = 10000,
    shuffle_seed: Any = None,
    prefetch_buffer_size: Any = None,
    num_parallel_reads: int | None = None,
    sloppy: bool = False,
    num_rows_for_inference: int | None = 100,
    compression_type: Any = None,
    ignore_errors: bool = False,
) -> Dataset:
    """Batches of (features dict, label) read from CSV files."""
    from tfcluster.lib.data import experimental

    files = _files(file_pattern)
    dataset = Dataset.from_tensor_slices(_filenames_tensor(files))
    if shuffle:
        dataset = dataset.shuffle(len(files), shuffle_seed)
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is provided.")
        headers = [
            next(_rows([f], field_delim, use_quote_delim, False, compression_type), None)
            for f in files
        ]
        if headers[0] is None:
            raise ValueError(f"Failed to read the header of {files[0]}")
        if any(h != headers[0] for h in headers):
            raise ValueError("Files have different column names in the header row.")
        column_names = list(headers[0])
    names = list(column_names)
    if len(names) != len(set(names)):
        raise ValueError(
            "Either `column_names` argument or CSV header row contains duplicate column names."
        )
    select: list[int] | None = None
    if select_columns is not None:
        select = sorted(names.index(c) if isinstance(c, str) else int(c) for c in select_columns)
    if column_defaults is None:
        columns = select if select is not None else list(range(len(names)))
        inferred: list[dtypes.DType | None] = [None] * len(columns)
        for i, row in enumerate(
            _rows(files, field_delim, use_quote_delim, header, compression_type)
        ):
            if num_rows_for_inference is not None and i >= num_rows_for_inference:
                break
            for j, c in enumerate(columns):
                inferred[j] = _infer_type(row[c] if c < len(row) else "", na_value, inferred[j])
        types = [t or dtypes.string for t in inferred]
        defaults: list[Any] = [
            convert_to_tensor(
                np.array([b"" if t == dtypes.string else 0], dtype=t.as_numpy_dtype), dtype=t
            )
            for t in types
        ]
    else:
        defaults = list(column_defaults)
    if select is not None and len(defaults) != len(select):
        raise ValueError(
            "If specified, `column_defaults` and `select_columns` must have the same length."
        )
    if select is not None and len(names) > len(select):
        names = [names[i] for i in select]
    if label_name is not None and label_name not in names:
        raise ValueError(f"`label_name` provided must be one of the columns: {names}.")

    def per_file(filename: Tensor) -> Dataset:
        ds = CsvDataset(
            filename,
            record_defaults=defaults,
            field_delim=field_delim,
            use_quote_delim=use_quote_delim,
            na_value=na_value,
            select_cols=select,
            header=header,
            compression_type=compression_type,
        )
        return ds.apply(experimental.ignore_errors()) if ignore_errors else ds

    def to_dict(*columns: Tensor) -> Any:
        features = dict(zip(names, columns))
        if label_name is not None:
            label = features.pop(label_name)
            return features, label
        return features

    reads = 1 if num_parallel_reads is None else num_parallel_reads
    if reads == AUTOTUNE:
        dataset = dataset.interleave(per_file, num_parallel_calls=reads)
    else:
        dataset = dataset.apply(
            experimental.parallel_interleave(per_file, cycle_length=reads, sloppy=sloppy)
        )
    if num_epochs != 1 and shuffle:
        dataset = dataset.apply(
            experimental.shuffle_and_repeat(shuffle_buffer_size, num_epochs, shuffle_seed)
        )
    elif shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    elif num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)
    dataset = dataset.map(to_dict)
    return dataset.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)
