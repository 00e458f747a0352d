"""tf.graph_util: GraphDef surgery for deployment (freezing variables into constants,
extracting the subgraph an output needs, removing training-only nodes), as TF 1.15 does it.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import attr_values, dtypes, internal_deprecations
from tfcluster.framework.graph import Graph, Operation
from tfcluster.framework.graph_io import import_graph_def
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.protos import graph_pb2, node_def_pb2

_log = logging.getLogger("tensorflow")

_VARIABLE_OPS = frozenset(
    {
        "Assign",
        "AssignAdd",
        "AssignSub",
        "Queue",
        "ScatterAdd",
        "ScatterSub",
        "ScatterUpdate",
        "TruncatedNormal",
        "Variable",
        "VariableV2",
    }
)


def must_run_on_cpu(node: Any, pin_variables_on_cpu: bool = False) -> bool:
    """Whether a node must be on the CPU: int32/string constants, int32 stitches and casts
    (and variable ops, when asked)."""
    node_def = node.node_def if isinstance(node, Operation) else node
    if not isinstance(node_def, node_def_pb2.NodeDef):
        raise TypeError(f"must_run_on_cpu takes an Operation or a NodeDef, not {node!r}")
    if pin_variables_on_cpu and node_def.op in _VARIABLE_OPS:
        return True
    int32, string = dtypes.int32.as_datatype_enum, dtypes.string.as_datatype_enum
    if node_def.op == "Const":
        return node_def.attr["dtype"].type in (int32, string)
    if node_def.op in ("DynamicStitch", "ParallelDynamicStitch"):
        return node_def.attr["T"].type == int32
    if node_def.op == "Cast":
        return node_def.attr["SrcT"].type == int32
    return False


def _node_name(name: str) -> str:
    return name[1:] if name.startswith("^") else name.split(":")[0]


def _check_graph_def(graph_def: Any) -> None:
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError("graph_def must be a graph_pb2.GraphDef proto.")


def extract_sub_graph(graph_def: Any, dest_nodes: Sequence[str]) -> graph_pb2.GraphDef:
    """The nodes `dest_nodes` need (inputs, control inputs and colocation targets), in the
    GraphDef's order."""
    _check_graph_def(graph_def)
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be a list.")
    by_name: dict[str, Any] = {}
    needs: dict[str, list[str]] = {}
    order: dict[str, int] = {}
    for i, node in enumerate(graph_def.node):
        name = _node_name(node.name)
        by_name[name] = node
        order[name] = i
        needs[name] = [_node_name(x) for x in node.input]
        if "_class" in node.attr:
            # Colocated nodes must come along, or the colocation constraint dangles.
            for group in node.attr["_class"].list.s:
                text = group.decode()
                if text.startswith("loc:@"):
                    needs[name].append(text[5:])
    for d in dest_nodes:
        if d not in by_name:
            raise AssertionError(f"{d} is not in graph")
    keep: set[str] = set()
    queue = list(dest_nodes)
    while queue:
        name = queue.pop(0)
        if name in keep:
            continue
        keep.add(name)
        queue.extend(needs.get(name, ()))
    out = graph_pb2.GraphDef()
    for name in sorted(keep, key=lambda n: order[n]):
        out.node.append(copy.deepcopy(by_name[name]))
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    return out


def tensor_shape_from_node_def_name(graph: Graph, input_name: str) -> TensorShape:
    name = input_name if ":" in input_name else input_name + ":0"
    return graph.get_tensor_by_name(name).shape


