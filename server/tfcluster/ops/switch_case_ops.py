"""tf.switch_case: the branch function picked by an integer index (any index outside
[0, N) runs the last one, the default), as TF 1.15's indexed Case.

TF emits one Case op "<name>/indexed_case" whose outputs each go through an Identity in that
scope. tfcluster builds the same choice from its functional If ops (tf.cond): "index == k"
for k = 0 .. N-2, nested, the outermost named "<name>/indexed_case"; the outputs go through
the same Identity ops, so tensor names and values match TF's, and gradients flow through the
branch taken.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.framework.func_graph import flatten, pack_as
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tfcluster.ops import array_ops, control_flow_ops, math_ops


def switch_case(
    branch_index: Any,
    branch_fns: Any,
    default: Callable[[], Any] | None = None,
    name: str = "switch_case",
) -> Any:
    """branch_fns: a list of callables, or of (int key, callable) pairs, or a dict of them;
    the keys must be 0 .. N-1. `default` (if given) is branch N."""
    actions = _canonical_branches(branch_fns, default, branch_index)
    with name_scope(name, "case", [branch_index]) as outer:
        index = convert_to_tensor(branch_index, name="branch_index")
        result = _chain(index, actions, 0, "indexed_case")
        # Re-enter the op's own scope for its output Identities, as TF names them.
        with name_scope(f"{outer}indexed_case/"):
            flat = [
                leaf if isinstance(leaf, Operation) else array_ops.identity(leaf)
                for leaf in flatten(result)
            ]
        return pack_as(result, flat)


def _chain(index: Tensor, actions: list[Callable[[], Any]], k: int, name: str) -> Any:
    if k == len(actions) - 1:
        return actions[k]()
    return control_flow_ops.cond(
        math_ops.equal(index, k),
        actions[k],
        lambda: _chain(index, actions, k + 1, "cond"),
        strict=True,
        name=name,
    )


def _canonical_branches(
    branch_fns: Any, default: Callable[[], Any] | None, branch_index: Any
) -> list[Callable[[], Any]]:
    """The branch callables in key order, the default last (TF's checks and messages)."""
    if not isinstance(branch_index, Tensor):
        raise TypeError(f"branch_index must a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"branch_index must an integer Tensor, got {branch_index.dtype}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in branch_fns")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("branch_fns must be a list, tuple, or dict")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in pairs):
        pairs = list(enumerate(pairs))
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError("Each entry in branch_fns must be a 2-tuple")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [p[0] for p in pairs]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        found = ",".join(map(str, sorted(keys)))
        raise ValueError(
            f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but "
            f"found {{{found}}}"
        )
    actions = [fn for _, fn in sorted(pairs, key=lambda p: p[0])]
    if default is not None:
        actions.append(default)
    return actions
