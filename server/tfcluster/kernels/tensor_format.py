"""Tensors as text, as TF's Tensor::SummarizeValue writes them: the old form of tf.Print and
tf.Assert ('1 2 3...' with at most `summarize` elements in all, nested in brackets) and the
numpy-like form of tf.print and tf.strings.format ('[1 2 ... 8 9]', `summarize` elements at
each end of every dimension)."""

from __future__ import annotations

from typing import Any

import numpy as np


def _float(v: float, digits: int, exact: int, cast: Any) -> str:
    """Shortest of %.{digits}g and %.{exact}g that reads back as the same value (C's
    FloatToBuffer / DoubleToBuffer)."""
    text = f"%.{digits}g" % v
    if np.isfinite(v) and cast(float(text)) != cast(v):
        text = f"%.{exact}g" % v
    return text


def _escape(b: bytes, hex_codes: bool = True) -> str:
    """C's CHexEscape (other bytes as \\xHH) or CEscape (as \\ooo): quotes, backslash and
    controls escaped."""
    out = []
    for c in b:
        if c == 0x0A:
            out.append("\\n")
        elif c == 0x0D:
            out.append("\\r")
        elif c == 0x09:
            out.append("\\t")
        elif c in (0x22, 0x27, 0x5C):
            out.append("\\" + chr(c))
        elif c < 0x20 or c >= 0x7F:
            out.append(f"\\x{c:02x}" if hex_codes else f"\\{c:03o}")
        else:
            out.append(chr(c))
    return "".join(out)


def element(v: Any, kind: str, print_v2: bool) -> str:
    """One element as text; `kind` is the numpy dtype's kind (or 'f4'/'f8'/'f2')."""
    if kind == "O":
        b = v if isinstance(v, bytes) else str(v).encode()
        if print_v2:
            return '"' + _escape(b) + '"'
        return _escape(b, hex_codes=False)
    if kind == "b":
        return "1" if v else "0"
    if kind in ("i", "u"):
        return str(int(v))
    if kind == "c":
        return "(" + element(v.real, "f4", print_v2) + "," + element(v.imag, "f4", print_v2) + ")"
    if kind == "f8":
        return _float(float(v), 15, 17, np.float64)
    return _float(float(v), 6, 9, np.float32)


def _kind(arr: np.ndarray) -> str:
    k = arr.dtype.kind
    if k == "f":
        return "f8" if arr.dtype == np.float64 else "f4"
    if k in "SU":
        return "O"
    return k


def summarize(value: Any, max_entries: int, print_v2: bool = False) -> str:
    """TF's SummarizeValue(max_entries, print_v2); a negative max_entries prints all."""
    arr = np.asarray(value)
    n = arr.size
    limit = n if max_entries < 0 else min(max_entries, n)
    kind = _kind(arr)
    flat = arr.reshape(-1)
    if arr.ndim == 0:
        return element(flat[0], kind, print_v2)
    if print_v2:
        return _v2(arr, kind, limit)
    if limit == 0:
        return ""
    out: list[str] = []
    index = [0]
    _v1_dim(0, arr.shape, limit, flat, kind, index, out)
    if n > limit:
        out.append("...")
    return "".join(out)


def _v1_dim(
    dim: int,
    shape: tuple[int, ...],
    limit: int,
    flat: np.ndarray,
    kind: str,
    index: list[int],
    out: list[str],
) -> None:
    """TF's PrintOneDim: at most `limit` elements in all, '...' where a row was cut."""
    if index[0] >= limit:
        return
    count = shape[dim]
    if dim == len(shape) - 1:
        for i in range(count):
            if index[0] >= limit:
                if dim != 0:
                    out.append("...")
                return
            if i > 0:
                out.append(" ")
            out.append(element(flat[index[0]], kind, False))
            index[0] += 1
        return
    for _ in range(count):
        opened = index[0] < limit
        if opened:
            out.append("[")
        _v1_dim(dim + 1, shape, limit, flat, kind, index, out)
        if index[0] < limit or opened:
            out.append("]")


def _v2(arr: np.ndarray, kind: str, ends: int) -> str:
    """TF's PrintOneDimV2: `ends` elements at each end of every dimension, numpy's layout."""
    out: list[str] = []
    ndim = arr.ndim
    flat = arr.reshape(-1)
    shape = arr.shape

    def spacing(dim: int) -> None:
        if dim == ndim - 1:
            out.append(" ")
            return
        out.append("\n" * (ndim - dim - 1))
        out.append(" " * (dim + 1))

    def visit(dim: int, start: int) -> None:
        if dim == ndim:
            out.append(element(flat[start], kind, True))
            return
        out.append("[")
        count = shape[dim]
        per = int(np.prod(shape[dim + 1 :], dtype=np.int64)) if dim + 1 < ndim else 1
        start_of_end = max(ends, count - ends)
        for i in range(min(ends, count)):
            if i > 0:
                spacing(dim)
            visit(dim + 1, start + per * i)
        if count > 2 * ends:
            spacing(dim)
            out.append("...")
        for i in range(start_of_end, count):
            spacing(dim)
            visit(dim + 1, start + per * i)
        out.append("]")

    visit(0, 0)
    return "".join(out)
