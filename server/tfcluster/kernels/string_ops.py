"""Kernels of the string ops: values are numpy object arrays of bytes (the CPU only)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.kernels import string_hash
from tfcluster.kernels.common import host_array, invalid, shape_str
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.tensor_format import summarize


def _bytes_scalar(value: bytes) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = value
    return out


@kernel("StringFormat", devices=CPU_ONLY)
def string_format(node: Any, xp: Any) -> Any:
    template = str(node.attrs["template"])
    placeholder = str(node.attrs.get("placeholder", "{}"))
    count = int(node.attrs.get("summarize", 3))
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(node.inputs):
        raise invalid(
            f"num placeholders in template and num inputs must match: {len(pieces) - 1} vs. "
            f"{len(node.inputs)}"
        )

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        out = [pieces[0]]
        for value, piece in zip(ins, pieces[1:]):
            out.append(summarize(host_array(value), count, print_v2=True))
            out.append(piece)
        return (_bytes_scalar("".join(out).encode()),)

    return compute


# ---- element-wise -----------------------------------------------------------------------------
def _bytes(v: Any) -> bytes:
    return v if isinstance(v, bytes) else str(v).encode()


def _strings(value: Any) -> np.ndarray:
    return np.asarray(value, dtype=object)


def _map(fn: Any, arr: np.ndarray, dtype: Any = object) -> np.ndarray:
    """fn applied to every string of arr (numpy's vectorize keeps the loop out of our code)."""
    out = np.empty(arr.shape, dtype=dtype)
    flat = arr.reshape(-1)
    out.reshape(-1)[:] = [fn(_bytes(v)) for v in flat] if flat.size else []
    return out


def _unary(fn: Any, dtype: Any = object) -> Any:
    def factory(node: Any, xp: Any) -> Any:
        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            return (_map(fn, _strings(ins[0]), dtype),)

        return compute

    return factory


_WHITESPACE = b" \t\n\v\f\r"
kernel("StringStrip", devices=CPU_ONLY)(_unary(lambda s: s.strip(_WHITESPACE)))
kernel("StringUpper", devices=CPU_ONLY)(_unary(lambda s: s.upper()))
kernel("StringLower", devices=CPU_ONLY)(_unary(lambda s: s.lower()))


def _utf8_len(s: bytes) -> int:
    """Characters: bytes that do not continue a UTF-8 sequence (TF's count)."""
    return sum(1 for b in s if (b & 0xC0) != 0x80)


@kernel("StringLength", devices=CPU_ONLY)
def string_length(node: Any, xp: Any) -> Any:
    count = _utf8_len if str(node.attrs.get("unit", "BYTE")) == "UTF8_CHAR" else len

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_map(count, _strings(ins[0]), np.int32),)

    return compute


@kernel("StringJoin", devices=CPU_ONLY)
def string_join(node: Any, xp: Any) -> Any:
    sep = _bytes(node.attrs.get("separator", ""))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        arrays = [_strings(v) for v in ins]
        shape: tuple[int, ...] = ()
        for a in arrays:
            if a.ndim == 0:
                continue
            if shape and a.shape != shape:
                raise invalid(
                    f"Input shapes do not match: {shape_str(shape)} vs. {shape_str(a.shape)}"
                )
            shape = a.shape
        parts = [np.broadcast_to(a, shape).reshape(-1) for a in arrays]
        out = np.empty(shape, dtype=object)
        out.reshape(-1)[:] = [
            sep.join(_bytes(p[i]) for p in parts)
            for i in range(int(np.prod(shape, dtype=np.int64)))
        ]
        return (out,)

    return compute


def _utf8_starts(s: bytes) -> list[int]:
    return [i for i, b in enumerate(s) if (b & 0xC0) != 0x80]


@kernel("Substr", devices=CPU_ONLY)
def substr(node: Any, xp: Any) -> Any:
    utf8 = str(node.attrs.get("unit", "BYTE")) == "UTF8_CHAR"

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        s = _strings(ins[0])
        pos, length = np.asarray(ins[1]), np.asarray(ins[2])
        if pos.shape != length.shape:
            raise invalid(
                "pos and len should have the same shape, got: "
                f"{shape_str(pos.shape)} vs. {shape_str(length.shape)}"
            )
        try:
            shape = np.broadcast_shapes(s.shape, pos.shape)
        except ValueError:
            raise invalid(
                f"Incompatible shapes: {shape_str(s.shape)} vs. {shape_str(pos.shape)}"
            ) from None
        flat_s = np.broadcast_to(s, shape).reshape(-1)
        flat_p = np.broadcast_to(pos, shape).reshape(-1)
        flat_n = np.broadcast_to(length, shape).reshape(-1)
        out = np.empty(shape, dtype=object)
        result = []
        for i, (text, p, n) in enumerate(zip(flat_s, flat_p.tolist(), flat_n.tolist())):
            b = _bytes(text)
            if utf8:
                starts = _utf8_starts(b)
                size = len(starts)
                q = p + size if p < 0 else p
                if not 0 <= q <= size:
                    raise invalid(f"pos {p} out of range for string at index {i}")
                end = min(q + n, size)
                lo = starts[q] if q < size else len(b)
                hi = starts[end] if end < size else len(b)
                result.append(b[lo:hi])
            else:
                size = len(b)
                q = p + size if p < 0 else p
                if not 0 <= q <= size:
                    text = b.decode("utf-8", "replace")
                    raise invalid(f"pos {p} out of range for string b'{text}' at index {i}")
                result.append(b[q : q + max(n, 0)])
        out.reshape(-1)[:] = result
        return (out,)

    return compute


