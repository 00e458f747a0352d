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

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.func_graph import (
    ACCUMULATE_ATTR,
    GRAPH_DEF_ATTR,
    SLICED_CAPTURES_ATTR,
    FuncGraph,
    FunctionBody,
    copy_function_body,
    inline_function,
    parse_function,
)
from tfcluster.framework.graph import (
    Graph,
    Operation,
    Tensor,
    convert_to_tensor,
    get_default_graph,
)
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.gradients import (
    gradients_impl,
    tensor_array_grad,
    v1_loop_count,
    v1_loop_grad_names,
)
from tfcluster.gradients.gradients_impl import gradients
from tfcluster.gradients.loop_slices_accumulator import SlicesAccumulator
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import (
    array_ops,
    control_flow_ops,
    math_ops,
    resource_handles,
    resource_variable_ops,
)
from tfcluster.ops.tensor_array_ops import TensorArray
from tfcluster.protos import graph_pb2, node_def_pb2


def _differentiable(t: Tensor) -> bool:
    dt = t.dtype
    return not dt.is_ref_dtype and (dt.is_floating or dt.is_complex)


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


def _dense(g: Any) -> Any:
    """A gather's IndexedSlices as a tensor (a loop body returns tensors); others as they are."""
    return None if g is None else convert_to_tensor(g)


def _gradients(ys: list[Tensor], xs: list[Tensor], grad_ys: list[Tensor]) -> list[Tensor]:
    """Dense gradients (a gather's IndexedSlices summed into a tensor: a branch or a loop body
    returns tensors), zeros where none flows."""
    grads = gradients(ys, xs, grad_ys=grad_ys) if ys else [None] * len(xs)
    return [
        array_ops.zeros_like(x) if g is None else convert_to_tensor(g) for g, x in zip(grads, xs)
    ]


# ---- If -----------------------------------------------------------------------------------
# Stateful ops whose output is their first input and whose gradient passes straight to it.
_PASS_THROUGH_OPS = ("Print",)
# Marks such an op rewritten as an Identity inside a cond or loop body (the body's exports
# of it, made when it was stateful, are not reused by gradients at any depth).
_PASSED_THROUGH_ATTR = "_passed_through"
# Functional ops made stateful by what their bodies hold, the form without state, the bodies.
_FUNCTIONAL_FORMS = {
    "If": ("StatelessIf", ("then_branch", "else_branch")),
    "While": ("StatelessWhile", ("cond", "body")),
}


def _stateful(nd: node_def_pb2.NodeDef) -> bool:
    op_def = op_def_registry.lookup(nd.op)
    return op_def is not None and op_def.stateful


def _passing_through(graph_def: graph_pb2.GraphDef) -> set[str]:
    """Rewrites `graph_def` in place: each tf.Print an Identity of its input, and an If or
    While whose bodies then hold no stateful op its stateless form (bodies rewritten the same
    way); the names of the rewritten nodes."""
    names: set[str] = set()
    for nd in graph_def.node:
        if nd.op in _PASS_THROUGH_OPS:
            first = next(r for r in nd.input if not r.startswith("^"))
            nd.op = "Identity"
            del nd.input[:]
            nd.input.append(first)
            for key in [k for k in nd.attr if k != "T"]:
                del nd.attr[key]
            nd.attr[_PASSED_THROUGH_ATTR].b = True
            names.add(nd.name)
        elif _PASSED_THROUGH_ATTR in nd.attr:
            names.add(nd.name)
        elif nd.op in _FUNCTIONAL_FORMS:
            stateless, keys = _FUNCTIONAL_FORMS[nd.op]
            funcs = [nd.attr[key].func for key in keys if key in nd.attr]
            if len(funcs) != len(keys) or any(GRAPH_DEF_ATTR not in f.attr for f in funcs):
                continue
            bodies = [graph_pb2.GraphDef.FromString(f.attr[GRAPH_DEF_ATTR].s) for f in funcs]
            if not any([_passing_through(b) for b in bodies]):
                continue
            if any(_stateful(n) for b in bodies for n in b.node):
                continue
            for func, body in zip(funcs, bodies):
                func.attr[GRAPH_DEF_ATTR].s = body.SerializeToString()
            nd.op = stateless
            names.add(nd.name)
    return names


