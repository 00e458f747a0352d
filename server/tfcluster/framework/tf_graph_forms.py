"""tfcluster's own node forms, rewritten as TF 1.15 writes the same computation (for export).

- A While whose bodies read outer tensors takes them as extra inputs (`Tcaptures`) and a
  `maximum_iterations` input (`has_maximum_iterations`); TF's while_v2 makes every one a loop
  variable, with an iteration counter and the limit beside the user's loop variables. The
  rewritten loop keeps the output positions of the loop variables, and output n (tfcluster's
  iteration count) is the counter.
- A functional op reads a ref variable through a `_RefHandle` (the body gets a `_RefArg`);
  where no body writes it, TF's form passes the variable's value (an Identity).
- `_InitializedValue` (Variable.initialized_value) is TF's cond on IsVariableInitialized:
  RefSwitch / Switch / Merge, the Merge under the node's name.
- An If whose body updates a ref variable (Keras BatchNormalization's moving averages under
  the learning phase) is TF1's Switch/Merge cond, as TF 1.15 builds it: TF functions cannot
  take a ref variable.
- A While whose body updates a ref variable is TF1's while loop frame (Enter / Merge /
  Switch / Identity / NextIteration / Exit / LoopCond, the variable entering through a
  RefEnter), as TF 1.15's tf.while_loop builds it.

A loop that keeps values for its gradient (`accumulate`) pushes them onto TensorLists, as
TF's while_v2 does, and its gradient loop pops them (`sliced_captures`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple, TypeVar

from tfcluster.framework import dtypes, op_def_registry, op_signatures
from tfcluster.framework.func_graph import (
    ACCUMULATE_ATTR,
    ARG_OPS,
    GRAPH_DEF_ATTR,
    OUTPUT_SHAPES_ATTR,
    RETVAL_OP,
    SLICED_CAPTURES_ATTR,
)
from tfcluster.framework.graph_io import parse_input
from tfcluster.protos import attr_value_pb2, graph_pb2, node_def_pb2, tensor_shape_pb2

_WHILE_OPS = ("While", "StatelessWhile")
# On the LoopCond of a frame written for one of tfcluster's While ops (TF keeps an attr
# named with "_"; tfcluster's importer drops the prefix).
FUNCTIONAL_WHILE_MARK = "_tfcluster_functional_while"
_IF_OPS = ("If", "StatelessIf")
_INT32 = dtypes.int32.as_datatype_enum
_BOOL = dtypes.bool_.as_datatype_enum
_INT32_MAX = 2**31 - 1
# Where a functional op's body arguments start among its inputs (If's first is the predicate).
_ARG_OFFSET = {"If": 1, "StatelessIf": 1}
_BODY_ATTRS = ("then_branch", "else_branch", "cond", "body", "f")


def _body(func: attr_value_pb2.NameAttrList) -> graph_pb2.GraphDef:
    return graph_pb2.GraphDef.FromString(func.attr[GRAPH_DEF_ATTR].s)


def _set_body(func: attr_value_pb2.NameAttrList, gd: graph_pb2.GraphDef) -> None:
    func.attr[GRAPH_DEF_ATTR].s = gd.SerializeToString()


def _const(name: str, dtype: int, value: int | bool, device: str = "") -> node_def_pb2.NodeDef:
    nd = node_def_pb2.NodeDef(name=name, op="Const", device=device)
    nd.attr["dtype"].type = dtype  # type: ignore[assignment]
    tensor = nd.attr["value"].tensor
    tensor.dtype = dtype  # type: ignore[assignment]
    tensor.tensor_shape.SetInParent()
    if dtype == _BOOL:
        tensor.bool_val.append(bool(value))
    else:
        tensor.int_val.append(int(value))
    nd.attr[OUTPUT_SHAPES_ATTR].list.shape.add()
    return nd


def _unique(name: str, taken: set[str]) -> str:
    candidate, k = name, 1
    while candidate in taken:
        candidate = f"{name}_{k}"
        k += 1
    taken.add(candidate)
    return candidate


_T = TypeVar("_T")
_REWRITTEN_OPS = frozenset({"_InitializedValue", "_RefHandle", *_WHILE_OPS})


def needs_rewrite(nodes: Iterable[node_def_pb2.NodeDef]) -> bool:
    """Whether any node has a form `rewrite` changes."""
    return any(nd.op in _REWRITTEN_OPS for nd in nodes)


def rewrite(
    nodes: Iterable[node_def_pb2.NodeDef], v1_loops: bool = False
) -> list[node_def_pb2.NodeDef]:
    """The nodes with tfcluster's forms in TF's (new nodes placed before their users).
    `v1_loops` (a graph's top level, not a function body): every While not yet
    differentiated becomes TF1's while loop frame, as TF 1.15's tf.while_loop writes it (a
    plain TF 1.15 program cannot differentiate an imported functional While: while_v2, which
    registers its gradient, is loaded only with control flow v2 on); loops in its body too."""
    nodes = [_copy(nd) for nd in nodes]
    taken = {nd.name for nd in nodes}
    while True:
        by_name = {nd.name: nd for nd in nodes}
        _ref_reads(nodes, by_name)
        readers = _readers(nodes)
        out: list[node_def_pb2.NodeDef] = []
        folded: list[node_def_pb2.NodeDef] = []  # stand-ins whose Merge/Exit took their name
        again = False
        for nd in nodes:
            if nd.op == "_InitializedValue":
                out.extend(_initialized_value(nd, taken))
            elif _writes_variable(nd, by_name):
                names = _stand_ins(nd, readers, "Merge", folded)
                out.extend(_if_as_v1_cond(nd, by_name, taken, names))
            elif _loop_writes_variable(nd, by_name) or (v1_loops and _plain_loop(nd)):
                plain = v1_loops and _plain_loop(nd)
                names = _stand_ins(nd, readers, "Exit", folded)
                made = _while_as_v1_loop(nd, by_name, taken, _reads_output(nodes, nd), plain, names)
                again = again or any(_plain_loop(m) for m in made if m is not nd)
                out.extend(made)
            elif nd.op in _WHILE_OPS and _while_needs_rewrite(nd):
                out.extend(_while(nd, taken))
            else:
                out.append(nd)
        gone = {id(nd) for nd in folded}
        out = [nd for nd in out if id(nd) not in gone]
        # Handles no op reads any more (their Ifs became conds on the variables themselves).
        read = {parse_input(raw)[0] for nd in out for raw in nd.input}
        nodes = [nd for nd in out if nd.op != "_RefHandle" or nd.name in read]
        if not again:
            return nodes


def _readers(nodes: Iterable[node_def_pb2.NodeDef]) -> dict[str, list[node_def_pb2.NodeDef]]:
    """Node name -> the nodes that read it (data or control)."""
    out: dict[str, list[node_def_pb2.NodeDef]] = {}
    for nd in nodes:
        for raw in nd.input:
            out.setdefault(_src(raw), []).append(nd)
    return out


def _src(raw: str) -> str:
    return parse_input(raw)[0]


class _V1Results(NamedTuple):
    """How a lowered cond or loop returns its results: `names`, output index -> the name its
    Merge or Exit takes; `identity_n`, whether an IdentityN under the op's name returns them
    too (for nodes that read the op itself)."""

    names: dict[int, str]
    identity_n: bool


def _stand_ins(
    nd: node_def_pb2.NodeDef,
    readers: dict[str, list[node_def_pb2.NodeDef]],
    kind: str,
    folded: list[node_def_pb2.NodeDef],
) -> _V1Results:
    """The Identities that stand for TF1's Merges or Exits of the op's outputs
    (control_flow_ops names a cond's results `<scope>/Merge_<k>`, a loop's `<scope>/Exit_<k>`):
    written as TF1's frame, that Merge or Exit is the node itself, under the name (TF has no
    Identity there). Those Identities go into `folded`."""
    pattern = re.compile(re.escape(nd.name) + "/" + kind + r"(_\d+)?$")
    names: dict[int, str] = {}
    for user in readers.get(nd.name, []):
        if user.op != "Identity" or len(user.input) != 1 or not pattern.match(user.name):
            continue
        src, index, is_control = parse_input(user.input[0])
        if is_control or src != nd.name or index in names:
            continue
        names[index] = user.name
        folded.append(user)
    taken = set(names.values())
    others = any(u.name not in taken for u in readers.get(nd.name, []))
    return _V1Results(names, others or not names)


def _plain_loop(nd: node_def_pb2.NodeDef) -> bool:
    """A While of tfcluster's own not differentiated yet (no values kept, none popped)."""
    if nd.op not in _WHILE_OPS:
        return False
    for key in ("cond", "body"):
        if key not in nd.attr or GRAPH_DEF_ATTR not in nd.attr[key].func.attr:
            return False
    for key in (ACCUMULATE_ATTR, SLICED_CAPTURES_ATTR):
        if key in nd.attr and len(nd.attr[key].list.s or nd.attr[key].list.i):
            return False
    return True


