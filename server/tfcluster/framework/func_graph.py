"""Function graphs: the bodies of the functional control flow ops (If, While).

A body is built in its own FuncGraph whose inputs are `_Arg` ops and whose outputs feed
`_Retval` ops. Tensors of enclosing graphs used inside are *captured*: each gets an `_Arg`
in the body and becomes an explicit input of the functional op, so the outer graph's
dataflow (pruning, placement, partitioning) sees every dependency. A captured variable
reference (float32_ref) becomes a `_RefArg`; outside, a `_RefHandle` passes the variable
itself (not its value) to the functional op, which is colocated with the variable.

A finished body is stored as a `NameAttrList` func attr carrying the serialised GraphDef,
so it survives GraphDef serialisation, import_graph_def and the wire to a remote master.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from tfcluster.framework import attr_values, dtypes, op_def_registry
from tfcluster.framework.graph import Graph, Operation, Tensor, get_default_graph
from tfcluster.framework.graph_io import _topological_order, graph_to_graph_def, parse_input
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.protos import attr_value_pb2, graph_pb2, node_def_pb2

ARG_OPS = ("_Arg", "_RefArg")
RETVAL_OP = "_Retval"
# The static output shapes of a body's node, as TF's GraphDefs carry them (add_shapes).
OUTPUT_SHAPES_ATTR = "_output_shapes"
GRAPH_DEF_ATTR = "graph_def"
# Body tensors (op:index) the forward op also returns, so a gradient can reuse their values.
EXPORTS_ATTR = "exports"
FUNCTIONAL_OPS = ("If", "StatelessIf", "While", "StatelessWhile")
# A While op's attr: body tensors ('op:idx') whose value in every iteration the op keeps and
# returns, one list each after its trip count (what its gradient reads).
ACCUMULATE_ATTR = "accumulate"
# A gradient While op's attr: positions of its captures that are such lists; iteration k of
# the gradient loop gets item len-1-k of each (the forward iterations, last first).
SLICED_CAPTURES_ATTR = "sliced_captures"


def _arg_infer(
    inputs: Sequence[Tensor], attrs: dict[str, Any]
) -> list[tuple[dtypes.DType, TensorShape]]:
    return [(attrs["T"], as_shape(attrs.get("shape")))]


def _ref_arg_infer(
    inputs: Sequence[Tensor], attrs: dict[str, Any]
) -> list[tuple[dtypes.DType, TensorShape]]:
    return [(attrs["T"]._as_ref, as_shape(attrs.get("shape")))]


def _ref_handle_infer(
    inputs: Sequence[Tensor], attrs: dict[str, Any]
) -> list[tuple[dtypes.DType, TensorShape]]:
    return [(dtypes.resource, inputs[0].shape)]


op_def_registry.register("_Arg", _arg_infer)
op_def_registry.register("_RefArg", _ref_arg_infer, ref_outputs=True)
op_def_registry.register("_Retval", op_def_registry.no_outputs)
# Passes a variable's reference (the VariableRef itself) on as a plain value.
op_def_registry.register("_RefHandle", _ref_handle_infer, ref_inputs=[0])


class FuncGraph(Graph):
    """The body of a functional op; ops created while it is the default graph land here."""

    building_function = True
    # A graph TF 1.15 traces as a function of its own (a tf.function, a tf.data
    # function), where it builds control flow as functional ops; tfcluster's bodies of TF1
    # conds and loops (and their gradients) are not.
    traces_a_function = False

    def __init__(self, name: str, outer_graph: Graph) -> None:
        super().__init__()
        self.name = name
        self.outer_graph = outer_graph
        self._seed = outer_graph.seed
        self._container = outer_graph._container
        # Lookups inside a body (the global step, trainable variables) see the outer graph's
        # collections; what a body adds to them stays in the body.
        self._collections = {k: list(v) for k, v in outer_graph._collections.items()}
        # Explicit arguments, in order (loop variables); captures come after them.
        self.inputs: list[Tensor] = []
        # Tensor of the immediately enclosing graph -> its _Arg in this body.
        self._captures: dict[Tensor, Tensor] = {}
        # Ops of the enclosing graph the body must wait for (control deps inside the body).
        self.control_captures: list[Operation] = []
        # While set, ops made here take their ids from this graph's count (ops_counted_in).
        self._id_source: Graph | None = None
        # Whether a random op here took its op seed from the graph seed (TF's flag, read by
        # tf.data's warning about the outer graph's seed).
        self._seed_used = False

    # ---- op ids --------------------------------------------------------------------------
    # TF1 builds a tf.cond branch or a tf.while_loop body in the graph itself, so its ops
    # take ids from that graph's count, and op seeds (the count when a random op is made)
    # depend on them; a function body (Defun, Dataset.map) counts on its own.
    @property  # type: ignore[override]
    def _last_id(self) -> int:
        source = self.__dict__.get("_id_source")
        return source._last_id if source is not None else self._own_last_id

    @_last_id.setter
    def _last_id(self, value: int) -> None:
        self._own_last_id = value

    def _next_id(self) -> int:
        if self._id_source is not None:
            return self._id_source._next_id()
        return super()._next_id()

    def _op_count(self) -> int:
        if self._id_source is not None:
            return self._id_source._op_count()
        return super()._op_count()

    def _match_tf1_op_count(self, delta: int) -> None:
        if self._id_source is not None:
            self._id_source._match_tf1_op_count(delta)
        else:
            super()._match_tf1_op_count(delta)

    @contextlib.contextmanager
    def ops_counted_in(self, graph: Graph) -> Iterator[None]:
        """Ops made in this body meanwhile take their ids from `graph`, as TF1's would."""
        self._id_source = graph
        try:
            yield
        finally:
            self._id_source = None
            self._own_last_id = max(self._own_last_id, graph._last_id)

    # ---- arguments and captures ----------------------------------------------------------
    @property
    def captures(self) -> list[tuple[Tensor, Tensor]]:
        """(outer tensor, inner _Arg output) pairs, in capture order."""
        return list(self._captures.items())

    def add_arg(self, dtype: dtypes.DType, shape: Any, name: str) -> Tensor:
        t = self._make_arg(dtype, shape, name)
        self.inputs.append(t)
        return t

    def _make_arg(self, dtype: dtypes.DType, shape: Any, name: str) -> Tensor:
        op_type = "_RefArg" if dtype.is_ref_dtype else "_Arg"
        attrs = {"T": dtype.base_dtype, "index": -1, "shape": as_shape(shape)}
        with self.name_scope(None), self.control_dependencies(None):
            return Graph.create_op(self, op_type, [], attrs, name=name).outputs[0]

    def capture(self, tensor: Tensor) -> Tensor:
        """The body's stand-in for a tensor of an enclosing graph (made once per tensor)."""
        if tensor.graph is self:
            return tensor
        outer = tensor
        if tensor.graph is not self.outer_graph:
            if not isinstance(self.outer_graph, FuncGraph):
                raise ValueError(
                    f"Tensor {tensor.name} is not from this function body ({self.name}) nor "
                    "from a graph enclosing it."
                )
            # The enclosing body makes it available (or knows another way: a gradient body
            # reads a forward loop's values) and this body captures that.
            outer = self.outer_graph.capture(tensor)
        inner = self._captures.get(outer)
        if inner is None:
            inner = self._make_arg(outer.dtype, outer.shape, _arg_name(outer))
            self._captures[outer] = inner
            is_array_handle = outer.op.type == "TensorArrayV3" and outer.value_index == 0
            if is_array_handle and builds_v2_control_flow(self):
                # TF's TensorArray in a function is one TensorList: no handle to capture.
                self._match_tf1_op_count(-1)
        return inner

    def captured_stand_in(self, tensor: Tensor) -> Tensor:
        """What tf.gradients inside the body differentiates for an outer `tensor`.

        The body's capture of it when there is one; for a variable reference, the capture
        of its value read (d/d ref = d/d read). Else `tensor` itself (no path: no gradient).
        """
        if tensor.graph is self:
            return tensor
        outer = tensor
        if isinstance(self.outer_graph, FuncGraph):
            outer = self.outer_graph.captured_stand_in(tensor)
        inner = self._captures.get(outer)
        if inner is not None:
            return inner
        if outer.dtype.is_ref_dtype:
            for t, stand_in in self._captures.items():
                if t.op.type == "Identity" and t.op.inputs[0] is outer:
                    return stand_in
        return tensor

    def capture_control(self, op: Operation) -> None:
        if op.graph is self.outer_graph:
            if op not in self.control_captures:
                self.control_captures.append(op)
        elif isinstance(self.outer_graph, FuncGraph):
            # The enclosing body's op waits for it, so this one does too.
            self.outer_graph.capture_control(op)
        else:
            raise ValueError(f"Control input {op.name} is not from a graph enclosing {self.name}")

    # ---- op creation -----------------------------------------------------------------------
    def create_op(
        self,
        op_type: str,
        inputs: Sequence[Tensor],
        attrs: dict[str, Any] | None = None,
        name: str | None = None,
        control_inputs: Sequence[Operation] = (),
    ) -> Operation:
        if op_type == "VariableV2":
            raise ValueError(
                "Creating a variable inside a tf.cond / tf.while_loop body is not supported; "
                f"create it outside (in {self.name})."
            )
        own_inputs = [
            self.capture(t) if isinstance(t, Tensor) and t.graph is not self else t for t in inputs
        ]
        self._check_inputs(op_type, own_inputs, attrs or {})
        own_controls = []
        for c in control_inputs:
            if c.graph is self:
                own_controls.append(c)
            else:
                self.capture_control(c)
        return super().create_op(op_type, own_inputs, attrs, name, own_controls)

    def _check_inputs(self, op_type: str, inputs: Sequence[Tensor], attrs: dict[str, Any]) -> None:
        """A body kind's own checks of an op's (captured) inputs; none here."""

    def _current_control_dependencies(self, input_ops: Sequence[Operation] = ()) -> list[Operation]:
        deps = super()._current_control_dependencies(input_ops)
        own = []
        for d in deps:
            if d.graph is self:
                own.append(d)
            else:
                self.capture_control(d)
        return own

    # ---- finishing -----------------------------------------------------------------------
    def is_stateful(self) -> bool:
        for op in self.get_operations():
            op_def = op_def_registry.lookup(op.type)
            if op_def is not None and op_def.stateful:
                return True
        return False

    def to_function(
        self, args: Sequence[Tensor], outputs: Sequence[Tensor], exports: Sequence[str] = ()
    ) -> attr_value_pb2.NameAttrList:
        """Numbers the `_Arg`s in `args` order, adds `_Retval`s for `outputs`, serialises."""
        arg_ops = [op for op in self.get_operations() if op.type in ARG_OPS]
        if {id(op) for op in arg_ops} != {id(t.op) for t in args} or len(args) != len(arg_ops):
            raise ValueError(f"Function {self.name}: every argument must be passed exactly once")
        for i, t in enumerate(args):
            t.op._set_attr("index", i)
        with self.name_scope(None), self.control_dependencies(None):
            for i, t in enumerate(outputs):
                if t.graph is not self:
                    raise ValueError(f"Output {t.name} of {self.name} is not in its body")
                attrs = {"T": t.dtype.base_dtype, "index": i}
                Graph.create_op(self, RETVAL_OP, [t], attrs, name=f"retval_{i}")
        func = attr_value_pb2.NameAttrList(name=self.name)
        # With each node's static output shapes: a copy of the body (a loop's gradient copies
        # its forward body) keeps what shape inference knew then (a TensorArray read's shape
        # comes from its Python object, not from its inputs), so shape arithmetic on them
        # stays constant as in TF.
        gd = graph_to_graph_def(self, add_shapes=True)
        func.attr[GRAPH_DEF_ATTR].s = gd.SerializeToString()
        if exports:
            func.attr[EXPORTS_ATTR].CopyFrom(attr_values.to_proto(list(exports)))
        return func


