"""TF1's while loop frames in a MetaGraph, raised to tfcluster's functional While on import.

TF 1.15 differentiates a tf.while_loop it imported from a MetaGraph by rebuilding the loop's
WhileContext from the "while_context" collection and growing a second frame beside it.
tfcluster differentiates functional While ops instead, so import_meta_graph turns each frame
the collection names into one: the loop variables' Enter inputs and the invariants' (the
constant Enters') inputs become the While's inputs, the nodes between each Merge and the
LoopCond its cond function (the Merges its arguments), the nodes between each Switch's true
output and the NextIterations its body (the Identities its arguments). Each Exit stays as an
Identity of the While's output under the Exit's name, so names outside the loop still hold.

import_graph_def raises the frames tfcluster wrote for its own While ops (their LoopCond
carries a mark) too: a GraphDef has no contexts, and TF 1.15 cannot differentiate the loops
of one it imports, but tfcluster's graph could before it was written.

A frame is raised only when nothing outside it reads its inside (TF's own gradient loops read
the forward loop's stacks and counters): such graphs keep the frame, which runs as before.
A loop inside the body is raised too, in the body's own nodes (its frame must fit the same
way, or the outer loop stays as written).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tfcluster.framework.func_graph import (
    GRAPH_DEF_ATTR,
    OUTPUT_SHAPES_ATTR,
    RETVAL_OP,
    nodes_are_stateful,
)
from tfcluster.framework.graph_io import parse_input
from tfcluster.framework.tf_graph_forms import FUNCTIONAL_WHILE_MARK
from tfcluster.protos import (
    attr_value_pb2,
    control_flow_pb2,
    graph_pb2,
    node_def_pb2,
    tensor_shape_pb2,
    types_pb2,
)

WHILE_CONTEXT = "while_context"
COND_CONTEXT = "cond_context"
_ENTERS = ("Enter", "RefEnter")
# tfcluster's mark on the frames it wrote for its While ops (tf_graph_forms), before and
# after its importer takes the private prefix off.
_MARKS = (FUNCTIONAL_WHILE_MARK, FUNCTIONAL_WHILE_MARK[len("_tfcluster_") :])
_STACK_OPS = frozenset({"StackV2", "StackPushV2", "StackPopV2", "Stack", "StackPush", "StackPop"})


class NotLiftable(Exception):
    """The frame does not fit the form (read from outside, stacks of a gradient loop)."""


def _data(nd: node_def_pb2.NodeDef) -> list[str]:
    return [i for i in nd.input if not i.startswith("^")]


def _src(raw: str) -> str:
    return parse_input(raw.lstrip("^"))[0]


def _tensor(raw: str) -> tuple[str, int]:
    return parse_input(raw)[:2]


class LoopFrame:
    """One loop frame's structure, found from its Enter nodes."""

    def __init__(self, frame: str, nodes: Sequence[node_def_pb2.NodeDef]) -> None:
        self.name = frame
        self.by_name = {nd.name: nd for nd in nodes}
        consumers: dict[str, list[node_def_pb2.NodeDef]] = {}
        for nd in nodes:
            for raw in nd.input:
                consumers.setdefault(_src(raw), []).append(nd)
        self.consumers = consumers
        enters = [
            nd for nd in nodes if nd.op in _ENTERS and nd.attr["frame_name"].s.decode() == frame
        ]
        self.var_enters = [e for e in enters if not e.attr["is_constant"].b]
        self.const_enters = [e for e in enters if e.attr["is_constant"].b]
        self.merges, self.switches, self.exits, self.idents, self.nexts = [], [], [], [], []
        for e in self.var_enters:
            merge = self._only(e, "Merge")
            switch = self._only(merge, "Switch")
            nxt = self.by_name[_src(_data(merge)[1])]
            exit_ = self._output_user(switch, 0, "Exit")
            ident = self._output_user(switch, 1, "Identity")
            if nxt.op != "NextIteration" or ident is None:
                raise NotLiftable(f"{e.name}: not a loop variable's Merge/Switch")
            self.merges.append(merge)
            self.switches.append(switch)
            self.exits.append(exit_)
            self.idents.append(ident)
            self.nexts.append(nxt)
        if not self.var_enters:
            raise NotLiftable(f"{frame}: no loop variables")
        self.loop_cond = self.by_name[_src(_data(self.switches[0])[1])]
        self.members = self._members()

    def _only(self, nd: node_def_pb2.NodeDef, op: str) -> node_def_pb2.NodeDef:
        users = [u for u in self.consumers.get(nd.name, []) if u.op == op]
        if len(users) != 1:
            raise NotLiftable(f"{nd.name}: expected one {op} after it")
        return users[0]

    def _output_user(
        self, nd: node_def_pb2.NodeDef, index: int, op: str
    ) -> node_def_pb2.NodeDef | None:
        for user in self.consumers.get(nd.name, []):
            if user.op == op and any(_tensor(raw) == (nd.name, index) for raw in _data(user)):
                return user
        return None

    def _members(self) -> set[str]:
        """Every node inside the frame: reached from its Enters, up to its own Exits."""
        exits = {x.name for x in self.exits if x is not None}
        seen: set[str] = set()
        stack = [e.name for e in (*self.var_enters, *self.const_enters)]
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in exits:
                continue
            stack.extend(u.name for u in self.consumers.get(name, []))
        return seen