def _copy(nd: node_def_pb2.NodeDef) -> node_def_pb2.NodeDef:
    out = node_def_pb2.NodeDef()
    out.CopyFrom(nd)
    return out


# ---- _InitializedValue ---------------------------------------------------------------------
def _initialized_value(nd: node_def_pb2.NodeDef, taken: set[str]) -> list[node_def_pb2.NodeDef]:
    ref, initial = [i for i in nd.input if not i.startswith("^")]
    controls = [i for i in nd.input if i.startswith("^")]
    t = nd.attr["T"].type
    scope = nd.name
    is_init = node_def_pb2.NodeDef(
        name=_unique(f"{scope}/IsVariableInitialized", taken),
        op="IsVariableInitialized",
        input=[ref, *controls],
        device=nd.device,
    )
    is_init.attr["dtype"].type = t
    ref_switch = node_def_pb2.NodeDef(
        name=_unique(f"{scope}/read/Switch", taken),
        op="RefSwitch",
        input=[ref, is_init.name],
        device=nd.device,
    )
    ref_switch.attr["T"].type = t
    read = node_def_pb2.NodeDef(
        name=_unique(f"{scope}/read", taken),
        op="Identity",
        input=[f"{ref_switch.name}:1"],
        device=nd.device,
    )
    read.attr["T"].type = t
    init_switch = node_def_pb2.NodeDef(
        name=_unique(f"{scope}/Switch_1", taken),
        op="Switch",
        input=[initial, is_init.name],
        device=nd.device,
    )
    init_switch.attr["T"].type = t
    merge = node_def_pb2.NodeDef(
        name=nd.name, op="Merge", input=[init_switch.name, read.name], device=nd.device
    )
    merge.attr["T"].type = t
    merge.attr["N"].i = 2
    for key in ("_class", OUTPUT_SHAPES_ATTR):
        if key in nd.attr:
            merge.attr[key].CopyFrom(nd.attr[key])
    if OUTPUT_SHAPES_ATTR in merge.attr:
        merge.attr[OUTPUT_SHAPES_ATTR].list.shape.add()  # value_index: a scalar
    for helper in (is_init, ref_switch, read, init_switch):
        if "_class" in nd.attr:
            helper.attr["_class"].CopyFrom(nd.attr["_class"])
    return [is_init, ref_switch, read, init_switch, merge]


