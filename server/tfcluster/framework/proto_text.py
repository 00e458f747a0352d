"""Protos print as TensorFlow's protobuf prints them.

TF 1.15's protobuf gives str() / repr() of a message as text_format.MessageToString, whose map
entries (a NodeDef's attrs, a MetaGraphDef's collections and signatures) come sorted by key.
The upb protobuf tfcluster runs on prints maps in hash order, so print(graph_def) would list a
node's attrs in a different order each run: every tfcluster message class prints through
text_format instead. TF's str() is the C++ printer's, which writes both fields of every map
entry even at their defaults (`tasks { key: 0 value: "..." }` in a ClusterDef, `value: 0` in
a ConfigProto's device_count); text_format leaves them out, so map entries print through
_map_entry below.
"""

from __future__ import annotations

import importlib
import io
import pkgutil
from typing import Any

from google.protobuf import text_format

from tfcluster import protos


def _map_entry(message: Any, indent: int, as_one_line: bool) -> str | None:
    """A map entry's key and value, both written even when they hold their defaults."""
    descriptor = message.DESCRIPTOR
    if not descriptor.GetOptions().map_entry:
        return None
    out = io.StringIO()
    for name in ("key", "value"):
        text_format.PrintField(
            descriptor.fields_by_name[name],
            getattr(message, name),
            out,
            indent=indent,
            as_one_line=as_one_line,
            message_formatter=_map_entry,
        )
    # The printer writes the first line's indent and the separator after the result itself.
    return out.getvalue()[indent:].rstrip("\n ")


def _as_text(message: Any) -> str:
    return text_format.MessageToString(message, message_formatter=_map_entry)


def _message_classes(module: Any) -> list[type]:
    found: list[type] = []

    def walk(holder: Any, descriptors: Any) -> None:
        for desc in descriptors:
            if desc.GetOptions().map_entry:
                continue
            cls = getattr(holder, desc.name, None)
            if isinstance(cls, type):
                found.append(cls)
                walk(cls, desc.nested_types)

    walk(module, module.DESCRIPTOR.message_types_by_name.values())
    return found


def install() -> None:
    """Gives every message class of tfcluster.protos TF's str() and repr()."""
    for info in pkgutil.iter_modules(protos.__path__):
        if not info.name.endswith("_pb2"):
            continue
        module = importlib.import_module(f"tfcluster.protos.{info.name}")
        for cls in _message_classes(module):
            cls.__str__ = _as_text  # type: ignore[method-assign,assignment]
            cls.__repr__ = _as_text  # type: ignore[method-assign,assignment]