def _arg_name(t: Tensor) -> str:
    return t.op.name if t.value_index == 0 else f"{t.op.name}_{t.value_index}"


# ---- reading functions back ------------------------------------------------------------
@dataclass
class FunctionBody:
    """A serialised body, parsed: its nodes, arguments and results."""

    name: str
    graph_def: graph_pb2.GraphDef
    # Per argument, by index: (node name, dtype, static shape, is a reference).
    args: list[tuple[str, dtypes.DType, TensorShape, bool]]
    # Per result, by index: the body tensor ('op:idx') the _Retval reads.
    results: list[str]
    result_dtypes: list[dtypes.DType]
    exports: list[str]


def parse_function(func: Any, what: str = "function") -> FunctionBody:
    """Validates and parses a func attr made by FuncGraph.to_function."""
    if not isinstance(func, attr_value_pb2.NameAttrList) or GRAPH_DEF_ATTR not in func.attr:
        raise ValueError(f"{what} is not a function body (a func attr carrying a graph_def)")
    gd = graph_pb2.GraphDef.FromString(func.attr[GRAPH_DEF_ATTR].s)
    args: dict[int, tuple[str, dtypes.DType, TensorShape, bool]] = {}
    results: dict[int, tuple[str, dtypes.DType]] = {}
    for nd in gd.node:
        if nd.op in ARG_OPS or nd.op == RETVAL_OP:
            index = int(nd.attr["index"].i)
            dtype = dtypes.as_dtype(nd.attr["T"].type)
            table: dict[int, Any] = args if nd.op in ARG_OPS else results
            if index < 0 or index in table:
                raise ValueError(f"{what}: bad or repeated index {index} on node '{nd.name}'")
            if nd.op == RETVAL_OP:
                if len(nd.input) < 1 or nd.input[0].startswith("^"):
                    raise ValueError(f"{what}: _Retval '{nd.name}' has no input")
                src, idx, _ = parse_input(nd.input[0])
                results[index] = (f"{src}:{idx}", dtype)
            else:
                shape = (
                    TensorShape(nd.attr["shape"].shape) if "shape" in nd.attr else TensorShape(None)
                )
                args[index] = (nd.name, dtype, shape, nd.op == "_RefArg")
    for table, kind in ((args, "argument"), (results, "result")):
        if sorted(table) != list(range(len(table))):
            raise ValueError(f"{what}: {kind} indices are not 0..n-1: {sorted(table)}")
    exports: list[str] = []
    if EXPORTS_ATTR in func.attr:
        exports = [s.decode() for s in func.attr[EXPORTS_ATTR].list.s]
    return FunctionBody(
        name=func.name,
        graph_def=gd,
        args=[args[i] for i in range(len(args))],
        results=[results[i][0] for i in range(len(results))],
        result_dtypes=[results[i][1] for i in range(len(results))],
        exports=exports,
    )