# ---- If whose bodies write a variable: TF1's Switch/Merge cond -------------------------------
def _writes_variable(nd: node_def_pb2.NodeDef, by_name: dict[str, node_def_pb2.NodeDef]) -> bool:
    """An If still given a variable through a _RefHandle (a body updates it) and returning
    something (TF passes a variable into a function only as a resource)."""
    if nd.op not in _IF_OPS or not len(nd.attr["Tout"].list.type):
        return False
    for key in ("then_branch", "else_branch"):
        if key not in nd.attr or GRAPH_DEF_ATTR not in nd.attr[key].func.attr:
            return False
    return any(
        (src := by_name.get(parse_input(raw)[0])) is not None and src.op == "_RefHandle"
        for raw in nd.input
        if not raw.startswith("^")
    )


def _if_as_v1_cond(
    nd: node_def_pb2.NodeDef,
    by_name: dict[str, node_def_pb2.NodeDef],
    taken: set[str],
    results_as: _V1Results,
) -> list[node_def_pb2.NodeDef]:
    """The If as TF1's cond writes it: the predicate's Switch gives each branch its pivot,
    every input a (Ref)Switch, each branch's nodes are inlined under <name>/then|else, each
    result a Merge of the two branches (under the name `results_as` gives it), and an
    IdentityN under the If's name returns them where `results_as` asks for one."""
    scope = nd.name
    data = [i for i in nd.input if not i.startswith("^")]
    controls = [i for i in nd.input if i.startswith("^")]
    pred, args = data[0], data[1:]
    out: list[node_def_pb2.NodeDef] = []

    def add(
        name: str, op: str, inputs: Sequence[str], unique: bool = True, **type_attrs: int
    ) -> node_def_pb2.NodeDef:
        full = _unique(f"{scope}/{name}", taken) if unique else name
        node = node_def_pb2.NodeDef(name=full, op=op, input=list(inputs), device=nd.device)
        for key, value in type_attrs.items():
            node.attr[key].type = value  # type: ignore[assignment]
        out.append(node)
        return node

    switch_pred = add("switch_pred", "Switch", [pred, pred, *controls], T=_BOOL)
    pivots = {
        1: add("switch_t", "Identity", [f"{switch_pred.name}:1"], T=_BOOL).name,
        0: add("switch_f", "Identity", [f"{switch_pred.name}:0"], T=_BOOL).name,
    }
    switches = []
    for i, raw in enumerate(args):
        src = by_name.get(parse_input(raw)[0])
        if src is not None and src.op == "_RefHandle":
            (ref,) = [r for r in src.input if not r.startswith("^")]
            sw = add(f"Switch_{i}", "RefSwitch", [ref, pred], T=src.attr["T"].type)
        else:
            sw = add(f"Switch_{i}", "Switch", [raw, pred], T=nd.attr["Tin"].list.type[i])
        switches.append(sw.name)
    results: dict[int, list[str]] = {}
    for key, port, label in (("then_branch", 1, "then"), ("else_branch", 0, "else")):
        results[port] = _inline_branch(
            _body(nd.attr[key].func), f"{label}/", switches, port, pivots[port], add
        )
    merges = []
    for k, dtype in enumerate(nd.attr["Tout"].list.type):
        pair = [results[0][k], results[1][k]]
        if k in results_as.names:  # the stand-in's name (already taken, by it)
            merge = add(results_as.names[k], "Merge", pair, unique=False, T=dtype)
        else:
            merge = add(f"Merge_{k}", "Merge", pair, T=dtype)
        merge.attr["N"].i = 2
        merges.append(f"{merge.name}:0")
    if not results_as.identity_n:
        return out
    final = node_def_pb2.NodeDef(name=nd.name, op="IdentityN", input=merges, device=nd.device)
    final.attr["T"].list.type.extend(nd.attr["Tout"].list.type)
    for key in ("_class", OUTPUT_SHAPES_ATTR):
        if key in nd.attr:
            final.attr[key].CopyFrom(nd.attr[key])
    out.append(final)
    return out


