"""TF's checks of a NodeDef against its op's OpDef (ValidateNodeDef and ValidateAttrValue in
tensorflow/core/framework), with its messages: what TF's importer refuses a GraphDef for.

An attr the op lacks (a newer TensorFlow's, say), an attr missing that has no default, a value
of the wrong kind, below its minimum or not allowed, the wrong number of inputs, or an input
whose dtype is not the one the op expects: each a ValueError naming the node and summarizing
the op, as `tf.import_graph_def` raises it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tfcluster.framework.attr_summaries import summarize_attr_value
from tfcluster.protos import attr_value_pb2, node_def_pb2, op_def_pb2, types_pb2

_UP_TO_DATE = (
    ". (Check whether your GraphDef-interpreting binary is up to date with your "
    "GraphDef-generating binary.)."
)
# An AttrValue's set field -> the attr type it holds.
_KINDS = {
    "s": "string",
    "i": "int",
    "f": "float",
    "b": "bool",
    "type": "type",
    "shape": "shape",
    "tensor": "tensor",
    "func": "func",
}
_LIST_FIELDS = ("s", "i", "f", "b", "type", "shape", "tensor", "func")
# Attrs a newer TensorFlow gives TF 1.15's ops (tools/record_newer_tf_attrs.py).
_NEWER_ATTRS = Path(__file__).with_name("newer_tf_attrs.json")


@functools.cache
def _newer_attrs() -> dict[str, dict[str, str]]:
    with _NEWER_ATTRS.open() as f:
        ops: dict[str, dict[str, str]] = json.load(f)["ops"]
    return ops


def newer_tf_attr(op_type: str, attr: str) -> bool:
    """Whether a newer TensorFlow's op has the attr TF 1.15's lacks: GraphDefs it writes carry
    it, and tfcluster reads them (the op computes what TF 1.15's does)."""
    return attr in _newer_attrs().get(op_type, {})


def type_string(enum: int) -> str:
    """TF's DataTypeString: 'float', 'int32', 'float_ref', ..."""
    return str(types_pb2.DataType.Name(enum))[3:].lower()


def summarize_op_def(op_def: op_def_pb2.OpDef) -> str:
    """TF's SummarizeOpDef: `Op<name=MatMul; signature=a:T, b:T -> product:T; attr=...>`."""
    out = [
        f"Op<name={op_def.name}; signature={_summarize_args(op_def.input_arg)} -> "
        f"{_summarize_args(op_def.output_arg)}"
    ]
    for attr in op_def.attr:
        out.append(f"; attr={attr.name}:{attr.type}")
        if attr.HasField("default_value"):
            out.append(f",default={summarize_attr_value(attr.default_value)}")
        if attr.has_minimum:
            out.append(f",min={attr.minimum}")
        if attr.HasField("allowed_values"):
            out.append(f",allowed={summarize_attr_value(attr.allowed_values)}")
    for flag in ("is_commutative", "is_aggregate", "is_stateful", "allows_uninitialized_input"):
        if getattr(op_def, flag):
            out.append(f"; {flag}=true")
    return "".join(out) + ">"


def _summarize_args(args: Any) -> str:
    parts = []
    for arg in args:
        text = f"{arg.name}:"
        if arg.is_ref:
            text += "Ref("
        if arg.number_attr:
            text += f"{arg.number_attr}*"
        text += type_string(arg.type) if arg.type else arg.type_attr
        if arg.is_ref:
            text += ")"
        parts.append(text)
    return ", ".join(parts)


def with_defaults(node: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef) -> dict[str, Any]:
    """The NodeDef's attrs with the OpDef's defaults for those it leaves out (as TF's importer
    adds them before its checks)."""
    attrs: dict[str, Any] = dict(node.attr)
    for attr in op_def.attr:
        if attr.name not in attrs and attr.HasField("default_value"):
            attrs[attr.name] = attr.default_value
    return attrs


def node_for_error(name: str) -> str:
    """TF's FormatNodeDefForError."""
    return "{{node " + name + "}}"


def check_node_def(node: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef, name: str) -> None:
    """TF's ValidateNodeDef of `node` (called `name` in the graph it goes into): a ValueError
    with TF's message for the first thing that does not fit."""
    where = f"; NodeDef: {node_for_error(name)}"
    summary = summarize_op_def(op_def)
    declared = {a.name: a for a in op_def.attr}
    for key, value in node.attr.items():
        if key.startswith("_"):
            continue  # internal attrs, allowed on any op
        attr = declared.get(key)
        if attr is None:
            if newer_tf_attr(node.op, key):
                continue
            raise ValueError(f"NodeDef mentions attr '{key}' not in {summary}{where}{_UP_TO_DATE}")
        if not value.placeholder:
            problem = attr_value_problem(value, attr)
            if problem is not None:
                raise ValueError(f"{problem}\n\t{where}; {summary}")
    attrs = with_defaults(node, op_def)
    missing = [a.name for a in op_def.attr if a.name not in attrs]
    if missing:
        which = "s '" if len(missing) > 1 else " '"
        names = "', '".join(missing)
        raise ValueError(f"NodeDef missing attr{which}{names}' from {summary}{where}")
    expected = input_types(op_def, attrs)
    given = sum(1 for raw in node.input if not raw.startswith("^"))
    if given != len(expected):
        listed = ", ".join(type_string(t) for t in expected)
        raise ValueError(
            f"NodeDef expected inputs '{listed}' do not match {given} inputs specified; "
            f"{summary}{where}"
        )


def attr_value_problem(value: attr_value_pb2.AttrValue, attr: Any) -> str | None:
    """TF's ValidateAttrValue: why `value` does not fit the AttrDef, or None."""
    kind = value_kind(value)
    if kind is None:
        return (
            f"AttrValue missing value with expected type '{attr.type}'\n\t for attr '{attr.name}'"
        )
    if kind != attr.type and not (kind == "list" and attr.type.startswith("list(")):
        return (
            f"AttrValue had value with type '{kind}' when '{attr.type}' expected\n\t"
            f" for attr '{attr.name}'"
        )
    if attr.has_minimum:
        if attr.type == "int":
            if value.i < attr.minimum:
                return (
                    f"Value for attr '{attr.name}' of {value.i} must be at least minimum "
                    f"{attr.minimum}"
                )
        else:
            length = max(len(getattr(value.list, f)) for f in _LIST_FIELDS)
            if length < attr.minimum:
                return (
                    f"Length for attr '{attr.name}' of {length} must be at least minimum "
                    f"{attr.minimum}"
                )
    if attr.HasField("allowed_values"):
        allowed = attr.allowed_values.list
        if attr.type in ("type", "list(type)"):
            for dt in [value.type] if attr.type == "type" else list(value.list.type):
                if dt not in allowed.type:
                    names = ", ".join(type_string(t) for t in allowed.type)
                    return (
                        f"Value for attr '{attr.name}' of {type_string(dt)} is not in the list "
                        f"of allowed values: {names}"
                    )
        elif attr.type in ("string", "list(string)"):
            for s in [value.s] if attr.type == "string" else list(value.list.s):
                if s not in allowed.s:
                    names = ", ".join(f'"{a.decode(errors="replace")}"' for a in allowed.s)
                    return (
                        f"Value for attr '{attr.name}' of \"{s.decode(errors='replace')}\" is "
                        f"not in the list of allowed values: {names}"
                    )
    return None


def value_kind(value: attr_value_pb2.AttrValue) -> str | None:
    """The attr type an AttrValue holds ('int', 'list(int)', 'list' for an empty list), or
    None when it holds nothing."""
    field = value.WhichOneof("value")
    if field is None:
        return None
    if field == "list":
        for f in _LIST_FIELDS:
            if len(getattr(value.list, f)):
                return f"list({_KINDS[f]})"
        return "list"
    if field == "placeholder":
        return "placeholder"
    return _KINDS.get(field, field)


def input_types(op_def: op_def_pb2.OpDef, attrs: Mapping[str, Any]) -> list[int]:
    """The DataType enums of the op's inputs for the node's attrs (refs as *_REF), the
    number and types of list args expanded; TF's InOutTypesForNode."""
    out: list[int] = []
    for arg in op_def.input_arg:
        if arg.type_list_attr:
            types = list(attrs[arg.type_list_attr].list.type)
        else:
            one = arg.type if arg.type else attrs[arg.type_attr].type
            count = attrs[arg.number_attr].i if arg.number_attr else 1
            types = [one] * count
        out.extend(t + 100 if arg.is_ref else t for t in types)
    return out


def input_dtype_problem(
    expected: int, given: Any, index: int, node_name: str, source: str
) -> str | None:
    """TF's message for input `index` of the node, from tensor `source` of DType `given`, when
    its base dtype is not the one the op expects."""
    want = expected - 100 if expected > 100 else expected
    if given.base_dtype.as_datatype_enum == want:
        return None
    return (
        f"Input {index} of node {node_name} was passed {type_string(given.as_datatype_enum)} "
        f"from {source} incompatible with expected {type_string(expected)}."
    )