def _pass_through_as_identities(body: FunctionBody) -> tuple[FunctionBody, set[str]]:
    """The body with each tf.Print an Identity of its input (so a gradient branch recomputes
    the printed value from the branch's inputs and differentiates through it, as TF1's Print
    gradient does, without printing again), a cond or while_loop inside it whose only state
    was such Prints made stateless the same way, and the names of those nodes."""
    if not any(
        nd.op in _PASS_THROUGH_OPS or nd.op in _FUNCTIONAL_FORMS or _PASSED_THROUGH_ATTR in nd.attr
        for nd in body.graph_def.node
    ):
        return body, set()
    graph_def = graph_pb2.GraphDef()
    graph_def.CopyFrom(body.graph_def)
    names = _passing_through(graph_def)
    if not names:
        return body, names
    return dataclasses.replace(body, graph_def=graph_def), names


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
    source: str,
) -> tuple[FuncGraph, list[Tensor], int, list[bool]]:
    """A gradient branch, its outputs, and how many ops TF1 makes for this branch's part of
    the gradient, and per differentiated input whether a gradient reaches it."""
    fg = FuncGraph(name, get_default_graph())
    with fg.as_default():
        args: list[Tensor | None] = []
        for i, t in enumerate(inputs):
            usable = _passed_to_gradient(t)
            args.append(fg.add_arg(t.dtype.base_dtype, t.shape, f"input_{i}") if usable else None)
        exp_args = [
            fg.add_arg(t.dtype.base_dtype, t.shape, f"export_{k}") for k, t in enumerate(exported)
        ]
        dy_args = [fg.add_arg(t.dtype.base_dtype, t.shape, f"dy_{k}") for k, t in enumerate(dys)]
        body, identities = _pass_through_as_identities(body)
        replacements = {
            body.exports[k]: exp_args[j]
            for k, j in enumerate(my_exports)
            if body.exports[k].rpartition(":")[0] not in identities
        }
        ys = _inline_pure(body, args, replacements, out_idx, what)
        xs = [a for i in diff_idx if (a := args[i]) is not None]
        # TensorArray reads are exported (a second read of a cleared element fails): their
        # gradients are written to the gradient array here, as the read's gradient does.
        reads = _exported_reads(body, my_exports, exp_args)
        # A resource variable's reads are exported too (ReadVariableOp is stateful): the
        # gradient of each read value is its handle's, as TF's ReadVariableOp gradient says.
        var_reads = _exported_variable_reads(body, my_exports, exp_args)
        plain = [x for x in xs if x.dtype.base_dtype != dtypes.resource]
        before = fg._op_count()
        wrt = plain + [r for _, r in reads] + [r for _, r in var_reads]
        grads = (
            gradients(ys, wrt, grad_ys=dy_args, gate_gradients=gradients_impl.gating())
            if ys
            else [None] * len(wrt)
        )
        by_x = dict(zip(map(id, plain), grads[: len(plain)]))
        read_grads = grads[len(plain) + len(reads) :]
        for x in xs:
            if x.dtype.base_dtype == dtypes.resource:
                arg_index = next(k for k, a in enumerate(args) if a is x)
                found = [
                    convert_to_tensor(g)
                    for (arg_name, _), g in zip(var_reads, read_grads)
                    if g is not None and arg_name == body.args[arg_index][0]
                ]
                by_x[id(x)] = (
                    found[0] if len(found) == 1 else math_ops.add_n(found) if found else None
                )
        grads = [by_x[id(x)] for x in xs] + list(grads[len(plain) : len(plain) + len(reads)])
        # TF1 differentiates the branch's own ops (not the grad_ys Identities made here),
        # then, per value the branch switched in that gets a gradient, merges it with zeros.
        tf1_ops = fg._op_count() - before - (len(ys) if ys else 0)
        # Only the values on tf.gradients' path get a gradient in TF1 (the Switch of another
        # is not between its xs and ys).
        on_path = [gradients_impl.on_gradient_path(inputs[i]) for i in diff_idx]
        reached = [g is not None and p for g, p in zip(grads[: len(xs)], on_path)]
        tf1_ops += sum(_switch_grad_ops(x) for x, r in zip(xs, reached) if r)
        # A branch returns tensors: a gather's IndexedSlices (an embedding_lookup of a value
        # captured from outside the cond) is summed into one, as the loop gradient does.
        outs = [
            _dense(g) if g is not None else _zeros_for_arg(x, inputs[i])
            for g, x, i in zip(grads, xs, diff_idx)
        ]
        for (node, _), d_read in zip(reads, grads[len(xs) :]):
            if d_read is not None:
                flow_arg, flow = _write_read_gradient(
                    body, args, replacements, node, d_read, source
                )
                position = next((k for k, x in enumerate(xs) if x is flow_arg), None)
                if position is None:
                    raise LookupError(
                        f"Cannot differentiate {what}: the TensorArray read {node.name} reads a "
                        "flow made inside the branch"
                    )
                outs[position] = math_ops.add(outs[position], flow)
    return fg, outs, tf1_ops, reached


