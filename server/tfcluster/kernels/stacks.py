"""Kernels of TF1's stacks (ops/stack_ops.py): a stack is a Python object made afresh every
step by StackV2 and handed from op to op as the value of its handle, as TensorArrays are
(kernels/tensor_array.py). The gradient of a v1 while loop pushes each iteration's forward
values and pops them, last first, in the backward loop. Messages follow TF's stack_ops.cc."""

from __future__ import annotations

import itertools
import threading
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.kernels.common import invalid, scalar_int
from tfcluster.kernels.registry import CPU_ONLY, kernel

_counter = itertools.count()
_EMPTY: tuple[Any, ...] = ()


class StackResource:
    """One step's stack of tensors."""

    def __init__(self, name: str, elem_type: dtypes.DType, max_size: int) -> None:
        self.name = name
        self.elem_type = elem_type
        self.np_dtype = np.dtype(elem_type.as_numpy_dtype)
        self.max_size = max_size
        self.values: list[Any] = []
        self.closed = False
        self.lock = threading.Lock()

    def check_open(self) -> None:
        if self.closed:
            raise invalid(f"Stack[{self.name}] has already been closed.")


def _stack(value: Any, node_name: str) -> StackResource:
    if not isinstance(value, StackResource):
        raise invalid(f"{node_name}: the handle input is not a stack (got {type(value).__name__})")
    return value


@kernel("Stack", devices=CPU_ONLY)
@kernel("StackV2", devices=CPU_ONLY)
def stack(node: Any, xp: Any) -> Any:
    elem_type = dtypes.as_dtype(node.attrs["elem_type"]).base_dtype
    base = node.attrs.get("stack_name") or node.name
    # The first Stack op has no max_size input: its stacks are unbounded.
    sized = node.op == "StackV2"

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        max_size = scalar_int(ins[0], "max_size") if sized else -1
        return (StackResource(f"{base}_{next(_counter)}", elem_type, max_size),)

    return compute


@kernel("StackPush", devices=CPU_ONLY)
@kernel("StackPushV2", devices=CPU_ONLY)
def stack_push(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        st = _stack(ins[0], node.name)
        value = ins[1]
        got = getattr(value, "dtype", None)
        if got is not None and got != st.np_dtype and st.np_dtype.kind != "O":
            name = dtypes.as_dtype(got).name
            raise invalid(f"Must have type {st.elem_type.name} but got {name}")
        with st.lock:
            st.check_open()
            if 0 <= st.max_size <= len(st.values):
                raise invalid(f"Stack[{st.name}] overflowed its max_size ({st.max_size})")
            st.values.append(value)
        return (value,)

    return compute


@kernel("StackPop", devices=CPU_ONLY)
@kernel("StackPopV2", devices=CPU_ONLY)
def stack_pop(node: Any, xp: Any) -> Any:
    elem_type = dtypes.as_dtype(node.attrs["elem_type"]).base_dtype

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        st = _stack(ins[0], node.name)
        if st.elem_type != elem_type:
            raise invalid(f"Must have type {st.elem_type.name} but got {elem_type.name}")
        with st.lock:
            st.check_open()
            if not st.values:
                raise invalid(f"Stack[{st.name}] is empty.")
            return (st.values.pop(),)

    return compute


@kernel("StackClose", devices=CPU_ONLY)
@kernel("StackCloseV2", devices=CPU_ONLY)
def stack_close(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        st = _stack(ins[0], node.name)
        with st.lock:
            st.closed = True
            st.values.clear()
        return _EMPTY

    return compute