def _inline_nodes(
    gd: graph_pb2.GraphDef,
    prefix: str,
    args: dict[str, str],
    arg_controls: dict[str, str],
    pivot: str,
    add: Callable[..., node_def_pb2.NodeDef],
) -> tuple[list[tuple[node_def_pb2.NodeDef, node_def_pb2.NodeDef]], Callable[[str], str]]:
    """A function body's nodes copied into the graph under `prefix` (names made unique),
    an argument read as the tensor `args` names and waited for as `arg_controls` says; a node
    without data inputs waits for `pivot` (it runs only in its branch / loop frame). Returns
    the (body node, copy) pairs and the map from a body input to the graph's."""
    names: dict[str, str] = {}
    inlined: list[tuple[node_def_pb2.NodeDef, node_def_pb2.NodeDef]] = []
    for node in gd.node:
        if node.op in ARG_OPS or node.op == RETVAL_OP:
            continue
        copy = add(prefix + node.name, node.op, [])
        for key, value in node.attr.items():
            copy.attr[key].CopyFrom(value)
        names[node.name] = copy.name
        inlined.append((node, copy))

    def ref(raw: str) -> str:
        src, idx, is_control = parse_input(raw)
        if src in args:
            return "^" + arg_controls[src] if is_control else args[src]
        if is_control:
            return "^" + names[src]
        return f"{names[src]}:{idx}" if idx else names[src]

    for node, copy in inlined:
        copy.input.extend(ref(raw) for raw in node.input)
        if not [r for r in copy.input if not r.startswith("^")]:
            copy.input.append("^" + pivot)
    return inlined, ref


def _retvals(gd: graph_pb2.GraphDef) -> list[node_def_pb2.NodeDef]:
    return [n for _, n in sorted((int(n.attr["index"].i), n) for n in gd.node if n.op == RETVAL_OP)]


def _inline_branch(
    gd: graph_pb2.GraphDef,
    prefix: str,
    switches: Sequence[str],
    port: int,
    pivot: str,
    add: Callable[..., node_def_pb2.NodeDef],
) -> list[str]:
    """The branch's nodes, renamed under `prefix`, reading the Switches' `port`; its results
    (each through an Identity that waits for the branch's stateful nodes)."""
    args = {
        n.name: f"{switches[int(n.attr['index'].i)]}:{port}" for n in gd.node if n.op in ARG_OPS
    }
    inlined, ref = _inline_nodes(gd, prefix, args, dict.fromkeys(args, pivot), pivot, add)
    stateful = []
    for node, copy in inlined:
        op_def = op_def_registry.lookup(node.op)
        if op_def is not None and op_def.stateful:
            stateful.append("^" + copy.name)
    results = []
    for k, ret in enumerate(_retvals(gd)):
        value = ref(ret.input[0])
        ident = add(f"{prefix}output_{k}", "Identity", [value, *stateful], T=ret.attr["T"].type)
        results.append(ident.name)
    return results


# ---- While whose body writes a variable: TF1's while loop frame ------------------------------
def _loop_writes_variable(
    nd: node_def_pb2.NodeDef, by_name: dict[str, node_def_pb2.NodeDef]
) -> bool:
    """A While still given a variable through a _RefHandle (its body updates it)."""
    if nd.op not in _WHILE_OPS:
        return False
    for key in ("cond", "body"):
        if key not in nd.attr or GRAPH_DEF_ATTR not in nd.attr[key].func.attr:
            return False
    if ACCUMULATE_ATTR in nd.attr and len(nd.attr[ACCUMULATE_ATTR].list.s):
        return False  # values kept for a gradient: a stateful body has none
    return any(
        (src := by_name.get(parse_input(raw)[0])) is not None and src.op == "_RefHandle"
        for raw in nd.input
        if not raw.startswith("^")
    )


def _reads_output(nodes: Sequence[node_def_pb2.NodeDef], nd: node_def_pb2.NodeDef) -> set[int]:
    """The output indices of `nd` that other nodes read."""
    return {
        parse_input(raw)[1]
        for other in nodes
        for raw in other.input
        if not raw.startswith("^") and parse_input(raw)[0] == nd.name
    }