def function_is_stateful(func: Any) -> bool:
    return nodes_are_stateful(parse_function(func).graph_def.node)


def nodes_are_stateful(nodes: Iterable[node_def_pb2.NodeDef]) -> bool:
    """Whether any of these nodes is of a stateful op type (If vs StatelessIf, ...)."""
    for nd in nodes:
        op_def = op_def_registry.lookup(nd.op)
        if op_def is not None and op_def.stateful:
            return True
    return False


def inline_function(
    body: FunctionBody,
    args: Sequence[Tensor | None],
    replacements: dict[str, Tensor] | None = None,
    results: Sequence[int] | None = None,
    check: Callable[[list[node_def_pb2.NodeDef]], None] | None = None,
) -> list[Tensor]:
    """Re-creates, in the default graph, the body's ops that the wanted results need.

    `replacements` maps body tensors ('op:idx') to tensors used in their place: their ops
    are not re-created (a gradient reuses values a forward op exported). An argument may
    be None when no needed op reads it. `results` picks results by index (default: all);
    `check` sees the needed nodes before any op is created (and may raise).
    """
    if len(args) != len(body.args):
        raise ValueError(f"{body.name} takes {len(body.args)} arguments, got {len(args)}")
    graph = get_default_graph()
    replacements = dict(replacements or {})
    replaced_ops = {name.rpartition(":")[0] for name in replacements}
    values: dict[str, Tensor | None] = {f"{a[0]}:0": t for a, t in zip(body.args, args)}
    wanted = [body.results[i] for i in (range(len(body.results)) if results is None else results)]
    by_name = {nd.name: nd for nd in body.graph_def.node}
    needed = _needed_nodes(by_name, wanted, replaced_ops)
    order = [nd for nd in _topological_order(body.graph_def, by_name) if nd.name in needed]
    if check is not None:
        check(order)
    created: dict[str, Operation] = {}

    def lookup(ref: str, consumer: str) -> Tensor:
        src, idx, _ = parse_input(ref)
        key = f"{src}:{idx}"
        t = replacements[key] if key in replacements else values.get(key)
        if t is None and src in created:
            t = created[src].outputs[idx]
        if t is None:
            raise ValueError(f"{body.name}: '{consumer}' needs '{key}', which is not available")
        return t

    for nd in order:
        inputs = [lookup(r, nd.name) for r in nd.input if not r.startswith("^")]
        controls = [created[r[1:]] for r in nd.input if r.startswith("^") and r[1:] in created]
        attrs = {k: attr_values.from_proto(k, v) for k, v in nd.attr.items()}
        attrs.pop("_class", None)
        attrs.pop(OUTPUT_SHAPES_ATTR, None)  # the inputs may be other tensors than the body's
        created[nd.name] = graph.create_op(
            nd.op, inputs, attrs, name=nd.name, control_inputs=controls
        )
    return [lookup(r, "result") for r in wanted]


