"""Gradients of the TensorArray ops, as TF's: the gradient of an array is another array (made
by TensorArrayGradV3, one per tf.gradients call and forward array) where the gradients of
reads are written (summed when an element is read twice) and from which the gradients of
writes are read; flows order them, as the forward flows order the forward ops. Each function
is registered for the v1 and V2 op types too, as TF 1.15 does (those ops are removed from
graphs of this GraphDef version: building one raises NotImplementedError there as here)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor, control_dependencies
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops.tensor_array_ops import TensorArray

for _op in ("TensorArray", "TensorArrayGrad", "TensorArraySize", "TensorArrayClose"):
    # The v1, V2 and V3 ops alike, as TF 1.15's tensor_array_grad.
    for _suffix in ("", "V2", "V3"):
        not_differentiable(_op + _suffix)
not_differentiable("TensorArrayGradWithShape")


def grad_source(t: Any) -> str:
    """Which tf.gradients call made this gradient tensor: its name up to the last scope
    that starts with 'gradients' (each call has its own gradient arrays)."""
    tokens = t.name.split("/")
    positions = [i for i, x in enumerate(tokens) if x.startswith("gradients")]
    if not positions:
        raise ValueError(
            "Expected op/tensor name to start with gradients (excluding scope), got: "
            f"{t.name}. This means that a tf.gradients op with this op in its dependency path "
            "has a custom name that does not start with 'gradients'. Please make sure all "
            "calls to tf.gradients that have non-empty `name` arguments use names that start "
            "with 'gradients'."
        )
    return "/".join(tokens[: positions[-1] + 1])


def _grad_array(op: Operation, dtype_attr: str, flow: Tensor, source: str) -> TensorArray:
    forward = TensorArray(
        dtype=op._get_attr(dtype_attr),
        handle=op.inputs[0],
        flow=flow,
        colocate_with_first_write_call=False,
    )
    return forward.grad(source=source, flow=flow)


def _grad_array_after(op: Operation, dtype_attr: str, flow: Tensor, source: str) -> TensorArray:
    """The gradient array of a forward write, made once the write has run (its array's size
    must be final then): a control input, not TF 2.x's flow_out/write_barrier Identities,
    which TF 1.15 does not make (op counts and names stay TF 1.15's)."""
    with control_dependencies([op]):
        return _grad_array(op, dtype_attr, flow, source)


@RegisterGradient("TensorArrayRead")
@RegisterGradient("TensorArrayReadV2")
@RegisterGradient("TensorArrayReadV3")
def _read_grad(op: Operation, grad: Tensor) -> list[Any]:
    flow = op.inputs[2]
    g = _grad_array(op, "dtype", flow, grad_source(grad))
    return [None, None, g.write(op.inputs[1], grad).flow]


@RegisterGradient("TensorArrayWrite")
@RegisterGradient("TensorArrayWriteV2")
@RegisterGradient("TensorArrayWriteV3")
def _write_grad(op: Operation, flow: Tensor) -> list[Any]:
    g = _grad_array_after(op, "T", flow, grad_source(flow))
    return [None, None, g.read(op.inputs[1]), flow]


@RegisterGradient("TensorArrayGather")
@RegisterGradient("TensorArrayGatherV2")
@RegisterGradient("TensorArrayGatherV3")
def _gather_grad(op: Operation, grad: Tensor) -> list[Any]:
    flow = op.inputs[2]
    g = _grad_array(op, "dtype", flow, grad_source(grad))
    return [None, None, g.scatter(op.inputs[1], grad).flow]


@RegisterGradient("TensorArrayScatter")
@RegisterGradient("TensorArrayScatterV2")
@RegisterGradient("TensorArrayScatterV3")
def _scatter_grad(op: Operation, flow: Tensor) -> list[Any]:
    g = _grad_array_after(op, "T", flow, grad_source(flow))
    return [None, None, g.gather(op.inputs[1]), flow]


@RegisterGradient("TensorArrayConcat")
@RegisterGradient("TensorArrayConcatV2")
@RegisterGradient("TensorArrayConcatV3")
def _concat_grad(op: Operation, grad: Tensor, unused_lengths_grad: Any) -> list[Any]:
    flow = op.inputs[1]
    g = _grad_array(op, "dtype", flow, grad_source(grad))
    return [None, g.split(grad, lengths=op.outputs[1]).flow]


@RegisterGradient("TensorArraySplit")
@RegisterGradient("TensorArraySplitV2")
@RegisterGradient("TensorArraySplitV3")
def _split_grad(op: Operation, flow: Tensor) -> list[Any]:
    g = _grad_array_after(op, "T", flow, grad_source(flow))
    return [None, g.concat(), None, flow]