def convert_variables_to_constants(
    sess: Any,
    input_graph_def: Any,
    output_node_names: Sequence[str],
    variable_names_whitelist: Iterable[str] | None = None,
    variable_names_blacklist: Iterable[str] | None = None,
) -> graph_pb2.GraphDef:
    """The subgraph of output_node_names with every variable replaced by a Const holding
    its current value in `sess` (a frozen graph). A resource variable's VarHandleOp becomes
    the Const, its ReadVariableOps Identities and its ResourceGathers GatherV2s (TF 1.15's
    rewrite)."""
    internal_deprecations.called_internally(internal_deprecations.EXTRACT_SUB_GRAPH)
    inference = extract_sub_graph(input_graph_def, output_node_names)
    allow = set(variable_names_whitelist) if variable_names_whitelist is not None else None
    deny = set(variable_names_blacklist) if variable_names_blacklist is not None else set()
    by_name = {node.name: node for node in inference.node}
    frozen: list[str] = []
    fetches: list[str] = []
    # Identities between a resource read and its VarHandleOp -> the dtype they pass on.
    identity_types: dict[str, Any] = {}
    for node in inference.node:
        if node.op in ("Variable", "VariableV2", "VarHandleOp"):
            if (allow is not None and node.name not in allow) or node.name in deny:
                continue
            frozen.append(node.name)
            resource = node.op == "VarHandleOp"
            fetches.append(f"{node.name}/Read/ReadVariableOp:0" if resource else f"{node.name}:0")
        elif node.op in ("ReadVariableOp", "ResourceGather"):
            source = _input_name(node.input[0])
            while by_name[source].op == "Identity":
                identity_types[source] = node.attr["dtype"]
                source = _input_name(by_name[source].input[0])
            if by_name[source].op != "VarHandleOp":
                raise ValueError("Cannot find the variable that is an input to the ReadVariableOp.")
    values = sess.run(fetches) if fetches else []
    found = dict(zip(frozen, values))
    _log.info("Froze %d variables.", len(values))
    out = graph_pb2.GraphDef()
    for node in inference.node:
        source = _input_name(node.input[0]) if node.input else ""
        if node.name in found:
            const = out.node.add(op="Const", name=node.name)
            const.attr["dtype"].CopyFrom(node.attr["dtype"])
            value = np.asarray(found[node.name])
            const.attr["value"].CopyFrom(attr_values.to_proto(value))
        elif node.op == "ReadVariableOp" and source in found:
            read = out.node.add(op="Identity", name=node.name)
            read.input.append(node.input[0])
            read.attr["T"].CopyFrom(node.attr["dtype"])
            if "_class" in node.attr:
                read.attr["_class"].CopyFrom(node.attr["_class"])
        elif node.op == "ResourceGather" and source in found:
            _gather_of_constant(out, node)
        elif node.op == "Identity" and node.name in identity_types:
            passed = out.node.add()
            passed.CopyFrom(node)
            passed.attr["T"].CopyFrom(identity_types[node.name])
        else:
            out.node.append(node)
    out.library.CopyFrom(inference.library)
    _log.info("Converted %d variables to const ops.", len(found))
    return out


def _input_name(raw: str) -> str:
    return raw.lstrip("^").split(":")[0]


def _gather_of_constant(out: graph_pb2.GraphDef, node: Any) -> None:
    """A frozen ResourceGather: GatherV2 of the constant along its batch_dims axis."""
    if "validate_indices" in node.attr and not node.attr["validate_indices"].b:
        raise ValueError("validate_indices is not supported for ResourceGather")
    batch_dims = node.attr["batch_dims"].i if "batch_dims" in node.attr else 0
    axis_name = node.name + "/axis"
    axis = out.node.add(op="Const", name=axis_name)
    axis.attr["dtype"].CopyFrom(node.attr["Tindices"])
    index_dtype = dtypes.as_dtype(node.attr["Tindices"].type).as_numpy_dtype
    axis.attr["value"].CopyFrom(attr_values.to_proto(np.array(batch_dims, dtype=index_dtype)))
    gather = out.node.add(op="GatherV2", name=node.name)
    gather.input.extend([node.input[0], node.input[1], axis_name])
    gather.attr["Tparams"].CopyFrom(node.attr["dtype"])
    gather.attr["Tindices"].CopyFrom(node.attr["Tindices"])
    gather.attr["Taxis"].CopyFrom(node.attr["Tindices"])
    if "_class" in node.attr:
        gather.attr["_class"].CopyFrom(node.attr["_class"])


def remove_training_nodes(
    input_graph: Any, protected_nodes: Sequence[str] | None = None
) -> graph_pb2.GraphDef:
    """Drops CheckNumerics nodes and splices out Identity nodes (those not tied to control
    edges and not protected), rewiring their consumers to the Identity's input."""
    protected = set(protected_nodes or ())
    removed = {
        n.name for n in input_graph.node if n.op == "CheckNumerics" and n.name not in protected
    }
    kept = []
    for node in input_graph.node:
        if node.name in removed:
            continue
        new = node_def_pb2.NodeDef()
        new.CopyFrom(node)
        del new.input[:]
        new.input.extend(i for i in node.input if i.lstrip("^") not in removed)
        kept.append(new)
    control_sources = {i[1:] for n in kept for i in n.input if i.startswith("^")}
    with_control_inputs = {n.name for n in kept if any(i.startswith("^") for i in n.input)}
    splice = {
        n.name: n.input[0]
        for n in kept
        if n.op == "Identity"
        and n.name not in protected
        and n.name not in with_control_inputs
        and n.name not in control_sources
    }
    out = graph_pb2.GraphDef()
    for node in kept:
        if node.name in splice:
            continue
        new = out.node.add()
        new.CopyFrom(node)
        del new.input[:]
        for raw in node.input:
            name = raw.lstrip("^")
            while name in splice:
                raw = splice[name]
                name = raw.lstrip("^")
            new.input.append(raw)
    return out


__all__ = [
    "convert_variables_to_constants",
    "extract_sub_graph",
    "import_graph_def",
    "must_run_on_cpu",
    "remove_training_nodes",
    "tensor_shape_from_node_def_name",
]
