"""TF's `nest` as the RNN library uses it: nested tuples/lists (namedtuples such as
LSTMStateTuple included) and dicts, flattened in TF's order (dict keys sorted)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# The tf.nest functions are TF 1.15's (ops/nest.py); this module adds the *_up_to helpers.
from tfcluster.ops.nest import (
    assert_same_structure,
    flatten,
    is_sequence,
    map_structure,
    pack_sequence_as,
)


def flatten_up_to(shallow: Any, structure: Any) -> list[Any]:
    """The items of `structure` at the leaves of `shallow` (deeper parts stay whole)."""
    if not is_sequence(shallow):
        return [structure]
    if not is_sequence(structure):
        raise TypeError(
            "If shallow structure is a sequence, input must also be a sequence. Input has type: "
            f"{type(structure)}."
        )
    if len(shallow) != len(structure):
        raise ValueError(
            "The two structures don't have the same sequence length. Input structure has length "
            f"{len(structure)}, while shallow structure has length {len(shallow)}."
        )
    if isinstance(shallow, dict):
        return [x for k in sorted(shallow) for x in flatten_up_to(shallow[k], structure[k])]
    return [x for s, v in zip(shallow, structure) for x in flatten_up_to(s, v)]


def map_structure_up_to(shallow: Any, fn: Callable[..., Any], *structures: Any) -> Any:
    flats = [flatten_up_to(shallow, s) for s in structures]
    return pack_sequence_as(shallow, [fn(*xs) for xs in zip(*flats)])


def get_traverse_shallow_structure(traverse_fn: Callable[[Any], Any], structure: Any) -> Any:
    """TF's nest.get_traverse_shallow_structure: per level, `traverse_fn` says whether to go
    deeper (True), stop here (False), or gives a shallow structure of booleans."""
    to_traverse = traverse_fn(structure)
    if not is_sequence(structure):
        if not isinstance(to_traverse, bool):
            raise TypeError(
                f"traverse_fn returned structure: {to_traverse} for non-structure: {structure}"
            )
        return to_traverse
    level: list[Any] = []
    if isinstance(to_traverse, bool):
        if not to_traverse:
            return False
        for branch in _items(structure):
            level.append(get_traverse_shallow_structure(traverse_fn, branch))
    elif not is_sequence(to_traverse):
        raise TypeError(
            f"traverse_fn returned a non-bool scalar: {to_traverse} for input: {structure}"
        )
    else:
        assert_shallow_structure(to_traverse, structure)
        for t, branch in zip(_items(to_traverse), _items(structure)):
            if not isinstance(t, bool):
                raise TypeError(
                    "traverse_fn didn't return a depth=1 structure of bools. saw: "
                    f"{to_traverse}  for structure: {structure}"
                )
            level.append(get_traverse_shallow_structure(traverse_fn, branch) if t else False)
    return _rebuild(structure, level)


def assert_shallow_structure(shallow: Any, structure: Any) -> None:
    flatten_up_to(shallow, structure)


def _items(structure: Any) -> list[Any]:
    if isinstance(structure, dict):
        return [structure[k] for k in sorted(structure)]
    return list(structure)


def _rebuild(structure: Any, items: list[Any]) -> Any:
    if isinstance(structure, dict):
        return dict(zip(sorted(structure), items))
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*items)
    return type(structure)(items)


__all__ = [
    "assert_same_structure",
    "flatten",
    "flatten_up_to",
    "get_traverse_shallow_structure",
    "is_sequence",
    "map_structure",
    "map_structure_up_to",
    "pack_sequence_as",
]