def _check_closed(frame: LoopFrame, nodes: Sequence[node_def_pb2.NodeDef]) -> None:
    """Nothing outside reads the inside but through an Exit; the inside reads the outside
    only through Enters; no stacks (a gradient loop of TF's own)."""
    exits = {x.name for x in frame.exits if x is not None}
    for nd in nodes:
        inside = nd.name in frame.members
        if inside and nd.op in _STACK_OPS:
            raise NotLiftable(f"{nd.name}: a stack of TF's gradient loop")
        for raw in nd.input:
            src = _src(raw)
            if src not in frame.by_name:
                continue
            if not inside and src in frame.members and src not in exits:
                raise NotLiftable(f"{nd.name} reads {src} inside the loop")
            if inside and nd.op not in _ENTERS and src not in frame.members:
                raise NotLiftable(f"{nd.name} reads {src} outside the loop")


def _shape_of(nd: node_def_pb2.NodeDef) -> tensor_shape_pb2.TensorShapeProto:
    if OUTPUT_SHAPES_ATTR in nd.attr and len(nd.attr[OUTPUT_SHAPES_ATTR].list.shape):
        return nd.attr[OUTPUT_SHAPES_ATTR].list.shape[0]
    return tensor_shape_pb2.TensorShapeProto(unknown_rank=True)


def _arg(
    name: str,
    index: int,
    dtype: int,
    shape: tensor_shape_pb2.TensorShapeProto,
    op: str = "_Arg",
) -> node_def_pb2.NodeDef:
    nd = node_def_pb2.NodeDef(name=name, op=op)
    nd.attr["T"].type = dtype  # type: ignore[assignment]
    nd.attr["index"].i = index
    nd.attr["shape"].shape.CopyFrom(shape)
    nd.attr[OUTPUT_SHAPES_ATTR].list.shape.add().CopyFrom(shape)
    return nd


def _ref_handle(
    enter: node_def_pb2.NodeDef, while_name: str, taken: set[str]
) -> node_def_pb2.NodeDef:
    """The _RefHandle passing a RefEnter's variable to the While, beside the variable."""
    name = f"{while_name}/RefHandle"
    k = 0
    while name in taken:
        k += 1
        name = f"{while_name}/RefHandle_{k}"
    taken.add(name)
    nd = node_def_pb2.NodeDef(name=name, op="_RefHandle", input=[_data(enter)[0]])
    nd.attr["T"].type = _dtype(enter)  # type: ignore[assignment]
    if "_class" in enter.attr:
        nd.attr["_class"].CopyFrom(enter.attr["_class"])
    else:
        nd.attr["_class"].list.s.append(b"loc:@" + _src(_data(enter)[0]).encode())
    return nd


def _retval(name: str, index: int, src: str, dtype: int) -> node_def_pb2.NodeDef:
    nd = node_def_pb2.NodeDef(name=name, op=RETVAL_OP, input=[src])
    nd.attr["T"].type = dtype  # type: ignore[assignment]
    nd.attr["index"].i = index
    return nd


