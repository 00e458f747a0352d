"""Graph <-> GraphDef: serialisation and tf.import_graph_def."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from typing import Any

from tfcluster.framework import (
    attr_values,
    errors,
    node_def_checks,
    op_def_protos,
    op_def_registry,
    op_signatures,
)
from tfcluster.framework.graph import Graph, Operation, Tensor, get_default_graph
from tfcluster.protos import function_pb2, graph_pb2, node_def_pb2

# TF 1.15's TF_GRAPH_DEF_VERSION: the producer version of the GraphDefs it writes.
GRAPH_DEF_VERSION = 134


def input_name(t: Tensor) -> str:
    return t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"


def node_def_from_operation(op: Operation) -> node_def_pb2.NodeDef:
    node = node_def_pb2.NodeDef(name=op.name, op=op.type, device=op.device)
    node.input.extend(input_name(t) for t in op.inputs)
    node.input.extend("^" + c.name for c in op.control_inputs)
    for key, value in op.attrs.items():
        node.attr[key].CopyFrom(attr_values.to_proto(value))
    return node


def graph_to_graph_def(graph: Graph, add_shapes: bool = False) -> graph_pb2.GraphDef:
    gd = graph_pb2.GraphDef()
    gd.versions.producer = GRAPH_DEF_VERSION
    for op in graph.get_operations():
        node = gd.node.add()
        node.CopyFrom(node_def_from_operation(op))
        if len(op.control_inputs) > 1:
            # TF's Graph::ToGraphDef writes control inputs sorted by name (op.node_def keeps
            # the order they were added in).
            n = len(op.inputs)
            controls = sorted(node.input[n:])
            del node.input[n:]
            node.input.extend(controls)
        if add_shapes and op.outputs:
            # TF's as_graph_def(add_shapes=True) leaves ops without outputs without the attr.
            node.attr["_output_shapes"].CopyFrom(
                attr_values.to_proto([t.shape for t in op.outputs])
            )
    return gd


def parse_input(name: str) -> tuple[str, int, bool]:
    """'^x' -> (x, -1, True); 'x:1' -> (x, 1, False); 'x' -> (x, 0, False)."""
    if name.startswith("^"):
        return name[1:], -1, True
    op_name, sep, idx = name.rpartition(":")
    if sep and idx.isdigit():
        return op_name, int(idx), False
    return name, 0, False


def _topological_order(
    graph_def: graph_pb2.GraphDef,
    by_name: dict[str, node_def_pb2.NodeDef],
    mapped: frozenset[str] = frozenset(),
) -> list[node_def_pb2.NodeDef]:
    """Nodes with every input before its consumer; a missing input (not in `mapped`, the
    input_map's sources) or a cycle is a ValueError."""
    pending: dict[str, int] = {}
    consumers: dict[str, list[str]] = {}
    for node in graph_def.node:
        srcs = set()
        for raw in node.input:
            src = parse_input(raw)[0]
            if src in mapped and src not in by_name:
                continue
            if src not in by_name:
                raise ValueError(f"Node '{node.name}': Unknown input node '{raw}'")
            srcs.add(src)
        back = {s for s in srcs if _is_back_edge(node, by_name[s])}
        if back and back != srcs:
            # A TF1 loop's Merge waits for its Enter only; the NextIteration joins it later.
            srcs -= back
        pending[node.name] = len(srcs)
        for src in srcs:
            consumers.setdefault(src, []).append(node.name)
    # As TF's importer: of the nodes ready, the first in the GraphDef goes first, so a GraphDef
    # already in order (as TF and tfcluster write them) keeps its order.
    index = {n.name: i for i, n in enumerate(graph_def.node)}
    ready = [i for i, n in enumerate(graph_def.node) if pending[n.name] == 0]
    order: list[node_def_pb2.NodeDef] = []
    while ready:
        node = graph_def.node[heapq.heappop(ready)]
        order.append(by_name[node.name])
        for c in consumers.get(node.name, ()):
            pending[c] -= 1
            if pending[c] == 0:
                heapq.heappush(ready, index[c])
    if len(order) != len(graph_def.node):
        stuck = sorted(n for n, k in pending.items() if k > 0)[:5]
        raise ValueError(f"GraphDef has a cycle through nodes {stuck}")
    return order


_MERGE_OPS = frozenset({"Merge", "RefMerge"})
_NEXT_ITERATION_OPS = frozenset({"NextIteration", "RefNextIteration"})


def _is_back_edge(node: node_def_pb2.NodeDef, src: node_def_pb2.NodeDef) -> bool:
    """The edge that closes a TF1 while loop: NextIteration -> Merge."""
    return node.op in _MERGE_OPS and src.op in _NEXT_ITERATION_OPS


def _colocate_imported(graph: Any, ops: Iterable[Operation]) -> None:
    """As TF's importer: an op colocated with another (`_class: loc:@other`) takes that op's
    device, not the device functions' (a variable's read and slots stay with the variable
    when a MetaGraph is imported under replica_device_setter)."""
    for op in ops:
        targets = [g[5:].decode() for g in op.attrs.get("_class", ()) or () if g[:5] == b"loc:@"]
        targets = [t for t in targets if t != op.name]
        if not targets:
            continue
        device = ""
        for name in targets:
            try:
                target = graph.get_operation_by_name(name)
            except (KeyError, ValueError):
                continue
            if target.device:
                device = target.device
                break
        op._set_device(device)


def _check_op_types(graph_def: graph_pb2.GraphDef) -> None:
    """Every op type of the GraphDef must be one tfcluster has; else NotFoundError (as TF's
    importer) naming every missing type and the nodes that use it."""
    missing: dict[str, list[str]] = {}
    for node in graph_def.node:
        if op_def_registry.lookup(node.op) is None:
            missing.setdefault(node.op, []).append(node.name)
    if not missing:
        return
    listed = "; ".join(
        f"'{op}' (node{'s' if len(nodes) > 1 else ''} {', '.join(nodes[:3])}"
        f"{', ...' if len(nodes) > 3 else ''})"
        for op, nodes in sorted(missing.items())
    )
    raise errors.NotFoundError(
        None,
        None,
        f"Op type not registered {', '.join(repr(op) for op in sorted(missing))} in tfcluster: "
        f"the GraphDef uses op types tfcluster does not implement: {listed}",
    )


def _check_node_defs(
    order: list[node_def_pb2.NodeDef], given: dict[str, node_def_pb2.NodeDef], prefix: str
) -> None:
    """TF's check of every node the GraphDef gave (of an op type TF has) against its OpDef, in
    the order of import; a ValueError with TF's message."""
    for node in order:
        if _reshaped(node, given):
            continue
        op_def = op_def_protos.shared_op_def(node.op)
        if op_def is not None:
            node_def_checks.check_node_def(node, op_def, prefix + node.name)


def _check_input_dtypes(
    node: node_def_pb2.NodeDef,
    given: dict[str, node_def_pb2.NodeDef],
    inputs: list[Tensor],
    prefix: str,
    stand_ins: list[int],
) -> None:
    """Each input's dtype against the one the op expects (the NodeDef's attrs, defaults
    added); a ValueError with TF's message. Loop back edges, not joined yet, are skipped."""
    op_def = op_def_protos.shared_op_def(node.op)
    if op_def is None or _reshaped(node, given):
        return
    expected = node_def_checks.input_types(op_def, node_def_checks.with_defaults(node, op_def))
    for index, (want, tensor) in enumerate(zip(expected, inputs, strict=False)):
        if index in stand_ins:
            continue
        problem = node_def_checks.input_dtype_problem(
            want, tensor.dtype, index, prefix + node.name, tensor.name
        )
        if problem is not None:
            raise ValueError(problem)


def _reshaped(node: node_def_pb2.NodeDef, given: dict[str, node_def_pb2.NodeDef]) -> bool:
    """Whether the node is not the GraphDef's own (tfcluster's form of a function or loop)."""
    original = given.get(node.name)
    return original is None or (original is not node and original != node)


def _output(op: Operation, index: int, consumer: str, source: str) -> Tensor:
    if index >= len(op.outputs):
        raise ValueError(
            f"Node '{consumer}': Connecting to invalid output {index} of source node "
            f"{source} which has {len(op.outputs)} outputs."
        )
    return op.outputs[index]


def import_graph_def(
    graph_def: graph_pb2.GraphDef,
    input_map: dict[str, Tensor] | None = None,
    return_elements: Sequence[str] | None = None,
    name: str | None = None,
    op_dict: Any = None,
    producer_op_list: Any = None,
) -> list[Any] | None:
    """Adds the nodes of `graph_def` to the default graph under the scope `name` ('import')."""
    return import_reshaped_graph_def(
        graph_def, graph_def, input_map, return_elements, name, producer_op_list
    )


def import_reshaped_graph_def(
    graph_def: graph_pb2.GraphDef,
    as_given: graph_pb2.GraphDef,
    input_map: dict[str, Tensor] | None = None,
    return_elements: Sequence[str] | None = None,
    name: str | None = None,
    producer_op_list: Any = None,
) -> list[Any] | None:
    """import_graph_def of a GraphDef whose loops tfcluster may have reshaped into its own
    forms already (a MetaGraph's): TF's checks of the nodes apply to those of `as_given`, the
    GraphDef as the user gave it."""
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError("graph_def must be a GraphDef proto.")
    from tfcluster.framework import function_library  # it builds on this module

    graph = get_default_graph()
    if producer_op_list is not None:
        from tfcluster.framework import stripped_op_list  # it builds on op_def_protos

        same = as_given is graph_def
        graph_def = stripped_op_list.without_unknown_default_attrs(graph_def, producer_op_list)
        if same:
            as_given = graph_def
        else:
            as_given = stripped_op_list.without_unknown_default_attrs(as_given, producer_op_list)
    # TF's checks are of the GraphDef as given, before tfcluster reshapes its functions and
    # loops into its own forms.
    given = {node.name: node for node in as_given.node}
    # Library functions (TF's form) become the bodies tfcluster's func attrs carry; the ones
    # no node calls stay in the graph as they are (once the import has succeeded).
    unused = function_pb2.FunctionDefLibrary()
    if function_library.needs_import(graph_def):
        graph_def = function_library.from_library_form(graph_def, unused)
    from tfcluster.framework import v1_loop_lift  # it builds on this module

    if v1_loop_lift.has_marked_loops(graph_def):
        graph_def = v1_loop_lift.lift_loops(graph_def, set())
    input_map = dict(input_map or {})
    for key, value in input_map.items():
        if not isinstance(value, Tensor):
            raise TypeError(f"input_map values must be Tensors, got {value!r} for {key}")
    _check_op_types(graph_def)
    prefix_scope = "import" if name is None else name
    by_name = {n.name: n for n in graph_def.node}
    if len(by_name) != len(graph_def.node):
        raise ValueError("GraphDef has duplicate node names")
    created: dict[str, Operation] = {}

    mapped_sources = frozenset(parse_input(k)[0] for k in input_map)
    order = _topological_order(graph_def, by_name, mapped_sources)
    # Loop back edges (NextIteration -> Merge) joined once their source exists.
    back_edges: list[tuple[str, int, str, int]] = []
    with graph.name_scope(prefix_scope) as prefix:
        _check_node_defs(order, given, prefix)
        for node in order:
            inputs: list[Tensor] = []
            controls: list[Operation] = []
            later: list[int] = []
            for raw in node.input:
                src, idx, is_control = parse_input(raw)
                if is_control:
                    mapped = input_map.get("^" + src)
                    controls.append(mapped.op if mapped is not None else created[src])
                    continue
                mapped = input_map.get(f"{src}:{idx}")
                if mapped is None and idx == 0:
                    mapped = input_map.get(src)
                if mapped is not None:
                    inputs.append(mapped)
                    continue
                if src not in created and _is_back_edge(node, by_name[src]):
                    back_edges.append((node.name, len(inputs), src, idx))
                    later.append(len(inputs))
                    inputs.append(None)  # type: ignore[arg-type]  # filled in below
                    continue
                inputs.append(_output(created[src], idx, node.name, src))
            if later:
                # Until the NextIteration exists, the Merge reads its Enter in its place (the
                # same dtype; the shape inferred from the Enter alone, as TF's importer does).
                stand_in = next(t for t in inputs if t is not None)
                inputs = [stand_in if t is None else t for t in inputs]
            attrs = {k: attr_values.from_proto(k, v) for k, v in node.attr.items()}
            attrs.pop("_output_shapes", None)
            attrs = op_signatures.with_default_attrs(node.op, attrs)
            if "_class" in attrs and prefix:
                attrs["_class"] = [
                    b"loc:@" + prefix.encode() + g[5:] if g.startswith(b"loc:@") else g
                    for g in attrs["_class"]
                ]
            _check_input_dtypes(node, given, inputs, prefix, later)
            with graph.name_scope(prefix or None), graph.control_dependencies(None):
                op = graph.create_op(
                    node.op, inputs, attrs, name=node.name, control_inputs=controls
                )
            # A name the graph already holds is made unique ('a' -> 'a_1'), as TF's importer
            # uniquifies; inputs and return_elements still go by the GraphDef's names.
            if node.device:
                op._set_device(node.device)
            created[node.name] = op

    for dst, position, src, idx in back_edges:
        created[dst]._update_input(position, _output(created[src], idx, dst, src))
    _colocate_imported(graph, created.values())
    if len(unused.function) or len(unused.gradient):
        graph._keep_library_functions(unused)

    if return_elements is None:
        return None
    results: list[Any] = []
    for elem in return_elements:
        if ":" in elem:
            op_name, _, index = elem.rpartition(":")
            results.append(created[op_name].outputs[int(index)])
        else:
            results.append(created[elem])
    return results
