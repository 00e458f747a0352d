"""tf.hessians: per x, the first-order gradient flattened, then a while loop whose iteration
j writes d(gradient[j])/dx into a TensorArray (TF 1.15's construction), reshaped to
shape(x) + shape(x).

TF's loop body differentiates the outer graph directly (its TF1 loops live in one graph);
tfcluster's loop bodies are function graphs, so the body first replays the ops between x and
the gradient (taking everything else as captures) and differentiates that replay: the same
values, with the first-order gradient recomputed per iteration.
"""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.func_graph import FuncGraph
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from tfcluster.gradients.gradients_impl import gradients
from tfcluster.ops import array_ops, constant_op, control_flow_ops, tensor_array_ops


def hessians(
    ys: Any,
    xs: Any,
    name: str = "hessians",
    colocate_gradients_with_ops: bool = False,
    gate_gradients: bool = False,
    aggregation_method: Any = None,
) -> list[Tensor]:
    """The Hessian of sum(ys) with respect to each x in xs (TF 1.15 does not use `name`)."""
    xs_l = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    kwargs = {
        "colocate_gradients_with_ops": colocate_gradients_with_ops,
        "gate_gradients": gate_gradients,
        "aggregation_method": aggregation_method,
    }
    out = []
    for gradient, x in zip(gradients(ys, xs_l, **kwargs), xs_l):
        flat = array_ops.reshape(gradient, [-1])
        n = array_ops.size(x)
        x_t = _as_ref_tensor(x)

        def body(j: Tensor, result: Any, flat: Tensor = flat, x_t: Tensor = x_t) -> Any:
            replayed = _replay(flat, x_t)
            row = gradients(replayed[j], x_t, **kwargs)[0]
            return j + 1, result.write(j, row)

        loop_vars = [
            constant_op.constant(0, dtypes.int32),
            tensor_array_ops.TensorArray(x_t.dtype.base_dtype, n),
        ]
        _, hessian = control_flow_ops.while_loop(lambda j, _, n=n: j < n, body, loop_vars)
        shape = array_ops.shape(x)
        out.append(array_ops.reshape(hessian.stack(), array_ops.concat((shape, shape), 0)))
    return out


def _as_ref_tensor(x: Any) -> Tensor:
    """What tf.gradients differentiates for x (a variable's reference, as it does)."""
    if isinstance(x, Tensor):
        return x
    return convert_to_tensor(x, as_ref=True)


def _replay(target: Tensor, x: Tensor) -> Tensor:
    """`target` rebuilt in the current loop body from the body's capture of x: every op on a
    path from x to target is created again there; the other inputs are captured."""
    body = get_default_graph()
    if not isinstance(body, FuncGraph):
        raise ValueError("_replay runs inside a loop body")
    src_ops = target.graph.get_operations()
    consumers: dict[Operation, list[Operation]] = {}
    for op in src_ops:
        for t in op.inputs:
            consumers.setdefault(t.op, []).append(op)
    from_x = {x.op}
    stack = [x.op]
    while stack:
        for c in consumers.get(stack.pop(), ()):
            if c not in from_x:
                from_x.add(c)
                stack.append(c)
    between: set[Operation] = set()
    stack = [target.op]
    while stack:
        op = stack.pop()
        if op in between or op not in from_x:
            continue
        between.add(op)
        stack.extend(t.op for t in op.inputs)
    if target.op not in between:
        return target
    mapping: dict[Tensor, Tensor] = {x: body.capture(x)}
    # Graph creation order is a topological order.
    for op in src_ops:
        if op not in between or op is x.op:
            continue
        inputs = [mapping.get(t, t) for t in op.inputs]
        copy = body.create_op(op.type, inputs, dict(op.attrs), name=op.name.rsplit("/", 1)[-1])
        mapping.update(zip(op.outputs, copy.outputs))
    return mapping[target]