def _exported_variable_reads(
    body: FunctionBody, my_exports: range, exp_args: Sequence[Tensor]
) -> list[tuple[str, Tensor]]:
    """The exported ReadVariableOps of a branch argument: (the argument's node name, the
    gradient branch's stand-in for the read value)."""
    by_name = {nd.name: nd for nd in body.graph_def.node}
    arg_names = {name for name, *_rest in body.args}
    reads = []
    for k, j in enumerate(my_exports):
        node = by_name.get(body.exports[k].rpartition(":")[0])
        if node is None or node.op != "ReadVariableOp":
            continue
        handle = node.input[0].partition(":")[0]
        if handle in arg_names and exp_args[j].dtype.base_dtype.is_floating:
            reads.append((handle, exp_args[j]))
    return reads


def _reads_variable(bodies: Sequence[FunctionBody], position: int) -> bool:
    """Whether a branch reads (ReadVariableOp) the resource variable at argument position."""
    for body in bodies:
        name = body.args[position][0]
        if any(
            nd.op == "ReadVariableOp" and nd.input[0].partition(":")[0] == name
            for nd in body.graph_def.node
        ):
            return True
    return False


def _zeros_for_arg(x: Tensor, outer: Tensor) -> Tensor:
    """Zeros for a branch argument no gradient reaches (a variable's: like its value)."""
    if x.dtype.base_dtype != dtypes.resource:
        return array_ops.zeros_like(x)
    dtype = _gradient_dtype(outer)
    shape = _gradient_shape(outer)
    if shape.is_fully_defined():
        return array_ops.zeros(shape.as_list(), dtype=dtype)
    return array_ops.zeros_like(resource_variable_ops.read_variable_op(x, dtype))


def _switch_grad_ops(x: Tensor) -> int:
    """TF1's ops for the gradient of the Switch that brought x into a cond branch: its zeros
    for the branch not taken (Switch, Identity, Shape, Const, Fill) and the Merge of the two,
    or for a resource handle (no zeros) the Merge of the gradient with itself."""
    return 1 if x.dtype.base_dtype == dtypes.resource else 6


def _passed_to_gradient(t: Tensor) -> bool:
    """Inputs of an If its gradient takes too: values, and TensorArray handles (not the
    variable references a body captures, which it reads through its exports)."""
    return t.dtype.base_dtype != dtypes.resource or t.op.type != "_RefHandle"


def _exported_reads(
    body: FunctionBody, my_exports: range, exp_args: Sequence[Tensor]
) -> list[tuple[node_def_pb2.NodeDef, Tensor]]:
    by_name = {nd.name: nd for nd in body.graph_def.node}
    reads = []
    for k, j in enumerate(my_exports):
        node = by_name.get(body.exports[k].rpartition(":")[0])
        if node is not None and node.op == "TensorArrayReadV3":
            reads.append((node, exp_args[j]))
    return reads


def _write_read_gradient(
    body: FunctionBody,
    args: Sequence[Tensor | None],
    replacements: dict[str, Tensor],
    node: node_def_pb2.NodeDef,
    d_read: Tensor,
    source: str,
) -> tuple[Tensor | None, Tensor]:
    """Writes d_read at the read's index of the gradient array; returns the branch argument
    the read's flow came from and the gradient array's flow after the write."""
    arg_of = {name: args[i] for i, (name, *_rest) in enumerate(body.args)}
    handle_name = node.input[0].partition(":")[0]
    handle = arg_of.get(handle_name)
    if handle is None:
        raise LookupError(f"TensorArray read {node.name} does not read an array given to the cond")
    index, flow = inline_function(
        dataclasses.replace(body, results=[node.input[1], node.input[2]]), args, replacements
    )
    forward = TensorArray(
        dtype=dtypes.as_dtype(node.attr["dtype"].type),
        handle=handle,
        flow=flow,
        colocate_with_first_write_call=False,
    )
    written = forward.grad(source=source, flow=flow).write(index, d_read)
    flow_name = node.input[2].partition(":")[0]
    return arg_of.get(flow_name), written.flow


@dataclasses.dataclass
class _BranchGradients:
    """The gradient branches of an If or Case, and what the gradient op takes."""

    graphs: list[FuncGraph]
    outputs: list[list[Tensor]]
    explicit: list[Tensor]  # the op's inputs, the forward op's exports, the incoming grads
    diff_idx: list[int]  # the forward inputs (after the predicate/index) that get gradients
    tf1_ops: int  # how many ops TF1's Switch/Merge form of this gradient makes
    # Per input in diff_idx, how many branches' gradients reach it: TF1 switches a value into
    # each branch apart, and adds up their gradients.
    tf1_terms: list[int]