def _compile(pattern: bytes) -> Any:
    """An RE2 pattern as Python's re (the syntax both share)."""
    import re

    try:
        return re.compile(pattern)
    except re.error as e:
        raise invalid(
            f"Invalid pattern: {pattern.decode('utf-8', 'replace')}, error: {e}"
        ) from None


def _rewrite(rewrite: bytes) -> bytes:
    """RE2's rewrite (\\0 is the whole match, \\1..\\9 groups) as Python's template."""
    out = bytearray()
    i = 0
    while i < len(rewrite):
        c = rewrite[i]
        if c == 0x5C and i + 1 < len(rewrite):
            nxt = rewrite[i + 1]
            if 0x30 <= nxt <= 0x39:
                out += b"\\g<" + bytes([nxt]) + b">"
                i += 2
                continue
            if nxt == 0x5C:
                out += b"\\\\"
                i += 2
                continue
        out.append(c)
        i += 1
    return bytes(out)


def _replace(arr: np.ndarray, pattern: bytes, rewrite: bytes, replace_global: bool) -> np.ndarray:
    regex = _compile(pattern)
    template = _rewrite(rewrite)
    count = 0 if replace_global else 1
    return _map(lambda s: regex.sub(template, s, count=count), arr)


@kernel("StaticRegexReplace", devices=CPU_ONLY)
def static_regex_replace(node: Any, xp: Any) -> Any:
    pattern = _bytes(node.attrs["pattern"])
    rewrite = _bytes(node.attrs["rewrite"])
    replace_global = bool(node.attrs.get("replace_global", True))
    _compile(pattern)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_replace(_strings(ins[0]), pattern, rewrite, replace_global),)

    return compute


def _scalar_bytes(value: Any, what: str) -> bytes:
    arr = np.asarray(value, dtype=object)
    if arr.ndim != 0:
        raise invalid(f"{what} must be scalar, but received {shape_str(arr.shape)}")
    return _bytes(arr[()])


@kernel("RegexReplace", devices=CPU_ONLY)
def regex_replace(node: Any, xp: Any) -> Any:
    replace_global = bool(node.attrs.get("replace_global", True))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        pattern = _scalar_bytes(ins[1], "Pattern")
        rewrite = _scalar_bytes(ins[2], "Rewrite")
        return (_replace(_strings(ins[0]), pattern, rewrite, replace_global),)

    return compute


def _full_match(arr: np.ndarray, pattern: bytes) -> np.ndarray:
    regex = _compile(pattern)
    return _map(lambda s: regex.fullmatch(s) is not None, arr, bool)


@kernel("StaticRegexFullMatch", devices=CPU_ONLY)
def static_regex_full_match(node: Any, xp: Any) -> Any:
    pattern = _bytes(node.attrs["pattern"])
    _compile(pattern)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_full_match(_strings(ins[0]), pattern),)

    return compute


@kernel("RegexFullMatch", devices=CPU_ONLY)
def regex_full_match(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_full_match(_strings(ins[0]), _scalar_bytes(ins[1], "Pattern")),)

    return compute


def _bucket_kernel(hash_fn: Any) -> Any:
    def factory(node: Any, xp: Any) -> Any:
        num = int(node.attrs["num_buckets"])
        if num <= 0:
            raise invalid(f"num_buckets must be positive, got {num}")
        key = node.attrs.get("key")
        fn = hash_fn
        if key is not None:
            if len(key) != 2:
                raise invalid("Key must have 2 elements")
            k0, k1 = (int(k) & ((1 << 64) - 1) for k in key)

            def fn(s: bytes) -> int:
                return string_hash.siphash24(k0, k1, s)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            return (_map(lambda s: fn(s) % num, _strings(ins[0]), np.int64),)

        return compute

    return factory


kernel("StringToHashBucketFast", devices=CPU_ONLY)(_bucket_kernel(string_hash.fingerprint64))
kernel("StringToHashBucket", devices=CPU_ONLY)(_bucket_kernel(string_hash.hash64))
kernel("StringToHashBucketStrong", devices=CPU_ONLY)(_bucket_kernel(None))


