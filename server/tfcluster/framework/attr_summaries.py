"""TF's one-line summaries of attr values (SummarizeAttrValue in
tensorflow/core/framework), as its error messages print them."""

from __future__ import annotations

from typing import Any

from tfcluster.protos import types_pb2

# Lists this long or longer are shown by their first and last five items.
_LONGEST_LIST = 15
# Strings this long or longer (escaped) are shown by their ends.
_LONGEST_STRING = 80


def summarize_attr_value(value: Any) -> str:
    """TF's SummarizeAttrValue for the common kinds (tensors are shown by dtype and shape)."""
    kind = value.WhichOneof("value")
    if kind == "list":
        items: list[str] = []
        for field in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
            items.extend(_summarize_one(field, v) for v in getattr(value.list, field))
        if len(items) >= _LONGEST_LIST:
            items = [*items[:5], "...", *items[-5:]]
        return "[" + ", ".join(items) + "]"
    if kind is None:
        return "<Unknown AttrValue type>"
    return _summarize_one(kind, getattr(value, kind))


def _summarize_one(kind: str, v: Any) -> str:
    if kind == "s":
        escaped = _c_escape(v)
        if len(escaped) >= _LONGEST_STRING:
            # TF's SummarizeString: a long string by its first and last ten characters.
            escaped = escaped[:10] + "..." + escaped[-10:]
        return '"' + escaped + '"'
    if kind == "i":
        return str(v)
    if kind == "f":
        return f"{v:g}"
    if kind == "b":
        return "true" if v else "false"
    if kind == "type":
        return str(types_pb2.DataType.Name(v))
    if kind == "shape":
        if v.unknown_rank:
            return "<unknown>"
        return "[" + ",".join("?" if d.size < 0 else str(d.size) for d in v.dim) + "]"
    if kind == "tensor":
        dims = ",".join(str(d.size) for d in v.tensor_shape.dim)
        return f"<Tensor<type: {_dtype_name(v.dtype)} shape: [{dims}]>>"
    if kind == "func":
        # TF's SummarizeFunc: the name, then its attrs sorted.
        entries = sorted(f"{k}={summarize_attr_value(a)}" for k, a in v.attr.items())
        return f"{v.name}[{', '.join(entries)}]"
    return str(v)


def _dtype_name(enum: int) -> str:
    return str(types_pb2.DataType.Name(enum))[3:].lower()


def _c_escape(raw: bytes) -> str:
    out = []
    for byte in raw:
        char = chr(byte)
        escaped = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "'": "\\'", "\\": "\\\\"}
        if char in escaped:
            out.append(escaped[char])
        elif 32 <= byte < 127:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return "".join(out)