def _branch_gradients(
    op: Operation,
    grads: Sequence[Tensor | None],
    bodies: Sequence[FunctionBody],
    labels: Sequence[tuple[str, str]],
) -> _BranchGradients | None:
    """Per forward branch (If's then/else, Case's branches), a body recomputing it on the
    same inputs and differentiating it; values the branches' stateful ops exported are
    reused. None when no gradient flows."""
    num_exports = sum(len(b.exports) for b in bodies)
    num_user = len(op.outputs) - num_exports
    inputs = op.inputs[1:]
    diff_idx = [
        i
        for i, t in enumerate(inputs)
        if _differentiable(t)
        or (_variable_handle(t) and _passed_to_gradient(t) and _reads_variable(bodies, i))
    ]
    # A cond's output no gradient reaches (TF1's Merge of it gets none, so no Switch of it)
    # is not differentiated.
    out_idx = [
        j for j in range(num_user) if _differentiable(op.outputs[j]) and grads[j] is not None
    ]
    if not diff_idx or not out_idx:
        return None
    exported = op.outputs[num_user:]
    dys = [g for j in out_idx if (g := grads[j]) is not None]
    source = _gradient_source(dys)
    graphs, outputs, first = [], [], 0
    # A Switch of each Merge's gradient by the predicate; with gate_gradients, the Switch's two
    # outputs (one per branch) pass through a tuple (a NoOp and two Identities).
    tf1_ops = len(out_idx) * (4 if gradients_impl.gating() else 1)
    terms = [0] * len(diff_idx)
    for body, (label, what) in zip(bodies, labels):
        mine = range(first, first + len(body.exports))
        first += len(body.exports)
        fg, outs, branch_ops, reached = _if_grad_branch(
            f"{op.name}_grad/{label}",
            body,
            inputs,
            exported,
            mine,
            dys,
            out_idx,
            diff_idx,
            f"{what} of {op.name}",
            source,
        )
        graphs.append(fg)
        outputs.append(outs)
        tf1_ops += branch_ops
        terms = [n + r for n, r in zip(terms, reached)]
    explicit = [t for t in inputs if _passed_to_gradient(t)] + list(exported) + dys
    return _BranchGradients(graphs, outputs, explicit, diff_idx, tf1_ops, terms)


def _input_gradients(
    op: Operation, grad_op: Operation, diff_idx: Sequence[int]
) -> list[Tensor | None]:
    """The gradient op's outputs as the forward op's input gradients (none for input 0)."""
    result: list[Tensor | None] = [None] * len(op.inputs)
    for k, i in enumerate(diff_idx):
        g = grad_op.outputs[k]
        g.set_shape(_gradient_shape(op.inputs[1 + i]))
        result[1 + i] = g
    return result


def _if_grad(op: Operation, *grads: Tensor | None) -> list[Tensor | None]:
    graph = get_default_graph()
    start = graph._op_count()
    then_body = parse_function(op._get_attr("then_branch"), f"{op.name} then_branch")
    else_body = parse_function(op._get_attr("else_branch"), f"{op.name} else_branch")
    labels = [("then", "the true branch"), ("else", "the false branch")]
    g = _branch_gradients(op, grads, [then_body, else_body], labels)
    if g is None:
        return [None] * len(op.inputs)
    (then_fg, else_fg), (then_outs, else_outs) = g.graphs, g.outputs
    grad_op = control_flow_ops._make_if(
        graph, "If", op.inputs[0], g.explicit, then_fg, then_outs, else_fg, else_outs
    )
    if control_flow_ops.is_v1_cond(op):
        # TF1's gradient of its Switch/Merge cond: later op seeds count those ops, not these.
        graph._match_tf1_op_count(g.tf1_ops - (graph._op_count() - start))
        for k, n in enumerate(g.tf1_terms):
            gradients_impl.count_as_tf1_terms(grad_op.outputs[k], n)
    return _input_gradients(op, grad_op, g.diff_idx)


def _gradient_source(dys: Sequence[Tensor]) -> str:
    """The tf.gradients call this gradient belongs to (its TensorArray gradients are keyed
    by it); "gradients" when the incoming gradients do not say."""
    for dy in dys:
        try:
            return tensor_array_grad.grad_source(dy)
        except ValueError:
            continue
    return "gradients"


RegisterGradient("If")(_if_grad)
RegisterGradient("StatelessIf")(_if_grad)


def _case_grad(op: Operation, *grads: Tensor) -> list[Tensor | None]:
    """As TF 1.15's _CaseGrad: a Case on the same index ("gradient") whose branch k
    differentiates the forward branch k."""
    branches = [
        parse_function(f, f"{op.name} branches[{k}]")
        for k, f in enumerate(op._get_attr("branches"))
    ]
    labels = [(f"branch_{k}", f"branch {k}") for k in range(len(branches))]
    g = _branch_gradients(op, grads, branches, labels)
    if g is None:
        return [None] * len(op.inputs)
    grad_op = control_flow_ops._make_case(
        get_default_graph(), "gradient", op.inputs[0], g.explicit, g.graphs, g.outputs
    )
    return _input_gradients(op, grad_op, g.diff_idx)


RegisterGradient("Case")(_case_grad)


