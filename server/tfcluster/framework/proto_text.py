"""Protos print as TensorFlow's protobuf prints them.

TF 1.15's protobuf gives str() / repr() of a message as text_format.MessageToString, whose map
entries (a NodeDef's attrs, a MetaGraphDef's collections and signatures) come sorted by key.
The upb protobuf tfcluster runs on prints maps in hash order, so print(graph_def) would list a
node's attrs in a different order each run: every tfcluster message class prints through
text_format instead. TF's str() is the C++ printer's, which writes both fields of every map
entry even at their defaults (`tasks { key: 0 value: "..." }` in a ClusterDef, `value: 0` in
a ConfigProto's device_count); text_format leaves them out, so map entries print through
_map_entry below.

Float fields: TF 1.15's protobuf (3.x) prints a float field as the double it widens to, in
Python's shortest repr (`simple_value: 0.10000000149011612`) both in str() and in the text files
TF writes with `text_format.MessageToString(..., float_format='')` (write_graph,
export_meta_graph, SavedModel's .pbtxt); the upb protobuf prints the shortest float32 (`0.1`)
and has no float_format, so tfcluster prints floats through _Printer.
"""

from __future__ import annotations

import importlib
import io
import pkgutil
from typing import Any

from google.protobuf import descriptor as _descriptor
from google.protobuf import text_format

from tfcluster import protos

_FLOAT = _descriptor.FieldDescriptor.CPPTYPE_FLOAT


class _Printer(text_format._Printer):  # type: ignore[misc]
    """text_format's printer, a float field written as TF's protobuf writes it."""

    def PrintFieldValue(self, field: Any, value: Any) -> None:
        if field.cpp_type == _FLOAT:
            self.out.write(repr(float(value)))
        else:
            super().PrintFieldValue(field, value)


def _print(message: Any, out: Any, indent: int, as_one_line: bool, full_maps: bool) -> None:
    formatter = _map_entry if full_maps else None
    printer = _Printer(out, indent, as_one_line=as_one_line, message_formatter=formatter)
    printer.PrintMessage(message)


def _map_entry(message: Any, indent: int, as_one_line: bool) -> str | None:
    """A map entry's key and value, both written even when they hold their defaults."""
    descriptor = message.DESCRIPTOR
    if not descriptor.GetOptions().map_entry:
        return None
    out = io.StringIO()
    printer = _Printer(out, indent, as_one_line=as_one_line, message_formatter=_map_entry)
    for name in ("key", "value"):
        printer.PrintField(descriptor.fields_by_name[name], getattr(message, name))
    # The printer writes the first line's indent and the separator after the result itself.
    return out.getvalue()[indent:].rstrip("\n ")


def message_to_string(message: Any, *, full_maps: bool = False, as_one_line: bool = False) -> str:
    """The text of `message` as TF 1.15 writes it: full_maps=False is TF's text files
    (`text_format.MessageToString(message, float_format='')`), True is its str()."""
    out = text_format.TextWriter(as_utf8=False)
    _print(message, out, 0, as_one_line, full_maps)
    text: str = out.getvalue()
    out.close()
    return text.rstrip() if as_one_line else text


def _as_text(message: Any) -> str:
    return message_to_string(message, full_maps=True)


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


# Message modules outside tfcluster.protos that tfcluster exposes (none now: tf.Summary and
# tf.Event are tfcluster.protos' summary_pb2 and event_pb2).
_SHARED_MODULES: tuple[str, ...] = ()


def install() -> None:
    """Gives every message class of tfcluster.protos, and the summary and event messages
    tfcluster exposes, TF's str() and repr()."""
    names = [
        f"tfcluster.protos.{info.name}"
        for info in pkgutil.iter_modules(protos.__path__)
        if info.name.endswith("_pb2")
    ]
    for name in [*names, *_SHARED_MODULES]:
        module = importlib.import_module(name)
        for cls in _message_classes(module):
            cls.__str__ = _as_text  # type: ignore[method-assign,assignment]
            cls.__repr__ = _as_text  # type: ignore[method-assign,assignment]
