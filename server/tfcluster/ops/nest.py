"""TF 1.15's `tf.nest`: nested lists, tuples, namedtuples and mappings (keys sorted when
flattened), with TF's error classes and messages; SparseTensors and RaggedTensors are leaves
unless `expand_composites`, then their component tensors (a SparseTensor's three, a
RaggedTensor's flat values and row splits, outermost first)."""

from __future__ import annotations

import collections.abc
import functools
from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.ops.ragged_tensor import RaggedTensor
from tfcluster.runtime import cpp_log


def is_nested(seq: Any) -> bool:
    """Lists, tuples, mappings and mapping views; strings and sets are leaves (as in TF, whose
    first look at a set warns, once per process, that sets are not sequences)."""
    if isinstance(seq, (collections.abc.Mapping, collections.abc.MappingView)):
        return True
    if isinstance(seq, (str, bytes, bytearray)):
        return False
    if isinstance(seq, collections.abc.Set):
        warn_sets_are_not_sequences()
        return False
    return isinstance(seq, collections.abc.Sequence)


@functools.cache
def warn_sets_are_not_sequences() -> None:
    """TF's util.cc warning, the first time its nest meets a set."""
    cpp_log.warning(
        "tensorflow/python/util/util.cc:299",
        "Sets are not currently considered sequences, but this may change in the future, so "
        "consider avoiding using them.\n",
    )


is_sequence = is_nested


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _sorted_keys(mapping: Any) -> list[Any]:
    try:
        return sorted(mapping)
    except TypeError as e:
        raise TypeError("nest only supports dicts with sortable keys.") from e


def _children(x: Any, expand_composites: bool) -> list[Any]:
    if expand_composites and isinstance(x, SparseTensor):
        return [x.indices, x.values, x.dense_shape]
    if expand_composites and isinstance(x, RaggedTensor):
        return [x.flat_values, *x.nested_row_splits]
    if isinstance(x, collections.abc.Mapping):
        return [x[k] for k in _sorted_keys(x)]
    return list(x)


def _is_structure(x: Any, expand_composites: bool) -> bool:
    return is_nested(x) or (expand_composites and isinstance(x, (SparseTensor, RaggedTensor)))


def flatten(structure: Any, expand_composites: bool = False) -> list[Any]:
    if not _is_structure(structure, expand_composites):
        return [structure]
    return [
        leaf
        for child in _children(structure, expand_composites)
        for leaf in flatten(child, expand_composites)
    ]


def _sequence_like(instance: Any, args: list[Any]) -> Any:
    """A structure of instance's kind holding args (given in flatten order)."""
    if isinstance(instance, SparseTensor):
        return SparseTensor(*args)
    if isinstance(instance, RaggedTensor):
        return RaggedTensor.from_nested_row_splits(args[0], args[1:], validate=False)
    if isinstance(instance, collections.abc.Mapping):
        by_key = dict(zip(_sorted_keys(instance), args))
        kind: Any = type(instance)
        if isinstance(instance, collections.defaultdict):
            out: collections.defaultdict[Any, Any] = collections.defaultdict(
                instance.default_factory
            )
            for key in instance:
                out[key] = by_key[key]
            return out
        return kind((key, by_key[key]) for key in instance)
    if _is_namedtuple(instance):
        return type(instance)(*args)
    if isinstance(instance, collections.abc.MappingView):
        return list(args)
    return type(instance)(args)


def _pack(structure: Any, flat: Sequence[Any], index: int, expand: bool) -> tuple[int, Any]:
    packed = []
    for child in _children(structure, expand):
        if _is_structure(child, expand):
            index, sub = _pack(child, flat, index, expand)
            packed.append(_sequence_like(child, sub))
        else:
            packed.append(flat[index])
            index += 1
    return index, packed