# ---- While --------------------------------------------------------------------------------
class _WhileGradBody(FuncGraph):
    """The body of a loop's gradient loop: a forward body tensor it uses is that tensor's
    value in the forward iteration the gradient iteration undoes.

    A loop invariant (a capture of the forward loop) is captured directly; a constant is
    made again; every other forward value is kept by the forward op in every iteration (it
    returns one list per kept tensor), which the gradient op takes as a capture that its
    kernel slices: in gradient iteration k, the argument is item n-1-k of the list.
    """

    def __init__(
        self, name: str, outer: Graph, forward: FuncGraph, forward_op: Operation, num_vars: int
    ) -> None:
        super().__init__(name, outer)
        self.forward = forward
        self.forward_op = forward_op
        self.num_vars = num_vars
        self.arg_position = {t.op: i for i, t in enumerate(forward.inputs)}
        self._values: dict[Tensor, Tensor] = {}
        # Captured lists of kept values, read one item per iteration, last first.
        self.sliced: set[Tensor] = set()
        # The forward body's constants, made again here (TF1 reads them in its gradient loop
        # without a stack, but keeps a Shape of one on a stack like any forward value's).
        self.remade_consts: set[Tensor] = set()

    def capture(self, tensor: Tensor) -> Tensor:
        if tensor.graph is self.forward:
            value = self._values.get(tensor)
            if value is None:
                value = self._values[tensor] = self._forward_value(tensor)
            return value
        return super().capture(tensor)

    def capture_control(self, op: Operation) -> None:
        if op.graph is self.forward:
            return  # the forward loop has finished before its gradient starts
        super().capture_control(op)

    def _forward_value(self, t: Tensor) -> Tensor:
        op = t.op
        position = self.arg_position.get(op)
        if position is not None and position >= self.num_vars:
            outer = self.forward_op.inputs[position]
            if outer.op.type == "_RefHandle":
                outer = outer.op.inputs[0]  # the variable reference itself
            return super().capture(outer)
        # Made in this body, whichever (inner) body is being built and asked first.
        with self.as_default(), self.name_scope(None), self.control_dependencies(None):
            if op.type == "Const" and not op.inputs and not op.control_inputs:
                attrs = {k: v for k, v in op.attrs.items() if k != "_class"}
                const = Graph.create_op(self, "Const", [], attrs, name="forward_const").outputs[0]
                self.remade_consts.add(const)
                return const
            kept = _kept_values(self.forward_op, t)
            if kept.graph is not self.outer_graph:
                # A loop nested in the forward body: the enclosing gradient body has the list
                # of this (outer) iteration.
                assert isinstance(self.outer_graph, FuncGraph)
                kept = self.outer_graph.capture(kept)
            inner = self._captures.get(kept)
            if inner is None:
                inner = self._make_arg(t.dtype.base_dtype, t.shape, "forward_value")
                self._captures[kept] = inner
                self.sliced.add(kept)
            return inner


def _is_kept_list(t: Tensor | None) -> bool:
    """Whether t is the list of a body value a While op keeps for its gradient."""
    if t is None:
        return False
    op = t.op
    return op.type in ("While", "StatelessWhile") and t.value_index > len(op._get_attr("T"))


def _kept_tensor(body: _WhileGradBody, kept: Tensor) -> Tensor | None:
    """The forward body tensor whose values the forward While op keeps in output `kept`
    (None where an enclosing gradient body passes the list on)."""
    op = body.forward_op
    if kept.op is not op:
        return None
    names = list(op.attrs.get(ACCUMULATE_ATTR) or [])
    return body.forward.get_tensor_by_name(names[kept.value_index - len(op._get_attr("T")) - 1])


def _kept_values(op: Operation, t: Tensor) -> Tensor:
    """The output of the While op `op` with the values of body tensor t, one per iteration
    (made when first asked for: the op keeps them from then on)."""
    kept = list(op.attrs.get(ACCUMULATE_ATTR) or [])
    first = len(op._get_attr("T")) + 1
    if t.name in kept:
        return op.outputs[first + kept.index(t.name)]
    kept.append(t.name)
    op._set_attr(ACCUMULATE_ATTR, kept)
    return op._add_output(dtypes.variant, [])


def _variable_handle(t: Tensor) -> bool:
    """A resource variable's handle of a floating dtype (its reads are differentiable)."""
    if t.dtype.base_dtype != dtypes.resource:
        return False
    dtype = resource_handles.handle_dtype(t)
    return dtype is not None and (dtype.is_floating or dtype.is_complex)


def _gradient_dtype(t: Tensor) -> dtypes.DType:
    if t.dtype.base_dtype == dtypes.resource:
        return resource_handles.handle_dtype(t) or dtypes.float32
    return t.dtype.base_dtype


def _gradient_shape(t: Tensor) -> TensorShape:
    if t.dtype.base_dtype == dtypes.resource:
        return resource_handles.handle_shape(t)
    return t.shape


