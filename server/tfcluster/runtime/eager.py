"""Eager execution inside tf.py_function: ops run as soon as they are made.

The function of a tf.py_function gets EagerTensors (values with `.numpy()`), and TF ops it
calls on them run at once on the CPU: they are made in an EagerGraph, whose create_op also
runs the op's kernel and gives its outputs their values. That graph is also the tape: the
gradient of the py_function differentiates it (tf.gradients on it runs eagerly too).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.framework.graph import Graph, Operation, Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.runtime import device_copy, kernel_table
from tfcluster.runtime.graph_ir import node_from_operation
from tfcluster.runtime.rendezvous import Rendezvous
from tfcluster.runtime.resources import ResourceMgr, VariableRef
from tfcluster.runtime.step_context import StepContext

_steps = itertools.count(1 << 40)


class EagerTensor(Tensor):
    """A tensor with its value: `.numpy()`, numpy conversion, Python scalars."""

    def __init__(self, op: Operation, value_index: int, dtype: dtypes.DType, value: Any) -> None:
        super().__init__(op, value_index, dtype, TensorShape(np.shape(value)))
        self._value = value

    def numpy(self) -> Any:
        value = self._value
        if isinstance(value, VariableRef):
            value = value.read(self.op.name)
        return device_copy.to_host(value)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        arr = np.asarray(self.numpy())
        return arr if dtype is None else arr.astype(dtype)

    def __bool__(self) -> bool:
        return bool(self.numpy())

    def __float__(self) -> float:
        return float(self.numpy())

    def __int__(self) -> int:
        return int(self.numpy())

    def __index__(self) -> int:
        return int(self.numpy())

    def __len__(self) -> int:
        shape = np.shape(self.numpy())
        if not shape:
            raise TypeError("Scalar tensor has no `len()`")
        return int(shape[0])

    def __iter__(self) -> Iterator[Any]:
        value = np.asarray(self.numpy())
        if not value.shape:
            raise TypeError("Cannot iterate over a scalar tensor.")
        graph = self.graph
        assert isinstance(graph, EagerGraph)
        return iter([graph.constant(row, self.dtype) for row in value])

    def __repr__(self) -> str:
        return (
            f"<tf.Tensor: id={id(self)}, shape={self.shape}, dtype={self.dtype.name}, "
            f"numpy={self.numpy()!r}>"
        )

    def __str__(self) -> str:
        return f"tf.Tensor({self.numpy()}, shape={self.shape}, dtype={self.dtype.name})"


class EagerGraph(Graph):
    """A graph whose ops run when they are made (on the CPU of this process)."""

    def __init__(self) -> None:
        super().__init__()
        self._ctx = StepContext(next(_steps), ResourceMgr(), Rendezvous())

    def create_op(
        self,
        op_type: str,
        inputs: Sequence[Tensor],
        attrs: dict[str, Any] | None = None,
        name: str | None = None,
        control_inputs: Sequence[Operation] = (),
    ) -> Operation:
        op = super().create_op(op_type, inputs, attrs, name, control_inputs)
        values = [_value_of(t) for t in op.inputs]
        kdef = kernel_table.lookup(op.type, "CPU")
        if kdef.is_async:
            raise errors.UnimplementedError(
                None, None, f"{op.type} cannot run eagerly inside a tf.py_function"
            )
        node = node_from_operation(op)
        node.device = ""
        outs = kdef.factory(node)(self._ctx, values)
        op._outputs = [
            EagerTensor(op, i, t.dtype, v) for i, (t, v) in enumerate(zip(op.outputs, outs))
        ]
        return op

    def constant(self, value: Any, dtype: dtypes.DType) -> EagerTensor:
        """A Const of this graph holding `value` (a numpy array of `dtype`)."""
        arr = np.asarray(value, dtype=dtype.as_numpy_dtype)
        if dtype.base_dtype == dtypes.string:
            flat = arr.reshape(-1)
            for i, v in enumerate(flat):
                if isinstance(v, str):
                    flat[i] = v.encode()
        op = self.create_op("Const", [], {"value": arr, "dtype": dtype.base_dtype}, name="Const")
        t = op.outputs[0]
        assert isinstance(t, EagerTensor)
        return t


def _value_of(t: Tensor) -> Any:
    if not isinstance(t, EagerTensor):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"{t.name} is a graph tensor: inside a tf.py_function only eager values can be used",
        )
    value = t._value
    if isinstance(value, VariableRef):
        return value.read(t.op.name)
    return value


__all__ = ["EagerGraph", "EagerTensor"]