def _upstream(roots: Iterable[str], frame: LoopFrame, stop: set[str]) -> set[str]:
    """The frame's nodes the roots need (data and control), not going past `stop`."""
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in seen or name in stop or name not in frame.members:
            continue
        seen.add(name)
        stack.extend(_src(raw) for raw in frame.by_name[name].input)
    return seen


def _function(
    name: str,
    frame: LoopFrame,
    inner: Sequence[str],
    args: Sequence[node_def_pb2.NodeDef],
    rename: dict[tuple[str, int], str],
    results: Sequence[tuple[str, int]],
    versions: graph_pb2.VersionDef,
    contexts: set[str],
    captures: set[str],
) -> attr_value_pb2.NameAttrList:
    """A cond or body: the arguments, the inner nodes in graph order (inputs renamed where
    they read an argument's tensor), the results; loops inside raised in turn."""
    gd = graph_pb2.GraphDef()
    gd.versions.CopyFrom(versions)
    gd.node.extend(args)
    arg_names = {a.name for a in args}
    for nd_name in inner:
        if nd_name in arg_names:
            continue
        nd = node_def_pb2.NodeDef()
        nd.CopyFrom(frame.by_name[nd_name])
        inputs = []
        for raw in nd.input:
            if raw.startswith("^"):
                # A control input on the pivot only kept the node in its frame; a function's
                # arguments are fed, so a node waiting on one would run the _Arg itself.
                if _src(raw) not in arg_names and (_src(raw), -1) not in rename:
                    inputs.append(raw)
                continue
            inputs.append(rename.get(_tensor(raw), raw))
        del nd.input[:]
        nd.input.extend(inputs)
        gd.node.append(nd)
    for k, (src, dtype) in enumerate(results):
        gd.node.append(_retval(f"retval_{k}", k, src, dtype))
    _drop_colocation_with_gone(gd, captures)
    lifted = lift_loops(gd, contexts)
    func = attr_value_pb2.NameAttrList(name=name)
    func.attr[GRAPH_DEF_ATTR].s = lifted.SerializeToString()
    return func


def _drop_colocation_with_gone(gd: graph_pb2.GraphDef, captures: set[str]) -> None:
    """Colocation with a node the body lacks, or with an invariant's Enter (an argument
    here; written out again, the loop's invariants enter under new names), is dropped."""
    present = {nd.name for nd in gd.node} - captures
    for nd in gd.node:
        if "_class" not in nd.attr:
            continue
        values = nd.attr["_class"].list.s
        kept = [v for v in values if not v.startswith(b"loc:@") or v[5:].decode() in present]
        if len(kept) == len(values):
            continue
        if kept:
            del values[:]
            values.extend(kept)
        else:
            del nd.attr["_class"]


def _dtype(nd: node_def_pb2.NodeDef) -> int:
    return int(nd.attr["T"].type)