def pack_sequence_as(
    structure: Any, flat_sequence: Sequence[Any], expand_composites: bool = False
) -> Any:
    if not is_nested(flat_sequence):
        raise TypeError("flat_sequence must be a sequence")
    flat = list(flat_sequence)
    if not _is_structure(structure, expand_composites):
        if len(flat) != 1:
            raise ValueError(f"Structure is a scalar but len(flat_sequence) == {len(flat)} > 1")
        return flat[0]
    want = len(flatten(structure, expand_composites))
    if want != len(flat):
        raise ValueError(
            f"Could not pack sequence. Structure had {want} elements, but flat_sequence had "
            f"{len(flat)} elements.  Structure: {structure}, flat_sequence: {flat_sequence}."
        )
    _, packed = _pack(structure, flat, 0, expand_composites)
    return _sequence_like(structure, packed)


def _describe(x: Any) -> str:
    return f"type={type(x).__name__} str={x}"


def _difference(a: Any, b: Any, check_types: bool, expand: bool) -> tuple[type, str] | None:
    """The first way a differs from b (error class and TF's message), or None."""
    seq_a, seq_b = _is_structure(a, expand), _is_structure(b, expand)
    if seq_a != seq_b:
        seq, other = (a, b) if seq_a else (b, a)
        return ValueError, (
            f'Substructure "{_describe(seq)}" is a sequence, while substructure '
            f'"{_describe(other)}" is not'
        )
    if not seq_a:
        return None
    if check_types:
        if _is_namedtuple(a) and _is_namedtuple(b):
            same = type(a).__name__ == type(b).__name__ and a._fields == b._fields
        else:
            same = (
                type(a) is type(b)
                or (isinstance(a, list) and isinstance(b, list))
                or (
                    isinstance(a, collections.abc.Mapping)
                    and isinstance(b, collections.abc.Mapping)
                )
            )
        if not same:
            return TypeError, (
                "The two namedtuples don't have the same sequence type. First structure "
                f"{_describe(a)} has type {type(a).__name__}, while second structure "
                f"{_describe(b)} has type {type(b).__name__}"
            )
    both_maps = isinstance(a, collections.abc.Mapping) and isinstance(b, collections.abc.Mapping)
    if both_maps and set(a) != set(b):
        return ValueError, (
            "The two dictionaries don't have the same set of keys. First structure has "
            f"keys {_describe(list(a))}, while second structure has keys {_describe(list(b))}"
        )
    children_a, children_b = _children(a, expand), _children(b, expand)
    if len(children_a) != len(children_b):
        return ValueError, (
            "The two structures don't have the same number of elements. First structure: "
            f"{_describe(a)}. Second structure: {_describe(b)}"
        )
    for x, y in zip(children_a, children_b):
        found = _difference(x, y, check_types, expand)
        if found is not None:
            return found
    return None


class _Dot:
    """Stands for a leaf when TF prints a structure's shape in an error."""

    def __repr__(self) -> str:
        return "."


def _outline(structure: Any, expand: bool) -> str:
    dots = [_Dot()] * len(flatten(structure, expand))
    return str(pack_sequence_as(structure, dots, expand))


def assert_same_structure(
    nest1: Any, nest2: Any, check_types: bool = True, expand_composites: bool = False
) -> None:
    found = _difference(nest1, nest2, check_types, expand_composites)
    if found is None:
        return
    error_class, detail = found
    raise error_class(
        "The two structures don't have the same nested structure.\n\n"
        f"First structure: {_describe(nest1)}\n\nSecond structure: {_describe(nest2)}\n\n"
        f"More specifically: {detail}\n"
        f"Entire first structure:\n{_outline(nest1, expand_composites)}\n"
        f"Entire second structure:\n{_outline(nest2, expand_composites)}"
    )


def map_structure(func: Callable[..., Any], *structure: Any, **kwargs: Any) -> Any:
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand_composites = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError(
            "Only valid keyword arguments are `check_types` and `expand_composites`, not: "
            f"`{'`, `'.join(kwargs)}`"
        )
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types, expand_composites)
    flats = [flatten(s, expand_composites) for s in structure]
    return pack_sequence_as(
        structure[0], [func(*leaves) for leaves in zip(*flats)], expand_composites
    )


__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]