def _capture_value(t: Tensor) -> Tensor:
    """A capture's value (a resource variable's, read)."""
    if t.dtype.base_dtype == dtypes.resource:
        return resource_variable_ops.read_variable_op(t, _gradient_dtype(t))
    return t


def _zeros_for_capture(t: Tensor) -> Tensor:
    """The starting sum of a capture's gradient (a variable's: zeros like its value)."""
    if t.dtype.base_dtype == dtypes.resource:
        return array_ops.zeros_like(resource_variable_ops.read_variable_op(t, _gradient_dtype(t)))
    return array_ops.zeros_like(t)


def _reached_loop_variables(
    op: Operation,
    fwd_args: Sequence[Tensor],
    fwd_results: Sequence[Tensor],
    grads: Sequence[Tensor | None],
) -> set[int]:
    """The loop variables TF1 differentiates in a v1 loop: those the xs reach, through the
    initial value or, across iterations, through a reached variable or capture the next
    value depends on (TF1 marks the ops reached from the xs, its loop's back edges
    included; a variable no xs reach gets no gradient loop variable), and that lead to the
    ys in the same way."""
    num_vars = len(op._get_attr("T"))
    reached = {i for i in range(num_vars) if gradients_impl.on_gradient_path(op.inputs[i])}
    reached_caps = {
        fwd_args[i]
        for i in range(num_vars, min(len(fwd_args), len(op.inputs)))
        if gradients_impl.on_gradient_path(op.inputs[i])
    }
    depends: dict[Tensor, set[int]] = {}

    def sources(t: Tensor) -> set[int]:
        # Loop variable positions (and -1 for a reached capture) that t depends on.
        stack, seen, found = [t], set(), set()
        while stack:
            u = stack.pop()
            if u in seen:
                continue
            seen.add(u)
            if u in depends:
                found |= depends[u]
                continue
            if u in reached_caps:
                found.add(-1)
            elif u in fwd_args[:num_vars]:
                found.add(fwd_args.index(u))
            stack.extend(u.op.inputs)
        depends[t] = found
        return found

    grew = True
    while grew:
        grew = False
        for i in range(num_vars):
            if i not in reached and (sources(fwd_results[i]) & (reached | {-1})):
                reached.add(i)
                grew = True
    # Nor one whose value never leads to the ys: no gradient reached its output, nor the
    # next value of a variable that leads there (an RNN's outputs when only its final state
    # is used).
    leads = {i for i in range(num_vars) if not gradients_impl.reached_by_no_gradient(grads[i])}
    grew = True
    while grew:
        grew = False
        for j in list(leads):
            for i in sources(fwd_results[j]) - leads - {-1}:
                leads.add(i)
                grew = True
    return reached & leads