def _lift_frame(
    frame: LoopFrame,
    order: Sequence[str],
    taken: set[str],
    versions: graph_pb2.VersionDef,
    contexts: set[str],
) -> tuple[list[node_def_pb2.NodeDef], dict[str, node_def_pb2.NodeDef]]:
    """The While node and an Identity per Exit (by the Exit's name) for one frame."""
    n = len(frame.var_enters)
    base = (
        frame.name[: -len("/while_context")]
        if frame.name.endswith("/while_context")
        else frame.name
    )
    while_name = base
    k = 0
    while while_name in taken:
        k += 1
        while_name = f"{base}_{k}"
    taken.add(while_name)
    var_types = [_dtype(m) for m in frame.merges]
    # A variable entering by reference (RefEnter: the body assigns it) reaches the functions
    # as the variable itself, as tfcluster's own While takes one: a _RefHandle outside, a
    # _RefArg inside.
    ref_caps = [e.op == "RefEnter" for e in frame.const_enters]
    cap_types = [
        types_pb2.DT_RESOURCE if ref else _dtype(e) for e, ref in zip(frame.const_enters, ref_caps)
    ]
    cap_arg_ops = ["_RefArg" if ref else "_Arg" for ref in ref_caps]
    shapes = [_shape_of(m) for m in frame.merges]
    cap_shapes = [_shape_of(e) for e in frame.const_enters]
    structural = {
        *(nd.name for nd in (*frame.var_enters, *frame.merges, *frame.switches, *frame.nexts)),
        *(x.name for x in frame.exits if x is not None),
        frame.loop_cond.name,
    }
    const_names = {e.name for e in frame.const_enters}
    in_order = [name for name in order if name in frame.members]
    # cond: from the Merges to the LoopCond's input.
    (pred,) = _data(frame.loop_cond)
    cond_nodes = _upstream([_src(pred)], frame, {m.name for m in frame.merges} | const_names)
    cond_args = [
        _arg(m.name, k, t, s) for k, (m, t, s) in enumerate(zip(frame.merges, var_types, shapes))
    ]
    cond_args += [
        _arg(e.name, n + j, _dtype(e), s, op)
        for j, (e, s, op) in enumerate(zip(frame.const_enters, cap_shapes, cap_arg_ops))
    ]
    cond_rename = {(m.name, 0): m.name for m in frame.merges}
    cond_func = _function(
        f"{while_name}/cond",
        frame,
        [x for x in in_order if x in cond_nodes],
        cond_args,
        cond_rename,
        [(pred, 10)],  # DT_BOOL
        versions,
        contexts,
        const_names,
    )
    # body: every other inside node, from the Identities to the NextIterations' inputs.
    ident_names = {i.name for i in frame.idents}
    body_nodes = [
        x
        for x in in_order
        if x not in structural
        and x not in cond_nodes
        and x not in const_names
        and x not in ident_names
    ]
    body_args = [
        _arg(i.name, k, t, s) for k, (i, t, s) in enumerate(zip(frame.idents, var_types, shapes))
    ]
    body_args += [
        _arg(e.name, n + j, _dtype(e), s, op)
        for j, (e, s, op) in enumerate(zip(frame.const_enters, cap_shapes, cap_arg_ops))
    ]
    body_rename: dict[tuple[str, int], str] = {}
    for s, i in zip(frame.switches, frame.idents):
        body_rename[(s.name, 1)] = i.name
        body_rename[(s.name, -1)] = i.name
    for name in body_nodes:
        for raw in frame.by_name[name].input:
            src = _src(raw)
            if src in frame.members and src in structural and (src, 1) not in body_rename:
                raise NotLiftable(f"{name} reads {src} of the loop's structure")
            if src in cond_nodes:
                raise NotLiftable(f"{name} reads {src} of the loop's condition")
    body_func = _function(
        f"{while_name}/body",
        frame,
        body_nodes,
        body_args,
        body_rename,
        [(_data(nx)[0], t) for nx, t in zip(frame.nexts, var_types)],
        versions,
        contexts,
        const_names,
    )
    bodies = [
        graph_pb2.GraphDef.FromString(f.attr[GRAPH_DEF_ATTR].s).node for f in (cond_func, body_func)
    ]
    stateful = any(nodes_are_stateful(b) for b in bodies)
    handles = {
        e.name: _ref_handle(e, while_name, taken)
        for e, ref in zip(frame.const_enters, ref_caps)
        if ref
    }
    loop = node_def_pb2.NodeDef(
        name=while_name,
        op="While" if stateful else "StatelessWhile",
        input=[_data(e)[0] for e in frame.var_enters]
        + [handles[e.name].name if e.name in handles else _data(e)[0] for e in frame.const_enters],
        device=frame.loop_cond.device,
    )
    controls = sorted(
        {
            raw
            for e in (*frame.var_enters, *frame.const_enters)
            for raw in e.input
            if raw.startswith("^")
        }
    )
    loop.input.extend(controls)
    loop.attr["T"].list.type.extend(var_types)
    loop.attr["Tcaptures"].list.type.extend(cap_types)
    loop.attr["output_shapes"].list.shape.extend(shapes)
    loop.attr["cond"].func.CopyFrom(cond_func)
    loop.attr["body"].func.CopyFrom(body_func)
    parallel = frame.var_enters[0].attr["parallel_iterations"].i
    loop.attr["parallel_iterations"].i = int(parallel) or 10
    loop.attr["back_prop"].b = True
    loop.attr["has_maximum_iterations"].b = False
    outs: dict[str, node_def_pb2.NodeDef] = {}
    for k, (x, t) in enumerate(zip(frame.exits, var_types)):
        if x is None:
            continue
        ident = node_def_pb2.NodeDef(
            name=x.name, op="Identity", input=[f"{while_name}:{k}"], device=x.device
        )
        ident.attr["T"].type = t  # type: ignore[assignment]
        for key in ("_class", OUTPUT_SHAPES_ATTR):
            if key in x.attr:
                ident.attr[key].CopyFrom(x.attr[key])
        outs[x.name] = ident
    return [*handles.values(), loop], outs


