"""The WhileContextDef of each TF1 while loop frame in an exported GraphDef, as TF 1.15's
tf.while_loop writes it into a MetaGraph's "while_context" collection.

TF 1.15 rebuilds a loop's WhileContext from it on import_meta_graph, and needs it to
differentiate the loop there. The collection lists the outermost loops; a loop inside
another is in its `nested_contexts`. A context's values are the outputs of the nodes in its
own frame (its Enters and Exits included, a nested loop's Exits too, a nested loop's inside
not), and the outer tensors entering as loop invariants, which `external_values` maps to
their Enters' outputs.
"""

from __future__ import annotations

from collections.abc import Iterable

from tfcluster.framework import op_signatures
from tfcluster.framework.graph_io import parse_input
from tfcluster.framework.v1_loop_lift import LoopFrame, NotLiftable, frames_in
from tfcluster.protos import control_flow_pb2, graph_pb2, node_def_pb2


def _num_outputs(nd: node_def_pb2.NodeDef) -> int:
    sig = op_signatures.lookup(nd.op)
    if sig is None:
        return 1
    count = 0
    for arg in sig.outputs:
        if arg.number_attr is not None:
            count += int(nd.attr[arg.number_attr].i) if arg.number_attr in nd.attr else 1
        elif arg.type_list_attr is not None:
            count += len(nd.attr[arg.type_list_attr].list.type)
        else:
            count += 1
    return count


def _tensor(raw: str) -> str:
    src, idx, _ = parse_input(raw)
    return f"{src}:{idx}"


def while_context_defs(
    graph_def: graph_pb2.GraphDef, skip: Iterable[str] = ()
) -> list[control_flow_pb2.WhileContextDef]:
    """The contexts of the outermost frames (those named in `skip` left out, with what they
    hold), nested loops inside them."""
    nodes = list(graph_def.node)
    by_name = {nd.name: nd for nd in nodes}
    frames: dict[str, LoopFrame] = {}
    for name in sorted(frames_in(graph_def)):
        try:
            frames[name] = LoopFrame(name, nodes)
        except (NotLiftable, KeyError, IndexError):
            continue
    # A frame's parent: the smallest other frame holding its Enters.
    parent: dict[str, str | None] = {}
    for name, frame in frames.items():
        holders = [
            other
            for other, f in frames.items()
            if other != name and frame.var_enters[0].name in f.members
        ]
        parent[name] = min(holders, key=lambda o: len(frames[o].members)) if holders else None
    children: dict[str, list[str]] = {name: [] for name in frames}
    for name, p in parent.items():
        if p is not None:
            children[p].append(name)

    def context(name: str) -> control_flow_pb2.WhileContextDef:
        frame = frames[name]
        inner: set[str] = set()
        for child in children[name]:
            inner |= frames[child].members
        own = (frame.members - inner) | {
            x.name for child in children[name] for x in frames[child].exits if x is not None
        }
        values: set[str] = set()
        for node_name in own:
            nd = by_name[node_name]
            values.update(f"{node_name}:{k}" for k in range(_num_outputs(nd)))
        ctx = control_flow_pb2.WhileContextDef(
            context_name=name,
            parallel_iterations=int(frame.var_enters[0].attr["parallel_iterations"].i) or 10,
            back_prop=True,
            pivot_name=f"{frame.loop_cond.name}:0",
            pivot_for_pred_name=f"{frame.merges[0].name}:0",
            pivot_for_body_name=f"{frame.idents[0].name}:0",
        )
        ctx.loop_exit_names.extend(f"{x.name}:0" for x in frame.exits if x is not None)
        ctx.loop_enter_names.extend(f"{e.name}:0" for e in frame.var_enters)
        # The loop invariants' outer tensors (not the loop variables' initial values: TF
        # would take their ops for ops of the loop).
        for enter in frame.const_enters:
            values.add(_tensor(enter.input[0]))
            ctx.values_def.external_values[_tensor(enter.input[0])] = f"{enter.name}:0"
        ctx.values_def.values.extend(sorted(values))
        for child in sorted(children[name]):
            ctx.nested_contexts.add().while_ctxt.CopyFrom(context(child))
        for cond in _cond_context_defs(nodes, frame.members - inner):
            ctx.nested_contexts.add().cond_ctxt.CopyFrom(cond)
        return ctx

    skipped = set(skip)
    return [
        context(name) for name in sorted(frames) if parent[name] is None and name not in skipped
    ]