def _while_grad(op: Operation, *grads: Tensor) -> Sequence[Tensor | IndexedSlices | None]:
    """The gradient loop runs the forward iterations backwards; iteration k applies the
    body's vector-Jacobian product at the values forward iteration n-1-k had, which the
    forward op keeps for it (no recomputation: linear in the number of iterations)."""
    none: list[Tensor | None] = [None] * len(op.inputs)
    if not op.attrs.get("back_prop", True):
        return none
    num_vars = len(op._get_attr("T"))
    # A loop in TF's form (imported) carries its captures as loop variables.
    num_caps = len(op.attrs.get("Tcaptures") or ())
    caps = list(op.inputs[num_vars : num_vars + num_caps])
    var_idx = [i for i in range(num_vars) if _differentiable(op.outputs[i])]
    # Captures off the path from xs to ys (an RNN cell's kernel when only its inputs are
    # differentiated) get no gradient: TF1 accumulates none for them either.
    cap_idx = [
        i
        for i in range(num_caps)
        if (_differentiable(caps[i]) or _variable_handle(caps[i]))
        and gradients_impl.on_gradient_path(caps[i])
    ]
    # A resource variable's handle gets the gradient of its value (ReadVariableOp's).
    cap_dtypes = [_gradient_dtype(caps[i]) for i in range(num_caps)]
    cap_shapes = [_gradient_shape(caps[i]) for i in range(num_caps)]
    if not var_idx:
        return none  # nothing differentiable is carried through the loop
    graph = get_default_graph()
    invariants = list(op.attrs.get("output_shapes") or ())
    if len(invariants) != len(op._get_attr("T")):  # TF's form may leave them out
        invariants = [t.shape for t in op.outputs[: len(op._get_attr("T"))]]
    scope = graph.get_name_scope()
    prefix = f"{scope}/" if scope else ""

    # The forward body as a graph again (names kept), to differentiate and to keep values of.
    body = parse_function(op._get_attr("body"), f"{op.name} body")
    forward = FuncGraph(f"{op.name}/body", op.graph)
    fwd_args, fwd_results = copy_function_body(body, forward)
    # TF1 gives a loop variable no xs reach only the Enter of its Exit's zeros ("b_exit").
    unreached_exits = 0
    if v1_loop_count.is_v1_while(op):
        reached = _reached_loop_variables(op, fwd_args, fwd_results, grads)
        unreached_exits = sum(i not in reached for i in var_idx)
        var_idx = [i for i in var_idx if i in reached]
        if not var_idx:
            graph._match_tf1_op_count(unreached_exits)
            return none

    trip_count = op.outputs[num_vars]
    start = graph._op_count()
    # Arguments an enclosing gradient body makes meanwhile to read forward values: that
    # body counts its reads itself.
    args_before = len(getattr(graph, "_captures", ()))
    grad_body = _WhileGradBody(f"{op.name}_grad/body", graph, forward, op, num_vars)
    with grad_body.as_default(), grad_body.name_scope(prefix or None):
        counter = grad_body.add_arg(dtypes.int32, [], f"{prefix}counter")
        dy_args = [
            grad_body.add_arg(grads[i].dtype.base_dtype, invariants[i], f"{prefix}dy_{k}")
            for k, i in enumerate(var_idx)
        ]
        ys = [fwd_results[i] for i in var_idx]
        xs = [fwd_args[i] for i in var_idx] + [fwd_args[num_vars + i] for i in cap_idx]
        made_before = len(grad_body.get_operations())
        count_before = grad_body._op_count()
        raw_partials = gradients_impl.gradients_of_graph(
            ys,
            xs,
            grad_ys=dy_args,
            src_graph=forward,
            v1_loop_body=v1_loop_count.is_v1_while(op),
            gate_gradients=gradients_impl.gating(),
        )
        # A v1 loop keeps a gather's gradient of a capture as IndexedSlices (TF1's
        # accumulator of them); other gradients are summed densely.
        slices = {
            k: SlicesAccumulator.of(g)
            for k, g in enumerate(raw_partials[len(var_idx) :])
            if isinstance(g, IndexedSlices) and v1_loop_count.is_v1_while(op)
        }
        partials = [
            g if k - len(var_idx) in slices else _dense(g) for k, g in enumerate(raw_partials)
        ]
        # The ops TF1 makes in its gradient loop for the body's gradient: tfcluster's own
        # as counted (their captures aside; an inner loop's gradient counts as TF1's), plus
        # what TF1 makes to read forward values.
        made = grad_body.get_operations()[made_before:]
        reads = dict(grad_body._captures)
        tf1_ops = grad_body._op_count() - count_before - len(reads)
        new_dy = [
            g if g is not None else array_ops.zeros_like(dy)
            for g, dy in zip(partials[: len(var_idx)], dy_args)
        ]
        dc_args: list[list[Tensor]] = [
            slices[k].add_args(grad_body, f"{prefix}dcapture_{k}")
            if k in slices
            else [grad_body.add_arg(cap_dtypes[i], cap_shapes[i], f"{prefix}dcapture_{k}")]
            for k, i in enumerate(cap_idx)
        ]
        new_dc = [
            t
            for k, (g, dc) in enumerate(zip(partials[len(var_idx) :], dc_args))
            for t in (
                slices[k].updated(dc, g)
                if k in slices
                else [dc[0] if g is None else math_ops.add(dc[0], g)]
            )
        ]
        body_outs = [grad_body.capture(t) for t in [math_ops.add(counter, 1), *new_dy, *new_dc]]
    # The forward op keeps what the gradient body reads: its body is the copy, which may
    # itself have changed (an inner loop that now keeps values for this gradient).
    op._set_attr("body", forward.to_function(fwd_args, fwd_results))

    cond_graph = FuncGraph(f"{op.name}_grad/cond", graph)
    with cond_graph.as_default():
        c_args = [
            cond_graph.add_arg(t.dtype.base_dtype, t.shape, f"arg_{i}")
            for i, t in enumerate(grad_body.inputs)
        ]
        cond_out = math_ops.less(c_args[0], cond_graph.capture(trip_count))
    init = [
        convert_to_tensor(0, dtype=dtypes.int32),
        *[grads[i] for i in var_idx],
        *[
            t
            for k, i in enumerate(cap_idx)
            for t in (
                slices[k].initial(functools.partial(_capture_value, caps[i]))
                if k in slices
                else [_zeros_for_capture(caps[i])]
            )
        ],
    ]
    grad_invariants = [
        TensorShape([]),
        *[invariants[i] for i in var_idx],
        *[
            s
            for k, i in enumerate(cap_idx)
            for s in (slices[k].invariants() if k in slices else [cap_shapes[i]])
        ],
    ]
    grad_op = control_flow_ops.make_while(
        graph,
        graph.unique_name("while"),
        init,
        grad_invariants,
        cond_graph,
        cond_out,
        grad_body,
        body_outs,
        parallel_iterations=op.attrs.get("parallel_iterations", 10),
    )
    captured = grad_op.inputs[len(init) :]
    grad_op._set_attr(
        SLICED_CAPTURES_ATTR, [i for i, t in enumerate(captured) if t in grad_body.sliced]
    )
    if v1_loop_count.is_v1_while(op):
        sliced = {arg: outer for outer, arg in reads.items() if outer in grad_body.sliced}
        # An inner loop's kept values reach this body as a list per iteration; TF1 keeps
        # them on the inner loop's stack, which reaches through this loop by two Enters.
        lists = [
            arg for arg, outer in sliced.items() if _is_kept_list(_kept_tensor(grad_body, outer))
        ]
        kept = [arg for arg in sliced if arg not in lists]
        invariants_read = [arg for outer, arg in reads.items() if outer not in grad_body.sliced]
        tf1_ops += (
            v1_loop_count.loop_variable_ops(gradients_impl.gating()) * len(var_idx)
            + unreached_exits
            + v1_loop_count.forward_read_ops(
                made, kept, invariants_read, lists, grad_body.remade_consts
            )
            # A loop in another loop's body: its GradLoopState's counters (made at the
            # start of tf.gradients for a loop outside every other).
            + (v1_loop_count.LOOP_COUNTER_OPS if isinstance(graph, _WhileGradBody) else 0)
            + sum(
                slices[k].tf1_ops()
                if k in slices
                else v1_loop_count.accumulator_ops(caps[i].shape.is_fully_defined())
                for k, i in enumerate(cap_idx)
                if partials[len(var_idx) + k] is not None
            )
        )
        args_made = len(getattr(graph, "_captures", ())) - args_before
        graph._match_tf1_op_count(tf1_ops - (graph._op_count() - start - args_made))
    result: list[Tensor | IndexedSlices | None] = list(none)
    x0 = op.inputs[:num_vars]
    for k, i in enumerate(var_idx):
        g = grad_op.outputs[1 + k]
        g.set_shape(x0[i].shape)
        result[i] = g
    position = 1 + len(var_idx)
    cap_outputs: dict[int, list[Tensor]] = {}
    for k in range(len(cap_idx)):
        width = len(dc_args[k])
        cap_outputs[k] = list(grad_op.outputs[position : position + width])
        position += width
    # TF1's names for the invariants' gradients (v1_loop_grad_names.py), made in its order.
    scopes = _tf1_capture_gradient_scopes(op, scope, num_vars, cap_idx)
    for k, grad_scope in scopes.items():
        labels: Sequence[str]
        if k in slices:
            labels = v1_loop_grad_names.slices_gradient_names(
                slices[k].row_shape.is_fully_defined()
            )
        else:
            cap_outputs[k][0].set_shape(cap_shapes[cap_idx[k]])
            labels = (
                v1_loop_grad_names.dense_gradient_name(cap_shapes[cap_idx[k]].is_fully_defined()),
            )
        cap_outputs[k] = _named_as(graph, cap_outputs[k], grad_scope, labels)
    for k, i in enumerate(cap_idx):
        if k in slices:
            result[num_vars + i] = slices[k].result(cap_outputs[k])
            continue
        cap_outputs[k][0].set_shape(cap_shapes[i])
        result[num_vars + i] = cap_outputs[k][0]
    return result


