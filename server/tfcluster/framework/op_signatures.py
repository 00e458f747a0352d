"""TensorFlow 1.15's op signatures (its OpDefs): input and output args, attrs with their types,
defaults and allowed values, and the keyword parameters of each `tf.raw_ops` function.

Recorded once from TF 1.15's own op registry by tools/record_tf115_op_defs.py into
tf115_op_defs.json. tfcluster's op table (op_def_registry) holds how an op infers its outputs;
this holds what TF calls its inputs and attrs, which tf.raw_ops and imported GraphDefs use.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_DATA = Path(__file__).with_name("tf115_op_defs.json")


@dataclass(frozen=True)
class ArgSig:
    """One input or output arg: its dtype is fixed (`type`) or an attr's (`type_attr`); a list
    of `number_attr` tensors of one type, or of the types in `type_list_attr`."""

    name: str
    type: str | None = None
    type_attr: str | None = None
    number_attr: str | None = None
    type_list_attr: str | None = None
    is_ref: bool = False

    @property
    def is_list(self) -> bool:
        return self.number_attr is not None or self.type_list_attr is not None


@dataclass(frozen=True)
class AttrSig:
    name: str
    type: str  # "int", "list(type)", "shape", ... as in TF's OpDef
    has_default: bool = False
    default: Any = None  # plain JSON: dtype names, shapes as lists (None: unknown rank)
    allowed: tuple[Any, ...] | None = None
    minimum: int | None = None


@dataclass(frozen=True)
class OpSignature:
    name: str
    inputs: tuple[ArgSig, ...]
    outputs: tuple[ArgSig, ...]
    attrs: tuple[AttrSig, ...]
    # The keyword parameters of TF's raw op function, in its order ("name" aside).
    params: tuple[str, ...]
    stateful: bool = False
    # OpDef flags a MetaGraph's stripped_op_list carries.
    commutative: bool = False
    aggregate: bool = False
    allows_uninitialized_input: bool = False
    # Parameters TF's Python API names apart from the arg or attr they set (Split: axis sets
    # split_dim).
    renames: tuple[tuple[str, str], ...] = ()
    # The GraphDef version from which TF removed the op (0: never), and what to use instead.
    deprecation_version: int = 0
    deprecation_explanation: str = ""
    # TF 1.15's CPU build registers no kernel for the op on any device (TPU and MKL-only ops):
    # a graph holds one, and running it fails in TF's placer.
    no_kernel: bool = False

    def target(self, param: str) -> str:
        """The input arg or attr a keyword parameter sets."""
        for python_name, op_name in self.renames:
            if python_name == param:
                return op_name
        return param

    def attr(self, name: str) -> AttrSig:
        for a in self.attrs:
            if a.name == name:
                return a
        raise KeyError(f"{self.name} has no attr {name!r}")

    def inferred_attrs(self) -> frozenset[str]:
        """Attrs TF sets from the inputs (their types and list lengths): never parameters."""
        out: set[str] = set()
        for arg in self.inputs:
            out.update(a for a in (arg.type_attr, arg.number_attr, arg.type_list_attr) if a)
        return frozenset(out)


def _arg(d: dict[str, Any]) -> ArgSig:
    return ArgSig(
        name=d["name"],
        type=d.get("type"),
        type_attr=d.get("type_attr"),
        number_attr=d.get("number_attr"),
        type_list_attr=d.get("type_list_attr"),
        is_ref=bool(d.get("is_ref", False)),
    )


def _attr(d: dict[str, Any]) -> AttrSig:
    allowed = d.get("allowed")
    return AttrSig(
        name=d["name"],
        type=d["type"],
        has_default="default" in d,
        default=d.get("default"),
        allowed=tuple(allowed) if allowed is not None else None,
        minimum=d.get("minimum"),
    )


@functools.cache
def _document() -> dict[str, Any]:
    with _DATA.open() as f:
        doc: dict[str, Any] = json.load(f)
    return doc


def tf_graph_def_version() -> int:
    """TF 1.15's GraphDef producer version: ops removed at or before it are refused."""
    return int(_document()["graph_def_version"])


@functools.cache
def _table() -> dict[str, OpSignature]:
    ops = _document()["ops"]
    return {
        name: OpSignature(
            name=name,
            inputs=tuple(_arg(a) for a in d["inputs"]),
            outputs=tuple(_arg(a) for a in d["outputs"]),
            attrs=tuple(_attr(a) for a in d["attrs"]),
            params=tuple(d["params"]),
            stateful=bool(d.get("stateful", False)),
            commutative=bool(d.get("commutative", False)),
            aggregate=bool(d.get("aggregate", False)),
            allows_uninitialized_input=bool(d.get("allows_uninitialized_input", False)),
            renames=tuple(sorted(d.get("renames", {}).items())),
            deprecation_version=int(d.get("deprecation", {}).get("version", 0)),
            deprecation_explanation=d.get("deprecation", {}).get("explanation", ""),
            no_kernel=bool(d.get("no_kernel", False)),
        )
        for name, d in ops.items()
    }


def lookup(op_type: str) -> OpSignature | None:
    """TF 1.15's signature of the op type, or None where tf.raw_ops has no such op."""
    return _table().get(op_type)


def tf_has_no_kernel(op_type: str) -> bool:
    """Whether TF 1.15's CPU build registers no kernel for the op type on any device."""
    sig = lookup(op_type)
    return sig is not None and sig.no_kernel


def op_types() -> list[str]:
    """Every op type of TF 1.15's tf.raw_ops, sorted."""
    return sorted(_table())


def attr_value(kind: str, value: Any) -> Any:
    """An attr value stored as plain JSON (a default) in the form tfcluster's graphs hold
    attrs: dtypes as DType, shapes as TensorShape, tensors as arrays."""
    from tfcluster.framework import dtypes  # imported on use: this module loads early
    from tfcluster.framework.tensor_shape import TensorShape

    if kind.startswith("list("):
        return [attr_value(kind[5:-1], v) for v in value]
    if kind == "type":
        return dtypes.as_dtype(value)
    if kind == "shape":
        return TensorShape(value)
    if kind == "tensor":
        import numpy as np

        return np.array(value["values"], dtype=value["dtype"]).reshape(value["shape"])
    if kind == "func":
        from tfcluster.protos import attr_value_pb2

        return attr_value_pb2.NameAttrList(name=value["func"])
    return value


def with_default_attrs(op_type: str, attrs: dict[str, Any]) -> dict[str, Any]:
    """attrs with TF's defaults added for those missing: a GraphDef written with
    strip_default_attrs (SavedModels, estimator exports) leaves them out, and TF's importer
    adds them back."""
    sig = lookup(op_type)
    if sig is None:
        return attrs
    missing = [a for a in sig.attrs if a.has_default and a.name not in attrs]
    if not missing:
        return attrs
    return {**attrs, **{a.name: attr_value(a.type, a.default) for a in missing}}