def _outer_frames(nodes: Sequence[node_def_pb2.NodeDef]) -> list[str]:
    """The frames whose Enters read no other frame's inside (the outermost loops here)."""
    enters = [nd for nd in nodes if nd.op in _ENTERS]
    names = {nd.attr["frame_name"].s.decode() for nd in enters}
    nested: set[str] = set()
    for frame in names:
        try:
            f = LoopFrame(frame, nodes)
        except (NotLiftable, KeyError, IndexError):
            continue
        nested |= {
            nd.attr["frame_name"].s.decode()
            for nd in enters
            if nd.name in f.members and nd.attr["frame_name"].s.decode() != frame
        }
    return sorted(names - nested)


def _marked(loop_cond: node_def_pb2.NodeDef) -> bool:
    return any(key in loop_cond.attr for key in _MARKS)


def has_marked_loops(graph_def: graph_pb2.GraphDef) -> bool:
    return any(nd.op == "LoopCond" and _marked(nd) for nd in graph_def.node)


def lift_loops(graph_def: graph_pb2.GraphDef, contexts: set[str]) -> graph_pb2.GraphDef:
    """A copy of the GraphDef with each outermost loop frame named in `contexts`, or
    written by tfcluster for one of its While ops, raised to a While (those that do not fit
    stay as written)."""
    nodes = list(graph_def.node)
    out = graph_pb2.GraphDef()
    out.CopyFrom(graph_def)
    for frame_name in _outer_frames(nodes):
        try:
            frame = LoopFrame(frame_name, nodes)
            if frame_name not in contexts and not _marked(frame.loop_cond):
                continue
            _check_closed(frame, nodes)
            order = [nd.name for nd in nodes]
            taken = {nd.name for nd in nodes}
            made, exits = _lift_frame(frame, order, taken, out.versions, contexts)
        except (NotLiftable, KeyError, IndexError, ValueError):
            continue
        kept: list[node_def_pb2.NodeDef] = []
        placed = False
        for nd in nodes:
            if nd.name in exits:
                if not placed:
                    kept.extend(made)
                    placed = True
                kept.append(exits[nd.name])
            elif nd.name not in frame.members:
                kept.append(nd)
        if not placed:
            kept.extend(made)
        nodes = kept
    del out.node[:]
    out.node.extend(nodes)
    return out


def frames_in(graph_def: graph_pb2.GraphDef) -> set[str]:
    return {nd.attr["frame_name"].s.decode() for nd in graph_def.node if nd.op in _ENTERS}


def while_context_names(raw_contexts: Iterable[bytes]) -> set[str]:
    """The frame names of the WhileContextDefs (nested ones included)."""
    names: set[str] = set()

    def visit(ctx: control_flow_pb2.WhileContextDef) -> None:
        names.add(ctx.context_name)
        for nested in ctx.nested_contexts:
            if nested.HasField("while_ctxt"):
                visit(nested.while_ctxt)

    for raw in raw_contexts:
        visit(control_flow_pb2.WhileContextDef.FromString(raw))
    return names


def context_pivot(key: str, raw: bytes) -> str:
    """The node a context's pivot names (gone once its loop was raised)."""
    proto = (
        control_flow_pb2.WhileContextDef
        if key == WHILE_CONTEXT
        else control_flow_pb2.CondContextDef
    ).FromString(raw)
    return _src(proto.pivot_name)


__all__ = [
    "COND_CONTEXT",
    "context_pivot",
    "has_marked_loops",
    "WHILE_CONTEXT",
    "frames_in",
    "lift_loops",
    "while_context_names",
]
