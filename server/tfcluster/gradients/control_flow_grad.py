"""Gradients of the functional control flow ops (If, While), by recomputing their bodies.

If: the gradient is another If on the same predicate whose branches re-run the forward
branch on the same inputs and take tf.gradients of it. Values of stateful ops in a branch
(random draws, assignments, variable reads through a reference) are not recomputed: the
forward op exports them as extra outputs and the gradient branch uses those.

While: the forward op also returns its trip count n. The gradient is a While running
k = n-1 .. 0; step k recomputes the state x_k from the initial values (an inner while loop
of k forward steps, so O(n^2) body runs in all) and applies the body's vector-Jacobian
product there. Bodies with stateful ops are not differentiable this way (LookupError).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.func_graph import FuncGraph, FunctionBody, inline_function, parse_function
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.gradients.gradients_impl import gradients
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, control_flow_ops, math_ops
from tfcluster.protos import node_def_pb2


def _differentiable(t: Tensor) -> bool:
    dt = t.dtype
    return not dt.is_ref_dtype and (dt.is_floating or dt.base_dtype == dtypes.complex64)


def _refuse_stateful(what: str) -> Callable[[list[node_def_pb2.NodeDef]], None]:
    """A check for inline_function: recomputing must not run side effects again."""

    def check(nodes: list[node_def_pb2.NodeDef]) -> None:
        stateful = [
            f"{nd.name} ({nd.op})"
            for nd in nodes
            if (op_def := op_def_registry.lookup(nd.op)) is not None and op_def.stateful
        ]
        if stateful:
            raise LookupError(
                f"Cannot differentiate {what}: recomputing it would run its stateful ops again "
                f"({', '.join(stateful[:3])}). Gradients through a while_loop body with "
                "stateful ops, or through a cond branch holding a stateful cond/while_loop, "
                "are not supported."
            )

    return check


def _inline_pure(
    body: FunctionBody,
    args: Sequence[Tensor | None],
    replacements: dict[str, Tensor],
    results: Sequence[int],
    what: str,
) -> list[Tensor]:
    """Recomputes the wanted results of the body on `args`, refusing to re-run side effects."""
    try:
        return inline_function(body, args, replacements, results, _refuse_stateful(what))
    except ValueError as e:
        raise LookupError(f"Cannot differentiate {what}: {e}") from None


def _gradients(ys: list[Tensor], xs: list[Tensor], grad_ys: list[Tensor]) -> list[Tensor]:
    """Dense gradients (a gather's IndexedSlices summed into a tensor: a branch or a loop body
    returns tensors), zeros where none flows."""
    grads = gradients(ys, xs, grad_ys=grad_ys) if ys else [None] * len(xs)
    return [
        array_ops.zeros_like(x) if g is None else convert_to_tensor(g) for g, x in zip(grads, xs)
    ]


# ---- If -----------------------------------------------------------------------------------
def _if_grad_branch(
    name: str,
    body: FunctionBody,
    inputs: Sequence[Tensor],
    exported: Sequence[Tensor],
    my_exports: range,
    dys: Sequence[Tensor],
    out_idx: Sequence[int],
    diff_idx: Sequence[int],
    what: str,
) -> tuple[FuncGraph, list[Tensor]]:
    fg = FuncGraph(name, get_default_graph())
    with fg.as_default():
        args: list[Tensor | None] = []
        for i, t in enumerate(inputs):
            usable = t.dtype.base_dtype != dtypes.resource
            args.append(fg.add_arg(t.dtype.base_dtype, t.shape, f"input_{i}") if usable else None)
        exp_args = [
            fg.add_arg(t.dtype.base_dtype, t.shape, f"export_{k}") for k, t in enumerate(exported)
        ]
        dy_args = [fg.add_arg(t.dtype.base_dtype, t.shape, f"dy_{k}") for k, t in enumerate(dys)]
        replacements = {body.exports[k]: exp_args[j] for k, j in enumerate(my_exports)}
        ys = _inline_pure(body, args, replacements, out_idx, what)
        xs = [a for i in diff_idx if (a := args[i]) is not None]
        outs = _gradients(ys, xs, dy_args)
    return fg, outs


def _if_grad(op: Operation, *grads: Tensor) -> list[Tensor | None]:
    then_body = parse_function(op.get_attr("then_branch"), f"{op.name} then_branch")
    else_body = parse_function(op.get_attr("else_branch"), f"{op.name} else_branch")
    num_exports = len(then_body.exports) + len(else_body.exports)
    num_user = len(op.outputs) - num_exports
    inputs = op.inputs[1:]
    diff_idx = [i for i, t in enumerate(inputs) if _differentiable(t)]
    out_idx = [j for j in range(num_user) if _differentiable(op.outputs[j])]
    if not diff_idx or not out_idx:
        return [None] * len(op.inputs)
    exported = op.outputs[num_user:]
    dys = [grads[j] for j in out_idx]
    then_range = range(len(then_body.exports))
    else_range = range(len(then_body.exports), num_exports)
    then_fg, then_outs = _if_grad_branch(
        f"{op.name}_grad/then",
        then_body,
        inputs,
        exported,
        then_range,
        dys,
        out_idx,
        diff_idx,
        f"the true branch of {op.name}",
    )
    else_fg, else_outs = _if_grad_branch(
        f"{op.name}_grad/else",
        else_body,
        inputs,
        exported,
        else_range,
        dys,
        out_idx,
        diff_idx,
        f"the false branch of {op.name}",
    )
    explicit = [t for t in inputs if t.dtype.base_dtype != dtypes.resource] + list(exported) + dys
    grad_op = control_flow_ops._make_if(
        get_default_graph(), "If", op.inputs[0], explicit, then_fg, then_outs, else_fg, else_outs
    )
    result: list[Tensor | None] = [None] * len(op.inputs)
    for k, i in enumerate(diff_idx):
        g = grad_op.outputs[k]
        g.set_shape(inputs[i].shape)
        result[1 + i] = g
    return result


RegisterGradient("If")(_if_grad)
RegisterGradient("StatelessIf")(_if_grad)


# ---- While --------------------------------------------------------------------------------
def _while_grad(op: Operation, *grads: Tensor) -> list[Tensor | None]:
    none: list[Tensor | None] = [None] * len(op.inputs)
    if not op.get_attr("back_prop"):
        return none
    num_vars = len(op.get_attr("T"))
    num_caps = len(op.get_attr("Tcaptures"))
    body = parse_function(op.get_attr("body"), f"{op.name} body")
    what = f"the body of {op.name}"
    x0 = list(op.inputs[:num_vars])
    caps = list(op.inputs[num_vars : num_vars + num_caps])
    # Variables captured by reference cannot be re-read as they were: ops needing them fail.
    cap_args = [None if t.dtype.base_dtype == dtypes.resource else t for t in caps]
    invariants = list(op.get_attr("output_shapes"))
    var_idx = [i for i in range(num_vars) if _differentiable(op.outputs[i])]
    cap_idx = [i for i in range(num_caps) if _differentiable(caps[i])]
    if not var_idx:
        return none  # nothing differentiable is carried through the loop
    trip_count = op.outputs[num_vars]
    var_all = range(num_vars)
    dys = [grads[i] for i in var_idx]
    unknown = TensorShape(None)

    def grad_cond(t: Tensor, *acc: Tensor) -> Tensor:
        return math_ops.less(t, trip_count)

    def grad_body(t: Tensor, *acc: Tensor) -> list[Tensor]:
        g, gc = list(acc[: len(var_idx)]), list(acc[len(var_idx) :])
        k = math_ops.subtract(math_ops.subtract(trip_count, 1), t)
        # x_k: k forward steps from the initial values.
        state = control_flow_ops.while_loop(
            lambda j, *xs: math_ops.less(j, k),
            lambda j, *xs: [
                math_ops.add(j, 1),
                *_inline_pure(body, [*xs, *cap_args], {}, var_all, what),
            ],
            [0, *x0],
            shape_invariants=[TensorShape([]), *invariants],
            return_same_structure=True,
        )
        # The body's partial derivatives at x_k: x_k's own dependence on the inputs is
        # accounted for by the later (earlier-k) steps, hence the stop_gradient.
        x_k = [array_ops.stop_gradient(x) for x in state[1:]]
        fg = get_default_graph()
        assert isinstance(fg, FuncGraph)
        # The body's own stand-ins for the captures: what the recomputed ops read.
        inner = [None if c is None else fg.capture(c) for c in cap_args]
        ys = _inline_pure(body, [*x_k, *inner], {}, var_idx, what)
        xs = [x_k[i] for i in var_idx] + [c for i in cap_idx if (c := inner[i]) is not None]
        partials = _gradients(ys, xs, g)
        new_g = partials[: len(var_idx)]
        new_gc = [math_ops.add(a, b) for a, b in zip(gc, partials[len(var_idx) :])]
        return [math_ops.add(t, 1), *new_g, *new_gc]

    gc0 = [array_ops.zeros_like(caps[i]) for i in cap_idx]
    out = control_flow_ops.while_loop(
        grad_cond,
        grad_body,
        [0, *dys, *gc0],
        shape_invariants=[TensorShape([])] + [unknown] * (len(dys) + len(gc0)),
        name="while",
        return_same_structure=True,
    )
    result = list(none)
    for k, i in enumerate(var_idx):
        out[1 + k].set_shape(x0[i].shape)
        result[i] = out[1 + k]
    for k, i in enumerate(cap_idx):
        out[1 + len(var_idx) + k].set_shape(caps[i].shape)
        result[num_vars + i] = out[1 + len(var_idx) + k]
    return result


RegisterGradient("While")(_while_grad)
RegisterGradient("StatelessWhile")(_while_grad)