def _tf1_capture_gradient_scopes(
    op: Operation, grad_scope: str, num_vars: int, cap_idx: Sequence[int]
) -> dict[int, str]:
    """Per capture of a v1 loop (by its position in cap_idx), the scope TF1's gradient of
    it is made in: `<gradients>/<its Enter>_grad/`, in the order TF1 makes them."""
    suffix = f"{op.name}_grad"
    if not v1_loop_count.is_v1_while(op) or not grad_scope.endswith(suffix):
        return {}
    root = grad_scope[: -len(suffix)]
    functions = [
        parse_function(op._get_attr("cond"), f"{op.name} cond"),
        parse_function(op._get_attr("body"), f"{op.name} body"),
    ]
    names = v1_loop_grad_names.enter_names(functions, num_vars, [num_vars + i for i in cap_idx])
    k_of = {num_vars + i: k for k, i in enumerate(cap_idx)}
    return {k_of[position]: f"{root}{name}_grad/" for position, name in names.items()}


def _named_as(
    graph: Graph, outputs: Sequence[Tensor], scope: str, labels: Sequence[str]
) -> list[Tensor]:
    """outputs through Identities named scope + label (ops TF1 does not count: its Exits
    are those names)."""
    named = []
    with graph.name_scope(scope):
        for t, label in zip(outputs, labels):
            named.append(array_ops.identity(t, name=label))
            graph._match_tf1_op_count(-1)
    return named


RegisterGradient("While")(_while_grad)
RegisterGradient("StatelessWhile")(_while_grad)