def _cond_context_defs(
    nodes: list[node_def_pb2.NodeDef], members: set[str]
) -> list[control_flow_pb2.CondContextDef]:
    """The CondContextDef of each branch of the TF1 conds among `members` (a loop's own
    nodes), as tf.cond writes them: the cond's Switch(pred, pred) gives the branches' pivots
    (switch_t, switch_f) and pred_id; a branch holds what its pivot and its inputs' Switch
    outputs reach and the other branch does not. TF 1.15 differentiates a cond in a loop
    through them (without, it takes the cond's Switches for the loop's)."""
    by_name = {nd.name: nd for nd in nodes}
    consumers: dict[str, list[node_def_pb2.NodeDef]] = {}
    for nd in nodes:
        for raw in nd.input:
            consumers.setdefault(parse_input(raw)[0], []).append(nd)
    out = []
    for sw in nodes:
        if sw.name not in members or sw.op != "Switch" or len(sw.input) < 2:
            continue
        if parse_input(sw.input[0])[:2] != parse_input(sw.input[1])[:2]:
            continue  # not a cond's own Switch(pred, pred)
        pred = parse_input(sw.input[1])[0]
        pivots: dict[int, str] = {}
        for user in consumers.get(sw.name, []):
            if user.op == "Identity" and user.name in members:
                pivots[parse_input(user.input[0])[1]] = user.name
        pred_ids = [
            u.name for u in consumers.get(pred, []) if u.op == "Identity" and u.name in members
        ]
        inputs = [
            u
            for pid in pred_ids
            for u in consumers.get(pid, [])
            if u.op == "Switch" and parse_input(u.input[1])[0] == pid
        ]
        if set(pivots) != {0, 1} or len(pred_ids) != 1 or not inputs:
            continue
        used = {b: [i for i in inputs if _port_read(i.name, b, consumers)] for b in (0, 1)}
        reach = {
            b: _reach([pivots[b]], [(i.name, b) for i in used[b]], consumers, by_name)
            for b in (0, 1)
        }
        scope = sw.name[: -len("/Switch")] if sw.name.endswith("/Switch") else sw.name
        for branch, suffix in ((1, "cond_text"), (0, "cond_text_1")):
            own = (reach[branch] - reach[1 - branch]) & members
            ctx = control_flow_pb2.CondContextDef(
                context_name=f"{scope}/{suffix}",
                pred_name=f"{pred_ids[0]}:0",
                pivot_name=f"{pivots[branch]}:0",
                branch=branch,
            )
            values = {f"{n}:{k}" for n in own for k in range(_num_outputs(by_name[n]))}
            values.add(f"{pred_ids[0]}:0")
            ctx.values_def.external_values[f"{pred_ids[0]}:0"] = f"{pred_ids[0]}:0"
            for i in used[branch]:
                outer = _tensor(i.input[0])
                values.add(outer)
                values.add(f"{i.name}:{branch}")
                ctx.values_def.external_values[outer] = f"{i.name}:{branch}"
            ctx.values_def.values.extend(sorted(values))
            out.append(ctx)
    return out


def _port_read(name: str, port: int, consumers: dict[str, list[node_def_pb2.NodeDef]]) -> bool:
    return any(
        not raw.startswith("^") and parse_input(raw)[:2] == (name, port)
        for user in consumers.get(name, [])
        for raw in user.input
    )


def _reach(
    starts: list[str],
    ports: list[tuple[str, int]],
    consumers: dict[str, list[node_def_pb2.NodeDef]],
    by_name: dict[str, node_def_pb2.NodeDef],
) -> set[str]:
    """The nodes reached forward from `starts` and from the given Switch outputs, up to
    the Merges."""
    seen: set[str] = set()
    stack = list(starts)
    for name, port in ports:
        for user in consumers.get(name, []):
            if any(
                not raw.startswith("^") and parse_input(raw)[:2] == (name, port)
                for raw in user.input
            ):
                stack.append(user.name)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        if by_name[name].op in ("Merge", "RefMerge"):
            continue  # the cond's own Merge ends the branch (past it: the loop's back edge)
        stack.extend(u.name for u in consumers.get(name, []) if u.name not in seen)
    return seen


__all__ = ["while_context_defs"]