def copy_function_body(body: FunctionBody, fg: FuncGraph) -> tuple[list[Tensor], list[Tensor]]:
    """Re-creates every node of a serialised body in the empty body `fg`, under the same
    names (so names of body tensors stay valid); returns its arguments and results."""
    by_name = {nd.name: nd for nd in body.graph_def.node}
    created: dict[str, Operation] = {}
    args: list[Tensor] = []
    with fg.as_default(), fg.name_scope(None), fg.control_dependencies(None):
        for name, dtype, shape, is_ref in body.args:
            t = fg.add_arg(dtype._as_ref if is_ref else dtype, shape, name)
            created[name] = t.op
            args.append(t)
        for nd in _topological_order(body.graph_def, by_name):
            if nd.op in ARG_OPS or nd.op == RETVAL_OP:
                continue
            inputs = []
            for r in nd.input:
                if r.startswith("^"):
                    continue
                src, idx, _ = parse_input(r)
                inputs.append(created[src].outputs[idx])
            controls = [created[r[1:]] for r in nd.input if r.startswith("^")]
            attrs = {k: attr_values.from_proto(k, v) for k, v in nd.attr.items()}
            shapes = attrs.pop(OUTPUT_SHAPES_ATTR, None) or ()
            op = Graph.create_op(fg, nd.op, inputs, attrs, name=nd.name, control_inputs=controls)
            for t, shape in zip(op.outputs, shapes):
                # Inference that disagrees with the record keeps what it says now.
                with contextlib.suppress(ValueError):
                    t.set_shape(shape)
            if nd.device:
                op._set_device(nd.device)
            created[nd.name] = op
    renamed = [n for n, op in created.items() if op.name != n]
    if renamed:
        raise ValueError(f"{body.name}: nodes {renamed[:3]} could not keep their names")
    results = []
    for ref in body.results:
        src, idx, _ = parse_input(ref)
        results.append(created[src].outputs[idx])
    return args, results


