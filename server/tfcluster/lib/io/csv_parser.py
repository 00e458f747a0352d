"""CSV records into columns, with TF's DecodeCSV rules (RFC 4180 quotes when
use_quote_delim, empty or na_value fields take the column's default, a column without a
default is required), and strings into numbers as StringToNumber converts them.

Splitting and number conversion run in C (bytes.split, re, numpy); Python touches each
record and each quoted field, never each byte.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors

_RANGES = {dtypes.int32: (-(2**31), 2**31 - 1)}
_TYPE_NAMES = {
    dtypes.float32: "float",
    dtypes.float64: "double",
    dtypes.int32: "int32",
    dtypes.int64: "int64",
}


@dataclass(frozen=True)
class CsvOptions:
    delim: str = ","
    use_quote_delim: bool = True
    na_value: str = ""
    select_cols: tuple[int, ...] = ()


def _invalid(message: str) -> errors.OpError:
    return errors.InvalidArgumentError(None, None, message)


def _text(b: bytes) -> str:
    return b.decode("utf-8", "backslashreplace")


def _field_pattern(delim: bytes) -> re.Pattern[bytes]:
    d = re.escape(delim)
    # A quoted field ("" is an escaped quote) or an unquoted one, then a delimiter or the end.
    return re.compile(rb'(?:"((?:[^"]|"")*)"|([^"\r\n' + d + rb"]*))(" + d + rb"|\Z)", re.S)


def _quoted_fields(record: bytes, pattern: re.Pattern[bytes], index: int) -> list[bytes]:
    fields = []
    pos = 0
    end = len(record)
    while True:
        m = pattern.match(record, pos)
        if m is None:
            if record[pos : pos + 1] == b'"' or b'"' not in record[pos:]:
                raise _invalid(
                    f"Quote inside a string has to be escaped by another quote in record {index}"
                )
            raise _invalid(f"Unquoted fields cannot have quotes/CRLFs inside in record {index}")
        quoted, plain, sep = m.groups()
        fields.append(quoted.replace(b'""', b'"') if quoted is not None else plain)
        pos = m.end()
        if not sep:
            if pos != end:
                raise _invalid(
                    f"Quote inside a string has to be escaped by another quote in record {index}"
                )
            return fields


def split_records(
    records: Sequence[bytes], options: CsvOptions, num_fields: int
) -> list[list[bytes]]:
    """Each record's fields (only the selected columns, when select_cols is given)."""
    delim = options.delim.encode()
    pattern = _field_pattern(delim) if options.use_quote_delim else None
    select = options.select_cols
    out = []
    for i, record in enumerate(records):
        if pattern is not None and b'"' in record:
            fields = _quoted_fields(record, pattern, i)
        else:
            fields = record.split(delim)
            if pattern is not None and (b"\n" in record or b"\r" in record):
                raise _invalid(f"Unquoted fields cannot have quotes/CRLFs inside in record {i}")
        if select:
            if len(fields) <= select[-1]:
                raise _invalid(f"Expect {len(select)} fields but have {len(fields)} in record {i}")
            fields = [fields[c] for c in select]
        elif len(fields) != num_fields:
            raise _invalid(f"Expect {num_fields} fields but have {len(fields)} in record {i}")
        out.append(fields)
    return out


def string_to_number_error(index: int, text: bytes, dtype: dtypes.DType) -> Exception:
    return _invalid(f"StringToNumberOp could not correctly convert string: {_text(text)}")


def to_numbers(
    texts: Sequence[bytes],
    dtype: dtypes.DType,
    error: Callable[[int, bytes, dtypes.DType], Exception],
) -> np.ndarray:
    """Converts strings to `dtype` in one numpy call; `error(index, text, dtype)` makes the
    error for the first one that is not a number of that type."""
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    if not texts:
        return np.zeros(0, dtype=np_dtype)
    raw = np.array(texts, dtype=bytes)
    try:
        if np_dtype.kind == "f":
            values = raw.astype(np.float64).astype(np_dtype)
        else:
            values = raw.astype(np.int64)
    except (ValueError, OverflowError):
        values = None
    if values is None or (
        np_dtype.kind != "f"
        and (
            dtype in _RANGES
            and (values.min() < _RANGES[dtype][0] or values.max() > _RANGES[dtype][1])
        )
    ):
        for i, text in enumerate(texts):
            if not _is_number(text, dtype):
                raise error(i, text, dtype)
    assert values is not None
    return values.astype(np_dtype, copy=False)


def _is_number(text: bytes, dtype: dtypes.DType) -> bool:
    try:
        value = float(text) if dtype.is_floating else int(text)
    except (ValueError, OverflowError):
        return False
    lo, hi = _RANGES.get(dtype, (-(2**63), 2**63 - 1))
    return dtype.is_floating or lo <= value <= hi  # type: ignore[operator]


def decode_csv(
    records: Sequence[bytes],
    out_types: Sequence[dtypes.DType],
    defaults: Sequence[Any],
    options: CsvOptions,
) -> list[np.ndarray]:
    """One 1-D array per column. defaults[c] is the column's default (None: required)."""
    rows = split_records(records, options, len(out_types))
    na = options.na_value.encode()
    columns = []
    for c, dtype in enumerate(out_types):
        texts = [row[c] for row in rows]
        empty = [i for i, t in enumerate(texts) if not t or t == na]
        default = defaults[c]
        if empty and default is None:
            raise _invalid(f"Field {c} is required but missing in record {empty[0]}!")
        if dtype == dtypes.string:
            col = np.empty(len(texts), dtype=object)
            col[:] = texts
            for i in empty:
                col[i] = default if isinstance(default, bytes) else str(default).encode()
            columns.append(col)
            continue
        filled = list(texts)
        for i in empty:
            filled[i] = b"0"

        def field_error(i: int, text: bytes, dt: dtypes.DType, c: int = c) -> Exception:
            return _invalid(
                f"Field {c} in record {i} is not a valid {_TYPE_NAMES[dt]}: {_text(text)}"
            )

        col = to_numbers(filled, dtype, field_error)
        if empty:
            col[np.array(empty)] = default
        columns.append(col)
    return columns