def _while_as_v1_loop(
    nd: node_def_pb2.NodeDef,
    by_name: dict[str, node_def_pb2.NodeDef],
    taken: set[str],
    outputs_read: set[int],
    mark: bool = False,
    results_as: _V1Results | None = None,
) -> list[node_def_pb2.NodeDef]:
    """The loop as TF1's frame: per loop variable Enter -> Merge -> Switch (on LoopCond) ->
    Identity (the body's argument) and Exit, the body's result back through NextIteration;
    loop invariants enter once (a variable through RefEnter); the cond and body nodes are
    inlined under their own names; the Exits take the names `results_as` gives them, and an
    IdentityN under the While's name returns them where `results_as` asks for one.
    A counter variable stands for tfcluster's trip-count output and the iteration limit."""
    scope = nd.name
    results_as = results_as or _V1Results({}, True)
    var_types = list(nd.attr["T"].list.type)
    n = len(var_types)
    data = [i for i in nd.input if not i.startswith("^")]
    controls = [i for i in nd.input if i.startswith("^")]
    has_max = "has_maximum_iterations" in nd.attr and nd.attr["has_maximum_iterations"].b
    limit = data.pop() if has_max else None
    if n == 0:
        return [nd]
    cond_gd, body_gd = _body(nd.attr["cond"].func), _body(nd.attr["body"].func)
    frame = f"{scope}/while_context"
    parallel = int(nd.attr["parallel_iterations"].i) if "parallel_iterations" in nd.attr else 10
    out: list[node_def_pb2.NodeDef] = []

    def add(
        name: str, op: str, inputs: Sequence[str], unique: bool = True, **type_attrs: int
    ) -> node_def_pb2.NodeDef:
        node = node_def_pb2.NodeDef(
            name=_unique(name, taken) if unique else name,
            op=op,
            input=list(inputs),
            device=nd.device,
        )
        for key, value in type_attrs.items():
            node.attr[key].type = value  # type: ignore[assignment]
        out.append(node)
        return node

    def enter(value: str, dtype: int, constant: bool, op: str = "Enter", name: str = "") -> str:
        node = add(name or f"{scope}/Enter", op, [value, *controls], T=dtype)
        node.attr["frame_name"].s = frame.encode()
        node.attr["is_constant"].b = constant
        node.attr["parallel_iterations"].i = parallel
        return node.name

    def arg_names(gd: graph_pb2.GraphDef) -> dict[int, str]:
        return {int(a.attr["index"].i): a.name for a in gd.node if a.op in ARG_OPS}

    cond_args, body_args = arg_names(cond_gd), arg_names(body_gd)
    count_wanted = has_max or n in outputs_read
    types = var_types + ([_INT32] * count_wanted)
    starts = list(data[:n])
    if count_wanted:
        # TF's while_loop names its counter iteration_counter (with maximum_iterations).
        counter = f"{scope}/iteration_counter" if has_max else f"{scope}/Const"
        zero = _const(_unique(counter, taken), _INT32, 0, nd.device)
        out.append(zero)
        starts.append(zero.name)
    # The order the per-variable nodes are made in (their _1, _2 suffixes): TF's while_loop
    # with maximum_iterations puts its counter first.
    made = list(range(len(types)))
    if has_max and count_wanted:
        made = [len(types) - 1, *made[:-1]]

    def in_order(make: Callable[[int], _T]) -> list[_T]:
        by_index = {k: make(k) for k in made}
        return [by_index[k] for k in range(len(types))]

    enters = in_order(lambda k: enter(starts[k], types[k], False))
    # Loop invariants: the captures (a variable itself through a RefEnter), each Enter named
    # after the first op that reads it (TF makes it when that op is made: "Less/Enter").
    invariants: dict[int, str] = {}
    for j, raw in enumerate(data[n:]):
        reader = _first_reader(cond_gd, cond_args.get(n + j)) or _first_reader(
            body_gd, body_args.get(n + j)
        )
        name = f"{reader}/Enter" if reader else ""
        src = by_name.get(parse_input(raw)[0])
        if src is not None and src.op == "_RefHandle":
            (ref,) = [r for r in src.input if not r.startswith("^")]
            invariants[n + j] = enter(ref, src.attr["T"].type, True, "RefEnter", name)
        else:
            dtype = nd.attr["Tcaptures"].list.type[j]
            invariants[n + j] = enter(raw, dtype, True, name=name)

    def make_merge(k: int) -> node_def_pb2.NodeDef:
        name = cond_args[k] if k in cond_args and k < n else f"{scope}/Merge"
        merge = add(name, "Merge", [enters[k], enters[k]], T=types[k])
        merge.attr["N"].i = 2
        return merge

    merges = in_order(make_merge)
    cond_map = {
        **{cond_args[k]: merges[k].name for k in cond_args if k < n},
        **{cond_args[k]: invariants[k] for k in cond_args if k >= n},
    }
    (pred,) = _inline_loop_function(cond_gd, cond_map, merges[made[0]].name, add)
    if count_wanted and limit is not None:
        less_name = _unique(f"{scope}/Less", taken)
        limit_enter = enter(limit, _INT32, True, name=f"{less_name}/Enter")
        less = add(less_name, "Less", [merges[-1].name, limit_enter], unique=False, T=_INT32)
        pred = add(f"{scope}/LogicalAnd", "LogicalAnd", [less.name, pred]).name
    loop_cond = add(f"{scope}/LoopCond", "LoopCond", [pred])
    if mark:  # tfcluster's import_graph_def makes it a While again (differentiable)
        loop_cond.attr[FUNCTIONAL_WHILE_MARK].b = True
    switches = in_order(
        lambda k: add(f"{scope}/Switch", "Switch", [merges[k].name, loop_cond.name], T=types[k])
    )

    def make_exit(k: int) -> node_def_pb2.NodeDef:
        if k in results_as.names:  # the stand-in's name (already taken, by it)
            return add(results_as.names[k], "Exit", [switches[k].name], T=types[k], unique=False)
        return add(f"{scope}/Exit", "Exit", [switches[k].name], T=types[k])

    exits = in_order(make_exit)
    idents = in_order(
        lambda k: add(
            body_args[k] if k in body_args and k < n else f"{scope}/Identity",
            "Identity",
            [f"{switches[k].name}:1"],
            T=types[k],
        )
    )
    body_map = {
        **{body_args[k]: idents[k].name for k in body_args if k < n},
        **{body_args[k]: invariants[k] for k in body_args if k >= n},
    }
    results = _inline_loop_function(body_gd, body_map, idents[made[0]].name, add)
    if count_wanted:
        one = _const(_unique(f"{scope}/add/y", taken), _INT32, 1, nd.device)
        one.input.append("^" + idents[made[0]].name)
        out.append(one)
        results.append(add(f"{scope}/add", "AddV2", [idents[-1].name, one.name], T=_INT32).name)
    for k in made:
        nxt = add(f"{scope}/NextIteration", "NextIteration", [results[k]], T=types[k])
        merges[k].input[1] = nxt.name
    if not results_as.identity_n:
        return out
    final = node_def_pb2.NodeDef(
        name=nd.name, op="IdentityN", input=[e.name for e in exits], device=nd.device
    )
    final.attr["T"].list.type.extend(types)
    for key in ("_class", OUTPUT_SHAPES_ATTR):
        if key in nd.attr:
            final.attr[key].CopyFrom(nd.attr[key])
    if OUTPUT_SHAPES_ATTR in final.attr:
        del final.attr[OUTPUT_SHAPES_ATTR].list.shape[len(types) :]
    out.append(final)
    return out


