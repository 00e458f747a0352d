"""SqlDataset: the rows a query returns from a SQLite database (Python's sqlite3), one
element per row, each column converted to its output type as TF's SQLite reader converts it
(sqlite3_column_int64 / _double / _text: NULL is 0 or "", text read as a number by its
leading digits, numbers written as text)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.registry import CPU_ONLY, kernel

_INTEGERS = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16)
_SUPPORTED = (dtypes.string, *_INTEGERS, dtypes.bool_, dtypes.float64)
_LEADING_INT = re.compile(rb"^\s*[+-]?\d+")
_LEADING_REAL = re.compile(rb"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _code(e: sqlite3.Error) -> int:
    """SQLite's result code of an error (SQLITE_ERROR where Python does not say)."""
    return int(getattr(e, "sqlite_errorcode", 1))


def _as_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    return str(value).encode()


def _as_int64(value: Any) -> int:
    """sqlite3_column_int64: NULL 0, a real truncated (clamped), text by its leading integer."""
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value != value:
            return 0
        return int(min(max(value, _INT64_MIN), _INT64_MAX))
    m = _LEADING_INT.match(_as_bytes(value))
    return int(m.group(0)) if m else 0


def _as_double(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, (int, float)):
        return float(value)
    m = _LEADING_REAL.match(_as_bytes(value))
    return float(m.group(0)) if m else 0.0


def _real_text(value: float) -> str:
    """A real as SQLite writes it ("%!.15g": 15 significant digits, always a decimal point,
    1.0e+20 rather than 1e+20)."""
    if value in (float("inf"), float("-inf")):
        return "Inf" if value > 0 else "-Inf"
    text = f"{value:.15g}"
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + e + exponent


def _as_text(value: Any) -> bytes:
    if value is None:
        return b""
    if isinstance(value, float):
        return _real_text(value).encode()
    return _as_bytes(value)


def _converter(dtype: dtypes.DType) -> Callable[[Any], Any]:
    if dtype == dtypes.string:
        return lambda v: base.as_array(_as_text(v))
    if dtype == dtypes.float64:
        return lambda v: np.float64(_as_double(v))
    if dtype == dtypes.bool_:
        return lambda v: np.bool_(_as_int64(v) != 0)
    np_type = dtype.as_numpy_dtype
    # static_cast<T>(int64): wraps around, as C++ does.
    return lambda v: np.array(_as_int64(v), dtype=np.int64).astype(np_type)[()]


def _column(values: Sequence[Any], dtype: dtypes.DType) -> np.ndarray:
    """One column of fetched rows converted at once (the per-value rules only where a value
    is not already of the column's kind)."""
    kinds = set(map(type, values))
    if dtype == dtypes.string:
        out = np.empty(len(values), dtype=object)
        if kinds <= {str}:
            out[:] = [v.encode() for v in values]
        else:
            out[:] = [_as_text(v) for v in values]
        return out
    if dtype == dtypes.float64:
        if kinds <= {int, float}:
            return np.array(values, dtype=np.float64)
        return np.array([_as_double(v) for v in values], dtype=np.float64)
    if kinds <= {int}:
        ints = np.array(values, dtype=np.int64)
    else:
        ints = np.array([_as_int64(v) for v in values], dtype=np.int64)
    if dtype == dtypes.bool_:
        return ints != 0
    return ints.astype(dtype.as_numpy_dtype)


class _Sql(base.Dataset):
    def __init__(self, specs: Sequence[base.LeafSpec], path: str, query: str) -> None:
        super().__init__(specs)
        self.path, self.query = path, query

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _SqlIterator(self)


class _SqlIterator(base.ElementIterator):
    """Connects and runs the query on the first read; a failed connect or query fails every
    read until it succeeds, as TF's does."""

    def __init__(self, data: _Sql) -> None:
        self._data = data
        self._conn: sqlite3.Connection | None = None
        self._rows: sqlite3.Cursor | None = None
        self._convert = [_converter(s.dtype) for s in data.specs]

    def _start(self) -> sqlite3.Cursor:
        data = self._data
        try:
            # Read-only, without creating a missing file (TF opens with SQLITE_OPEN_READWRITE
            # only, so a missing database fails).
            quoted = data.path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")
            uri = f"file:{quoted}?mode=rw"
            self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
        except sqlite3.Error as e:
            raise errors.UnknownError(
                None, None, f"Sqlite::Open({data.path}) failed: {e}"
            ) from None
        try:
            rows = self._conn.execute(data.query)
        except sqlite3.Error as e:
            self._close_conn()
            raise errors.UnknownError(
                None, None, f"Prepare() failed: [{_code(e)}] {e}: {data.query}"
            ) from None
        columns = len(rows.description or ())
        if columns != len(data.specs):
            self._close_conn()
            raise errors.InvalidArgumentError(
                None,
                None,
                f"The number of columns in query ({columns}) must match the number of "
                f"elements in output_types ({len(data.specs)}).",
            )
        return rows

    def next(self) -> base.Element | None:
        if self._rows is None:
            if self._conn is not None:
                return None  # the query ran to its end
            self._rows = self._start()
        try:
            row = self._rows.fetchone()
        except sqlite3.Error as e:
            raise errors.UnknownError(None, None, f"Step() failed: {e}") from None
        if row is None:
            self._rows = None
            return None
        return tuple(conv(v) for conv, v in zip(self._convert, row))

    def next_columns(self, n: int) -> list[Any]:
        """Up to n rows as one array per column ([] at the end): what a batch takes."""
        if self._rows is None:
            if self._conn is not None:
                return []
            self._rows = self._start()
        try:
            rows = self._rows.fetchmany(n)
        except sqlite3.Error as e:
            raise errors.UnknownError(None, None, f"Step() failed: {e}") from None
        if not rows:
            self._rows = None
            return []
        columns = list(zip(*rows))
        return [_column(c, spec.dtype) for c, spec in zip(columns, self._data.specs)]

    def _close_conn(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def close(self) -> None:
        self._rows = None
        self._close_conn()


def _text(value: Any, what: str) -> str:
    arr = np.asarray(value, dtype=object)
    if arr.shape != ():
        raise errors.InvalidArgumentError(
            None, None, f"{what} must be a scalar, got shape {list(arr.shape)}"
        )
    item = arr[()]
    return item.decode("utf-8", "surrogateescape") if isinstance(item, bytes) else str(item)


def sql_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)
    bad = [s.dtype for s in specs if s.dtype not in _SUPPORTED]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        if bad:
            raise errors.InvalidArgumentError(
                None,
                None,
                "Each element of `output_types_` must be one of: DT_STRING, DT_INT8, DT_INT16, "
                "DT_INT32, DT_INT64, DT_UINT8, DT_UINT16, DT_BOOL, DT_DOUBLE ",
            )
        driver = _text(ins[0], "driver_name")
        if driver != "sqlite":
            raise errors.InvalidArgumentError(
                None,
                None,
                f"The database type, {driver}, is not supported by SqlDataset. The set of "
                "supported databases is: {'sqlite'}.",
            )
        return (_Sql(specs, _text(ins[1], "data_source_name"), _text(ins[2], "query")),)

    return compute


kernel("SqlDataset", devices=CPU_ONLY)(sql_dataset)
kernel("ExperimentalSqlDataset", devices=CPU_ONLY)(sql_dataset)