@kernel("AsString", devices=CPU_ONLY)
def as_string(node: Any, xp: Any) -> Any:
    a = node.attrs
    dtype = a["T"]
    precision = int(a.get("precision", -1))
    scientific = bool(a.get("scientific", False))
    shortest = bool(a.get("shortest", False))
    width = int(a.get("width", -1))
    fill = str(a.get("fill", ""))
    kind = np.dtype(dtype.as_numpy_dtype).kind
    if kind not in "fc" and precision > -1:
        raise invalid(f"precision not supported for datatype {_type_name(dtype)}")
    if kind not in "fc" and (scientific or shortest):
        raise invalid(
            f"scientific and shortest format not supported for datatype {_type_name(dtype)}"
        )
    if scientific and shortest:
        raise invalid("Cannot select both scientific and shortest notation")
    if len(fill) > 1:
        raise invalid(f"Fill string must be one or fewer characters, got {fill}")
    flags = "0" if fill == "0" else ""
    if fill not in ("", " ", "0"):
        raise invalid(f'Fill argument not supported: "{fill}"')
    spec = "%" + flags + (str(width) if width > -1 else "")
    if kind in "fc":
        spec += f".{precision}" if precision > -1 else ""
        spec += "g" if shortest else "e" if scientific else "f"
    elif kind == "b":
        spec += "s"
    else:
        spec += "d"

    def fmt(v: Any) -> bytes:
        if kind == "b":
            return (spec % ("true" if v else "false")).encode()
        if kind == "c":
            return ("(" + spec % v.real + "," + spec % v.imag + ")").encode()
        return (spec % v).encode()

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        arr = np.asarray(ins[0])
        out = np.empty(arr.shape, dtype=object)
        out.reshape(-1)[:] = [fmt(v) for v in arr.reshape(-1).tolist()] if arr.size else []
        return (out,)

    return compute


def _type_name(dtype: Any) -> str:
    return {"float32": "float", "float64": "double"}.get(dtype.name, dtype.name)


@kernel("ReduceJoin", devices=CPU_ONLY)
def reduce_join(node: Any, xp: Any) -> Any:
    keep = bool(node.attrs.get("keep_dims", False))
    sep = _bytes(node.attrs.get("separator", ""))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        arr = _strings(ins[0])
        rank = arr.ndim
        axes = []
        for a in np.asarray(ins[1]).reshape(-1).tolist():
            if not -rank <= a < rank:
                raise invalid(f"Invalid reduction dimension {a} for input with {rank} dimension(s)")
            a %= rank
            if a in axes:
                raise invalid(f"Duplicate reduction dimension {a}")
            axes.append(a)
        kept = [d for d in range(rank) if d not in axes]
        reduced = sorted(axes)
        moved = np.transpose(arr, kept + reduced)
        joined = int(np.prod([arr.shape[d] for d in reduced], dtype=np.int64))
        groups = moved.reshape(*moved.shape[: len(kept)], joined)
        out = np.empty(groups.shape[:-1], dtype=object)
        flat = groups.reshape(int(np.prod(groups.shape[:-1], dtype=np.int64)), joined)
        out.reshape(-1)[:] = (
            [sep.join(_bytes(v) for v in row) for row in flat] if flat.shape[0] else []
        )
        if keep:
            out = out.reshape([1 if d in axes else arr.shape[d] for d in range(rank)])
        return (out,)

    return compute


# EncodeBase64 / DecodeBase64: kernels/string_codecs.py.


@kernel("UnsortedSegmentJoin", devices=CPU_ONLY)
def unsorted_segment_join(node: Any, xp: Any) -> Any:
    sep = _bytes(node.attrs.get("separator", ""))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _strings(ins[0])
        ids = np.asarray(ins[1])
        num = int(np.asarray(ins[2]))
        if data.shape[: ids.ndim] != ids.shape:
            raise invalid(
                f"segment_ids.shape = {shape_str(ids.shape)} does not start with data.shape = "
                f"{shape_str(data.shape)}"
            )
        rest = data.shape[ids.ndim :]
        flat_ids = ids.reshape(-1).tolist()
        rows = data.reshape(len(flat_ids), -1)
        width = rows.shape[1]
        groups: list[list[list[bytes]]] = [[[] for _ in range(width)] for _ in range(num)]
        for r, seg in enumerate(flat_ids):
            if seg < 0:
                continue
            if seg >= num:
                raise invalid(f"segment_ids[{r}] = {seg} is out of range [0, {num})")
            for c in range(width):
                groups[seg][c].append(_bytes(rows[r, c]))
        out = np.empty((num, width), dtype=object)
        for s in range(num):
            for c in range(width):
                out[s, c] = sep.join(groups[s][c])
        return (out.reshape((num, *rest)),)

    return compute