def _first_reader(gd: graph_pb2.GraphDef, arg: str | None) -> str | None:
    """The name of the first node of a loop function (its creation order) that reads the
    argument node `arg` as data."""
    if arg is None:
        return None
    for node in gd.node:
        if node.op in ARG_OPS or node.op == RETVAL_OP:
            continue
        if any(not raw.startswith("^") and parse_input(raw)[0] == arg for raw in node.input):
            # A control-flow reader (a nested loop or cond) keeps the loop's own Enter name.
            return None if node.op in _FRAME_OPS else node.name
    return None


_FRAME_OPS = frozenset(
    {
        "Switch",
        "RefSwitch",
        "Merge",
        "RefMerge",
        "Enter",
        "RefEnter",
        "Exit",
        "RefExit",
        "NextIteration",
        "LoopCond",
        "If",
        "StatelessIf",
        "While",
        "StatelessWhile",
        "_If",
        "_While",
        "Identity",
        "IdentityN",
    }
)


def _inline_loop_function(
    gd: graph_pb2.GraphDef,
    args: dict[str, str],
    pivot: str,
    add: Callable[..., node_def_pb2.NodeDef],
) -> list[str]:
    """A cond's or body's nodes in the loop frame, under their own names, reading `args`
    (argument node -> frame tensor); its results' tensors, in order."""
    _, ref = _inline_nodes(gd, "", args, args, pivot, add)
    return [ref(ret.input[0]) for ret in _retvals(gd)]


# ---- variables read by functional ops ------------------------------------------------------
def _ref_reads(nodes: Sequence[node_def_pb2.NodeDef], by_name: dict[str, node_def_pb2.NodeDef]):
    """Each _RefHandle whose every functional consumer only reads the variable becomes an
    Identity (the value), and those consumers' bodies take a value argument."""
    users: dict[str, list[tuple[node_def_pb2.NodeDef, int]]] = {}
    for nd in nodes:
        data = [i for i in nd.input if not i.startswith("^")]
        for position, raw in enumerate(data):
            src = parse_input(raw)[0]
            if src in by_name and by_name[src].op == "_RefHandle":
                users.setdefault(src, []).append((nd, position))
    for name, uses in users.items():
        if not all(_reads_only(user, position) for user, position in uses):
            continue
        handle = by_name[name]
        handle.op = "Identity"
        for user, position in uses:
            _take_value(user, position, handle.attr["T"].type)


def _arg_index(user: node_def_pb2.NodeDef, position: int) -> int:
    return position - _ARG_OFFSET.get(user.op, 0)


def _reads_only(user: node_def_pb2.NodeDef, position: int) -> bool:
    bodies = [user.attr[k].func for k in _BODY_ATTRS if k in user.attr]
    if not bodies or any(GRAPH_DEF_ATTR not in f.attr for f in bodies):
        return False
    index = _arg_index(user, position)
    for func in bodies:
        gd = _body(func)
        arg = _arg_node(gd, index)
        if arg is None:
            return False
        for nd in gd.node:
            data = [i for i in nd.input if not i.startswith("^")]
            for k, raw in enumerate(data):
                if parse_input(raw)[0] == arg.name and _writes(nd, k):
                    return False
    return True


def _arg_node(gd: graph_pb2.GraphDef, index: int) -> node_def_pb2.NodeDef | None:
    for nd in gd.node:
        if nd.op in ARG_OPS and nd.attr["index"].i == index:
            return nd
    return None


def _writes(nd: node_def_pb2.NodeDef, position: int) -> bool:
    """Whether the node's input at `position` is a reference in TF's op def (an update), or
    passes the variable on to another body."""
    if nd.op in ("_RefHandle", RETVAL_OP):
        return True
    sig = op_signatures.lookup(nd.op)
    if sig is None:
        return True
    k = 0
    for arg in sig.inputs:
        count = 1
        if arg.number_attr is not None:
            count = int(nd.attr[arg.number_attr].i) if arg.number_attr in nd.attr else 1
        elif arg.type_list_attr is not None:
            count = len(nd.attr[arg.type_list_attr].list.type)
        if k <= position < k + count:
            return arg.is_ref
        k += count
    return False


def _take_value(user: node_def_pb2.NodeDef, position: int, dtype: int) -> None:
    index = _arg_index(user, position)
    for key in _BODY_ATTRS:
        if key not in user.attr:
            continue
        func = user.attr[key].func
        gd = _body(func)
        arg = _arg_node(gd, index)
        if arg is not None:
            arg.op = "_Arg"
        _set_body(func, gd)
    # The op's input types: the value's dtype where the handle's resource was.
    if user.op in _WHILE_OPS and "Tcaptures" in user.attr:
        n = len(user.attr["T"].list.type)
        lst, at = (
            (user.attr["T"].list.type, index)
            if index < n
            else (user.attr["Tcaptures"].list.type, index - n)
        )
    elif user.op in _WHILE_OPS:
        lst, at = user.attr["T"].list.type, index
    elif "Tin" in user.attr:
        lst, at = user.attr["Tin"].list.type, index
    else:
        return
    if at < len(lst):
        lst[at] = dtype  # type: ignore[call-overload]


