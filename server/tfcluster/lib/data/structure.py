"""The structure of a dataset's elements: nesting, and what each leaf is.

tf.data nests as TF does: tuples (namedtuples included) and dicts (by sorted key) are
structure; a list is a value (it becomes one tensor). Each leaf of an element is a dense
tensor, a SparseTensor or a dataset (window's elements); a `Spec` says which, with its dtype
and static shape. In the graph a dense leaf is one tensor; a sparse leaf is one variant
tensor, as in TF (SerializeSparse or SerializeManySparse with out_type=tf.variant going in,
DeserializeSparse coming out), so that TF reads the graphs tfcluster writes and the other way
round; a dataset leaf is one variant tensor. Dataset ops carry their leaves' dtypes and
shapes as `output_types` / `output_shapes` (a sparse leaf: variant, unknown shape).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tfcluster.framework.tensor_shape import TensorShape, as_shape

DENSE, SPARSE, DATASET = "dense", "sparse", "dataset"


@dataclass(frozen=True, eq=False)
class Spec:
    """One leaf: its kind, dtype and static shape (a dataset leaf: its element structure)."""

    kind: str
    dtype: dtypes.DType
    shape: TensorShape
    element: Any = None  # DATASET: the nested element structure (of Specs)

    def _key(self) -> tuple[Any, ...]:
        dims = None if self.shape.ndims is None else tuple(self.shape.as_list())
        return (self.kind, self.dtype, dims)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Spec) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Spec({self.kind}, {self.dtype.name}, {self.shape})"


def dense(dtype: Any, shape: Any = None) -> Spec:
    return Spec(DENSE, dtypes.as_dtype(dtype).base_dtype, as_shape(shape))


def sparse(dtype: Any, shape: Any = None) -> Spec:
    return Spec(SPARSE, dtypes.as_dtype(dtype).base_dtype, as_shape(shape))


def dataset_leaf(element: Any) -> Spec:
    return Spec(DATASET, dtypes.variant, TensorShape([]), element)


# ---- nesting ---------------------------------------------------------------------------------
def is_nested(x: Any) -> bool:
    return isinstance(x, (tuple, dict))


def flatten(structure: Any) -> list[Any]:
    if isinstance(structure, dict):
        return [x for k in _sorted_keys(structure) for x in flatten(structure[k])]
    if isinstance(structure, tuple):
        return [x for item in structure for x in flatten(item)]
    return [structure]


def _sorted_keys(d: dict[Any, Any]) -> list[Any]:
    try:
        return sorted(d)
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys.") from None


def pack_as(structure: Any, flat: Sequence[Any]) -> Any:
    """`flat` in the nesting of `structure` (its leaves replaced in order)."""
    flat = list(flat)
    n = len(flatten(structure))
    if n != len(flat):
        raise ValueError(
            f"Could not pack sequence. Structure had {n} elements, but flat_sequence had "
            f"{len(flat)} elements."
        )
    it = iter(flat)

    def build(s: Any) -> Any:
        if isinstance(s, dict):
            # Filled in sorted key order (the flat order), given back in the structure's own
            # key order, as TF's nest.pack_sequence_as does.
            built = {k: build(s[k]) for k in _sorted_keys(s)}
            return type(s)((k, built[k]) for k in s)
        if isinstance(s, tuple):
            items = [build(x) for x in s]
            return type(s)(*items) if hasattr(s, "_fields") else tuple(items)
        return next(it)

    return build(structure)


def map_structure(fn: Callable[..., Any], structure: Any, *more: Any) -> Any:
    for other in more:
        assert_same_structure(structure, other)
    flats = [flatten(structure), *[flatten(m) for m in more]]
    return pack_as(structure, [fn(*xs) for xs in zip(*flats)])


def same_structure(a: Any, b: Any) -> bool:
    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict)) or sorted(a) != sorted(b):
            return False
        return all(same_structure(a[k], b[k]) for k in a)
    if isinstance(a, tuple) or isinstance(b, tuple):
        if not (isinstance(a, tuple) and isinstance(b, tuple)) or len(a) != len(b):
            return False
        return all(same_structure(x, y) for x, y in zip(a, b))
    return True


def assert_same_structure(a: Any, b: Any) -> None:
    if not same_structure(a, b):
        raise TypeError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {a!r}\n\nSecond structure: {b!r}"
        )


# ---- values -> tensors -----------------------------------------------------------------------
def normalize_element(element: Any) -> Any:
    """Every leaf as a Tensor, SparseTensor or Dataset (lists become tensors, as in TF), the
    new tensors named normalize_element/component_<i> as TF names them."""
    with name_scope("normalize_element"):
        if isinstance(element, list):
            element = _list_value(element)
        leaves = flatten(element)
        out: list[Any] = []
        for i, leaf in enumerate(leaves):
            if isinstance(leaf, SparseTensorValue):
                out.append(SparseTensor.from_value(leaf))
            elif isinstance(leaf, SparseTensor) or _is_dataset(leaf):
                out.append(leaf)
            else:
                out.append(convert_to_tensor(leaf, name=f"component_{i}"))
        return pack_as(element, out)


def _list_value(value: list[Any]) -> Any:
    """A list whose items are tensors is packed into one tensor (tf.stack), as TF does."""
    if any(isinstance(v, Tensor) for v in flatten_lists(value)):
        from tfcluster.ops import array_ops

        return array_ops.stack(value)
    return value


def flatten_lists(value: Any) -> list[Any]:
    if isinstance(value, list):
        return [x for v in value for x in flatten_lists(v)]
    return [value]


def _is_dataset(x: Any) -> bool:
    return hasattr(x, "_variant_tensor") and hasattr(x, "_structure")


def spec_of(value: Any) -> Spec:
    """The Spec of a Tensor, SparseTensor or Dataset."""
    if isinstance(value, SparseTensor):
        return sparse(value.dtype, value.shape)
    if _is_dataset(value):
        return dataset_leaf(value._structure)
    if isinstance(value, Tensor):
        return dense(value.dtype, value.shape)
    raise TypeError(f"Unsupported dataset element component: {value!r}")


def structure_of(element: Any) -> Any:
    return map_structure(spec_of, element)


def _boxed(leaf: SparseTensor, many: bool) -> Tensor:
    from tfcluster.ops import sparse_serialization_ops as sso

    if many:
        return sso.serialize_many_sparse(leaf, out_type=dtypes.variant)
    return sso.serialize_sparse(leaf, out_type=dtypes.variant)


def to_tensor_list(element: Any) -> list[Tensor]:
    """The graph tensors of a normalized element (a sparse leaf boxed as one variant)."""
    return _tensor_list(element, many=False)


def to_batched_tensor_list(element: Any) -> list[Tensor]:
    """As to_tensor_list, a sparse leaf boxed row by row along its first dimension
    (SerializeManySparse: [N, 3]), for ops that slice elements (from_tensor_slices, unbatch)."""
    return _tensor_list(element, many=True)


def _tensor_list(element: Any, many: bool) -> list[Tensor]:
    out: list[Tensor] = []
    for leaf in flatten(element):
        if isinstance(leaf, SparseTensor):
            out.append(_boxed(leaf, many))
        elif _is_dataset(leaf):
            out.append(leaf._variant_tensor)
        else:
            out.append(leaf)
    return out


def from_tensor_list(structure: Any, tensors: Sequence[Tensor]) -> Any:
    """The element whose graph tensors are `tensors` (the inverse of to_tensor_list)."""
    from tfcluster.lib.data.dataset import VariantDataset
    from tfcluster.ops import sparse_serialization_ops as sso

    leaves: list[Any] = []
    for spec, t in zip(flatten(structure), tensors, strict=True):
        if spec.kind == SPARSE:
            leaves.append(sso.deserialize_sparse(t, spec.dtype, spec.shape.ndims))
        elif spec.kind == DATASET:
            leaves.append(VariantDataset(t, spec.element))
        else:
            leaves.append(t)
    return pack_as(structure, leaves)


def tensor_list_specs(structure: Any) -> list[tuple[dtypes.DType, TensorShape]]:
    """(dtype, shape) of each graph tensor of an element of `structure`."""
    return [_tensor_spec(spec) for spec in flatten(structure)]


def _tensor_spec(spec: Spec) -> tuple[dtypes.DType, TensorShape]:
    if spec.kind == SPARSE:
        return dtypes.variant, TensorShape(None)
    return spec.dtype, spec.shape


# ---- op attrs ------------------------------------------------------------------------------
def op_attrs(structure: Any) -> dict[str, Any]:
    """output_types / output_shapes: one per leaf, as TF writes them."""
    specs = tensor_list_specs(structure)
    return {"output_types": [dt for dt, _ in specs], "output_shapes": [s for _, s in specs]}


# ---- legacy views: output_types / output_shapes / output_classes -----------------------------
def output_types(structure: Any) -> Any:
    return map_structure(lambda s: s.dtype if s.kind != DATASET else s, structure)


def output_shapes(structure: Any) -> Any:
    return map_structure(lambda s: s.shape if s.kind != DATASET else s, structure)


def output_classes(structure: Any) -> Any:
    def cls(s: Spec) -> Any:
        if s.kind == SPARSE:
            return SparseTensor
        if s.kind == DATASET:
            from tfcluster.lib.data.dataset import Dataset

            return Dataset
        return Tensor

    return map_structure(cls, structure)


def from_legacy(types: Any, shapes: Any, classes: Any) -> Any:
    """The structure that output_types/shapes/classes describe (Iterator.from_structure)."""

    def leaf(dtype: Any, shape: Any, cls: Any) -> Spec:
        if isinstance(dtype, Spec):
            return dtype
        if cls is SparseTensor or cls is SparseTensorValue:
            return sparse(dtype, shape)
        if cls is not Tensor and not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(
                f"Unsupported output class {cls!r} (expected tf.Tensor or SparseTensor)"
            )
        return dense(dtype, shape)

    flat_types = flatten(types)
    flat_shapes = flatten_up_to(types, shapes)
    flat_classes = flatten_up_to(types, classes)
    return pack_as(types, [leaf(*x) for x in zip(flat_types, flat_shapes, flat_classes)])


def flatten_up_to(shallow: Any, deep: Any) -> list[Any]:
    """`deep` flattened to the leaves of `shallow` (shapes given as lists stay whole)."""
    if isinstance(shallow, dict):
        if not isinstance(deep, dict) or sorted(deep) != sorted(shallow):
            raise ValueError(f"The structures {shallow!r} and {deep!r} do not match")
        return [x for k in _sorted_keys(shallow) for x in flatten_up_to(shallow[k], deep[k])]
    if isinstance(shallow, tuple):
        if not isinstance(deep, (tuple, list)) or len(deep) != len(shallow):
            raise ValueError(f"The structures {shallow!r} and {deep!r} do not match")
        return [x for s, d in zip(shallow, deep) for x in flatten_up_to(s, d)]
    return [deep]


# ---- shapes ----------------------------------------------------------------------------------
def most_specific_compatible(a: TensorShape, b: TensorShape) -> TensorShape:
    """The most specific shape both fit (differing dims unknown)."""
    if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])


def batched(structure: Any, batch: int | None) -> Any:
    def one(s: Spec) -> Spec:
        if s.kind == DATASET:
            raise TypeError("Batching datasets of datasets is not supported")
        return Spec(s.kind, s.dtype, TensorShape([batch]).concatenate(s.shape))

    return map_structure(one, structure)


def unbatched(structure: Any) -> Any:
    def one(s: Spec) -> Spec:
        if s.shape.ndims == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        rest = TensorShape(None) if s.shape.ndims is None else TensorShape(s.shape.as_list()[1:])
        return Spec(s.kind, s.dtype, rest)

    return map_structure(one, structure)


__all__ = [
    "DATASET",
    "DENSE",
    "SPARSE",
    "Spec",
    "assert_same_structure",
    "batched",
    "dense",
    "flatten",
    "from_legacy",
    "from_tensor_list",
    "map_structure",
    "normalize_element",
    "op_attrs",
    "output_classes",
    "output_shapes",
    "output_types",
    "pack_as",
    "sparse",
    "spec_of",
    "structure_of",
    "to_tensor_list",
    "unbatched",
]
