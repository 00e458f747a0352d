"""tf.identity_n: one IdentityN op passing several tensors on unchanged (what
tf.custom_gradient routes its outputs through, to give them a gradient of its own)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.ops.op_util import Outputs, make_op


def _identity_n_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(t.dtype.base_dtype, t.shape) for t in inputs]


op_def_registry.register("IdentityN", _identity_n_infer)


def identity_n(input: Any, name: str | None = None) -> list[Tensor]:
    """The tensors of `input` (a list), each passed on unchanged by one IdentityN op."""
    if not isinstance(input, (list, tuple)):
        raise TypeError(f"Expected list for 'input' argument to 'IdentityN' Op, not {input!r}.")
    with name_scope(name, "IdentityN", list(input)) as scope:
        tensors = [convert_to_tensor(t) for t in input]
        attrs = {"T": [t.dtype.base_dtype for t in tensors]}
        return list(make_op("IdentityN", tensors, attrs, name=scope).outputs)