# ---- While with captures / maximum iterations / values kept for the gradient ---------------
def _while_needs_rewrite(nd: node_def_pb2.NodeDef) -> bool:
    """A loop with captures, a limit or kept values, no capture a variable reference."""
    attrs = nd.attr
    for key in ("cond", "body"):
        if key not in attrs or GRAPH_DEF_ATTR not in attrs[key].func.attr:
            return False
        if any(a.op == "_RefArg" for a in _body(attrs[key].func).node):
            return False
    has_caps = "Tcaptures" in attrs and len(attrs["Tcaptures"].list.type) > 0
    has_max = "has_maximum_iterations" in attrs and attrs["has_maximum_iterations"].b
    kept = ACCUMULATE_ATTR in attrs and len(attrs[ACCUMULATE_ATTR].list.s) > 0
    return has_caps or has_max or kept


def _tensor_dtypes(func: attr_value_pb2.NameAttrList, names: Sequence[str]) -> list[int] | None:
    """The dtypes of body tensors ('op:idx'), from the body made again in a scratch graph."""
    from tfcluster.framework.func_graph import FuncGraph, copy_function_body, parse_function
    from tfcluster.framework.graph import Graph

    scratch = FuncGraph("dtypes", Graph())
    try:
        copy_function_body(parse_function(func), scratch)
        return [scratch.get_tensor_by_name(n).dtype.base_dtype.as_datatype_enum for n in names]
    except (ValueError, KeyError, TypeError):
        return None


def _tensor_list_node(
    name: str, op: str, inputs: Sequence[str], element_dtype: int, device: str = ""
) -> node_def_pb2.NodeDef:
    nd = node_def_pb2.NodeDef(name=name, op=op, input=list(inputs), device=device)
    nd.attr["element_dtype"].type = element_dtype  # type: ignore[assignment]
    if op == "EmptyTensorList":
        nd.attr["shape_type"].type = _INT32  # type: ignore[assignment]
    return nd


def _while(nd: node_def_pb2.NodeDef, taken: set[str]) -> list[node_def_pb2.NodeDef]:
    """TF's layout of the loop's inputs and outputs: the loop variables, the iteration counter
    (tfcluster's trip-count output), a TensorList per kept value (tfcluster's kept-value
    outputs: their positions stay), the limit, then the captures; a capture that is a list
    of kept values is popped one item per iteration."""
    n = len(nd.attr["T"].list.type)
    caps = list(nd.attr["Tcaptures"].list.type) if "Tcaptures" in nd.attr else []
    has_max = "has_maximum_iterations" in nd.attr and nd.attr["has_maximum_iterations"].b
    kept = (
        [s.decode() for s in nd.attr[ACCUMULATE_ATTR].list.s] if ACCUMULATE_ATTR in nd.attr else []
    )
    sliced = (
        [int(p) for p in nd.attr[SLICED_CAPTURES_ATTR].list.i]
        if SLICED_CAPTURES_ATTR in nd.attr
        else []
    )
    kept_dtypes = _tensor_dtypes(nd.attr["body"].func, kept) if kept else []
    if kept_dtypes is None:
        return [nd]
    data = [i for i in nd.input if not i.startswith("^")]
    controls = [i for i in nd.input if i.startswith("^")]
    new: list[node_def_pb2.NodeDef] = []
    counter = _const(_unique(f"{nd.name}/loop_counter", taken), _INT32, 0, nd.device)
    new.append(counter)
    if has_max:
        limit = data[-1]
        data = data[:-1]
    else:
        limit_node = _const(
            _unique(f"{nd.name}/maximum_iterations", taken), _INT32, _INT32_MAX, nd.device
        )
        new.append(limit_node)
        limit = limit_node.name
    lists = []
    for j, dtype in enumerate(kept_dtypes):
        shape = _const(_unique(f"{nd.name}/accumulator_{j}/shape", taken), _INT32, -1, nd.device)
        size = _const(_unique(f"{nd.name}/accumulator_{j}/size", taken), _INT32, -1, nd.device)
        empty = _tensor_list_node(
            _unique(f"{nd.name}/accumulator_{j}", taken),
            "EmptyTensorList",
            [shape.name, size.name],
            dtype,
            nd.device,
        )
        new.extend([shape, size, empty])
        lists.append(empty.name)
    nd.ClearField("input")
    nd.input.extend([*data[:n], counter.name, *lists, limit, *data[n:], *controls])
    variant = dtypes.variant.as_datatype_enum
    cap_shapes = _capture_shapes(nd.attr["body"].func, n, len(caps))
    scalars = [tensor_shape_pb2.TensorShapeProto()] * (2 + len(kept))
    nd.attr["T"].list.type.extend([_INT32, *[variant] * len(kept), _INT32, *caps])
    if "output_shapes" in nd.attr and len(nd.attr["output_shapes"].list.shape):
        nd.attr["output_shapes"].list.shape.extend([*scalars, *cap_shapes])
    if OUTPUT_SHAPES_ATTR in nd.attr:
        old = list(nd.attr[OUTPUT_SHAPES_ATTR].list.shape)[:n]
        out_shapes = nd.attr[OUTPUT_SHAPES_ATTR].list
        del out_shapes.shape[:]
        out_shapes.shape.extend([*old, *scalars, *cap_shapes])
    for key in ("Tcaptures", "has_maximum_iterations", ACCUMULATE_ATTR, SLICED_CAPTURES_ATTR):
        if key in nd.attr:
            del nd.attr[key]
    layout = _Layout(n, len(caps), list(zip(kept, kept_dtypes)), sliced)
    cond, body = nd.attr["cond"].func, nd.attr["body"].func
    _set_body(cond, _loop_function(_body(cond), layout, is_cond=True))
    _set_body(body, _loop_function(_body(body), layout, is_cond=False))
    return [*new, nd]