def _needed_nodes(
    by_name: dict[str, node_def_pb2.NodeDef], wanted: Sequence[str], replaced: set[str]
) -> set[str]:
    """Nodes (not arguments, not replaced) the wanted tensors depend on, controls included."""
    needed: set[str] = set()
    stack = [parse_input(w)[0] for w in wanted]
    while stack:
        name = stack.pop()
        if name in needed or name in replaced:
            continue
        nd = by_name[name]
        if nd.op in ARG_OPS:
            continue
        needed.add(name)
        stack.extend(parse_input(r)[0] for r in nd.input)
    return needed


# ---- nested structures (lists, tuples, dicts) --------------------------------------------
def flatten(structure: Any) -> list[Any]:
    """The leaves of a nest of dicts, lists and tuples; a SparseTensor is its three tensors."""
    if isinstance(structure, SparseTensor):
        return [structure.indices, structure.values, structure.dense_shape]
    if isinstance(structure, dict):
        return [x for k in sorted(structure) for x in flatten(structure[k])]
    if isinstance(structure, (list, tuple)):
        return [x for item in structure for x in flatten(item)]
    return [structure]


def pack_as(structure: Any, flat: Sequence[Any]) -> Any:
    it = iter(flat)

    def build(s: Any) -> Any:
        if isinstance(s, SparseTensor):
            return SparseTensor(next(it), next(it), next(it))
        if isinstance(s, dict):
            return {k: build(s[k]) for k in sorted(s)}
        if isinstance(s, (list, tuple)):
            items = [build(x) for x in s]
            if isinstance(s, tuple) and hasattr(s, "_fields"):  # namedtuple
                return type(s)(*items)
            return type(s)(items)
        return next(it)

    return build(structure)


def same_structure(a: Any, b: Any) -> bool:
    """Same nesting (lists and tuples count as the same kind; dicts need the same keys)."""
    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict)) or sorted(a) != sorted(b):
            return False
        return all(same_structure(a[k], b[k]) for k in a)
    if isinstance(a, SparseTensor) or isinstance(b, SparseTensor):
        return isinstance(a, SparseTensor) and isinstance(b, SparseTensor)
    a_seq, b_seq = isinstance(a, (list, tuple)), isinstance(b, (list, tuple))
    if a_seq != b_seq:
        return False
    if a_seq:
        return len(a) == len(b) and all(same_structure(x, y) for x, y in zip(a, b))
    return True


__all__ = [
    "ACCUMULATE_ATTR",
    "ARG_OPS",
    "SLICED_CAPTURES_ATTR",
    "FUNCTIONAL_OPS",
    "FuncGraph",
    "FunctionBody",
    "copy_function_body",
    "flatten",
    "function_is_stateful",
    "inline_function",
    "pack_as",
    "parse_function",
    "same_structure",
]


def builds_v2_control_flow(graph: Graph) -> bool:
    """Whether TF 1.15 builds control flow here as functional ops (cond_v2, while_v2,
    TensorList arrays): in a function's graph (a Dataset.map function, a tf.function), its
    branches and bodies included, but not in a TF1 cond branch or loop body of an ordinary
    graph, nor in their gradients."""
    while isinstance(graph, FuncGraph):
        if graph.traces_a_function:
            return True
        graph = graph._id_source if graph._id_source is not None else graph.outer_graph
    return False