class _Layout:
    """Where a rewritten loop's values sit: vars, counter, kept lists, limit, captures."""

    def __init__(
        self, n: int, num_caps: int, kept: list[tuple[str, int]], sliced: list[int]
    ) -> None:
        self.n = n
        self.num_caps = num_caps
        self.kept = kept
        self.sliced = sliced
        self.counter = n
        self.limit = n + 1 + len(kept)
        self.first_capture = n + 2 + len(kept)


def _capture_shapes(
    func: attr_value_pb2.NameAttrList, n: int, num_caps: int
) -> list[tensor_shape_pb2.TensorShapeProto]:
    gd = _body(func)
    out = []
    for j in range(num_caps):
        arg = _arg_node(gd, n + j)
        shape = tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
        if arg is not None and "shape" in arg.attr:
            shape = arg.attr["shape"].shape
        out.append(shape)
    return out


def _loop_function(gd: graph_pb2.GraphDef, lay: _Layout, is_cond: bool) -> graph_pb2.GraphDef:
    """A cond or body over the rewritten layout; a body also returns the counter + 1, each
    kept list with this iteration's value pushed, the limit and the captures (a list of kept
    values popped); a cond is false once the counter reaches the limit."""
    taken = {nd.name for nd in gd.node}
    n = lay.n
    args = {int(nd.attr["index"].i): nd for nd in gd.node if nd.op in ARG_OPS}
    for index, arg in args.items():
        if index >= n:
            arg.attr["index"].i = index - n + lay.first_capture
    counter = _arg(gd, _unique("loop_counter", taken), lay.counter, _INT32)
    variant = dtypes.variant.as_datatype_enum
    lists = [
        _arg(gd, _unique(f"accumulator_{j}", taken), n + 1 + j, variant)
        for j in range(len(lay.kept))
    ]
    limit = _arg(gd, _unique("maximum_iterations", taken), lay.limit, _INT32)
    if is_cond:
        (ret,) = [nd for nd in gd.node if nd.op == RETVAL_OP]
        less = gd.node.add(name=_unique("loop_counter_less", taken), op="Less")
        less.input.extend([counter.name, limit.name])
        less.attr["T"].type = _INT32  # type: ignore[assignment]
        both = gd.node.add(name=_unique("loop_go_on", taken), op="LogicalAnd")
        both.input.extend([less.name, ret.input[0]])
        ret.input[0] = both.name
        return gd
    one = _const(_unique("loop_counter_one", taken), _INT32, 1)
    gd.node.append(one)
    plus = gd.node.add(name=_unique("loop_counter_next", taken), op="AddV2")
    plus.input.extend([counter.name, one.name])
    plus.attr["T"].type = _INT32  # type: ignore[assignment]
    results: list[tuple[str, int]] = [(plus.name, _INT32)]
    for lst, (value, dtype) in zip(lists, lay.kept):
        push = _tensor_list_node(
            _unique(f"{lst.name}/push", taken), "TensorListPushBack", [lst.name, value], dtype
        )
        gd.node.append(push)
        results.append((push.name, variant))
    results.append((limit.name, _INT32))
    for j in range(lay.num_caps):
        arg = args[n + j]
        if j not in lay.sliced:
            results.append((arg.name, int(arg.attr["T"].type)))
            continue
        # The capture is a list of the forward loop's values: iteration k reads the one of
        # forward iteration len-1-k (pop the last), under the argument's name.
        dtype = int(arg.attr["T"].type)
        index = int(arg.attr["index"].i)
        lst = _arg(gd, _unique(f"{arg.name}/list", taken), index, variant)
        shape = _const(_unique(f"{arg.name}/element_shape", taken), _INT32, -1)
        pop = _tensor_list_node(
            _unique(f"{arg.name}/pop", taken), "TensorListPopBack", [lst.name, shape.name], dtype
        )
        gd.node.extend([shape, pop])
        arg.op = "Identity"
        arg.input.append(f"{pop.name}:1")
        for key in ("index", "shape"):
            del arg.attr[key]
        results.append((pop.name, variant))
    for k, (src, dtype) in enumerate(results):
        ret = gd.node.add(name=_unique(f"retval_{n + k}", taken), op=RETVAL_OP)
        ret.input.append(src)
        ret.attr["T"].type = dtype  # type: ignore[assignment]
        ret.attr["index"].i = n + k
    return gd


def _arg(gd: graph_pb2.GraphDef, name: str, index: int, dtype: int) -> node_def_pb2.NodeDef:
    nd = gd.node.add(name=name, op="_Arg")
    nd.attr["T"].type = dtype  # type: ignore[assignment]
    nd.attr["index"].i = index
    nd.attr["shape"].shape.SetInParent()
    return nd


__all__ = ["FUNCTIONAL_WHILE_MARK", "needs_rewrite", "rewrite"]
