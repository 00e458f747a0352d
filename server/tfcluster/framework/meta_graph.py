"""MetaGraphDef: a graph with its collections, saver and signatures (TF's
python/framework/meta_graph.py): export under a scope, and import into the default graph.

Collections of graph elements are saved as their names (node_list); numbers and strings as
themselves; collections of Python objects (variables, savers, queue runners) as the protos
their owners registered in proto_functions. Import gives every collection back, the objects
rebuilt over the imported nodes.
"""

from __future__ import annotations

import copy
import logging
import os
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from google.protobuf import any_pb2, text_format

from tfcluster.framework import (
    graph_io,
    proto_functions,
    proto_text,
    stripped_op_list,
    v1_loop_contexts,
    v1_loop_lift,
)
from tfcluster.framework.graph import Graph, GraphKeys, get_default_graph
from tfcluster.protos import attr_value_pb2, graph_pb2, meta_graph_pb2

# The TF API version a MetaGraphDef says it was made with (TF 1.15's, which tfcluster serves).
TENSORFLOW_VERSION = "1.15.0"
UNBOUND_INPUT_PREFIX = "$unbound_inputs_"
SAVE_AND_RESTORE_OPS = ("SaveV2", "Save", "SaveSlices", "RestoreV2", "Restore", "RestoreSlice")
VARIABLE_COLLECTIONS = (
    GraphKeys.GLOBAL_VARIABLES,
    GraphKeys.LOCAL_VARIABLES,
    "metric_variables",
    GraphKeys.MODEL_VARIABLES,
    GraphKeys.TRAINABLE_VARIABLES,
    GraphKeys.MOVING_AVERAGE_VARIABLES,
    "concatenated_variables",
    "trainable_resource_variables",
)


def _git_version() -> str:
    from importlib import metadata

    try:
        return f"tfcluster-{metadata.version('tfcluster')}"
    except metadata.PackageNotFoundError:
        return "tfcluster"


# ---- name scopes --------------------------------------------------------------------------
def strip_name_scope(name: Any, export_scope: str | None) -> Any:
    """'scope/x' -> 'x' (also '^scope/x' and 'loc:@scope/x')."""
    if not export_scope:
        return name
    scope = export_scope[:-1] if export_scope.endswith("/") else export_scope
    text = name.decode() if isinstance(name, bytes) else name
    if not isinstance(text, str):
        return name
    return re.sub(r"([\^]|loc:@|^)" + re.escape(scope) + r"[\/]+(.*)", r"\1\2", text, count=1)


def prepend_name_scope(name: Any, import_scope: str | None) -> Any:
    """'x' -> 'scope/x' (also '^x' and 'loc:@x')."""
    if not import_scope:
        return name
    scope = import_scope[:-1] if import_scope.endswith("/") else import_scope
    text = name.decode() if isinstance(name, bytes) else name
    if not isinstance(text, str):
        return name
    return re.sub(r"([\^]|loc:@|^)(.*)", lambda m: m.group(1) + scope + "/" + m.group(2), text)


def _op_name(tensor_name: str) -> str:
    name = tensor_name[1:] if tensor_name.startswith("^") else tensor_name
    op, sep, index = name.rpartition(":")
    return op if sep and index.isdigit() else name


# ---- files --------------------------------------------------------------------------------
def read_meta_graph_file(filename: str) -> meta_graph_pb2.MetaGraphDef:
    """A MetaGraphDef from a binary or text file."""
    if not os.path.exists(filename):
        raise OSError(f"File {filename} does not exist.")
    with open(filename, "rb") as f:
        content = f.read()
    meta_graph_def = meta_graph_pb2.MetaGraphDef()
    try:
        meta_graph_def.ParseFromString(content)
        return meta_graph_def
    except Exception:
        meta_graph_def.Clear()
    try:
        text_format.Merge(content.decode("utf-8"), meta_graph_def)
    except (text_format.ParseError, UnicodeDecodeError) as e:
        raise OSError(f"Cannot parse file {filename}: {e}.") from None
    return meta_graph_def


def write_proto(message: Any, logdir: str, name: str, as_text: bool = True) -> str:
    """Writes a proto to logdir/name (text or binary) atomically; creates logdir."""
    from tfcluster.framework.tensor_bundle.bundle import _write_atomically

    if logdir and not os.path.exists(logdir):
        os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    data = (
        proto_text.message_to_string(message).encode()
        if as_text
        else message.SerializeToString(deterministic=True)
    )
    _write_atomically(path, data)
    return path


# ---- export -------------------------------------------------------------------------------
def _should_include(item: Any, export_scope: str | None, exclude: set[str] | None) -> bool:
    if isinstance(item, str):
        name = item
    else:
        try:
            name = item.name
        except AttributeError:
            return True  # objects we cannot judge are kept
        if not isinstance(name, str):
            return True
    if exclude and name in exclude:
        return False
    return (
        name.startswith(UNBOUND_INPUT_PREFIX) or not export_scope or name.startswith(export_scope)
    )


def _scoped_node_def(
    node: Any, export_scope: str | None, unbound: list[str], clear_devices: bool
) -> Any:
    out = copy.deepcopy(node)
    for i, raw in enumerate(node.input):
        if export_scope and not raw.lstrip("^").startswith(export_scope):
            caret = "^" if raw.startswith("^") else ""
            out.input[i] = caret + UNBOUND_INPUT_PREFIX + raw.lstrip("^")
            unbound.append(out.input[i])
        else:
            out.input[i] = strip_name_scope(raw, export_scope)
    out.name = strip_name_scope(node.name, export_scope)
    if "_class" in node.attr:
        kept = [
            strip_name_scope(s.decode(), export_scope).encode()
            for s in node.attr["_class"].list.s
            if not export_scope or s.decode().split("@", 1)[-1].startswith(export_scope)
        ]
        out.attr["_class"].CopyFrom(
            attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(s=kept))
        )
    if clear_devices:
        out.device = ""
    return out


def _scope_of(name: str) -> str:
    return name.rpartition("/")[0]


def _extraneous_saver_nodes(graph_def: Any, saver_def: Any) -> set[str]:
    """Nodes of Savers other than `saver_def`'s (each Saver lives in its own scope)."""
    keep: set[str] = set()
    if saver_def is not None:
        keep = {
            _scope_of(_op_name(saver_def.save_tensor_name)) + "/",
            _scope_of(_op_name(saver_def.restore_op_name)) + "/",
        }
    saver_nodes = {n.name for n in graph_def.node if n.op in SAVE_AND_RESTORE_OPS}
    scopes = {_scope_of(n) for n in saver_nodes} - saver_nodes
    extraneous = {s + "/" for s in scopes} - keep
    return {n.name for n in graph_def.node if any(n.name.startswith(s) for s in extraneous)}


_log = logging.getLogger("tensorflow")
_UNSUPPORTED_COLLECTION = (
    "Type is unsupported, or the types of the items don't match field type in CollectionDef."
    " Note this is a warning and probably safe to ignore."
)


def _kind(item: Any) -> str:
    if isinstance(item, (str, bytes)):
        return "bytes_list"
    if isinstance(item, any_pb2.Any):
        return "any_list"
    if isinstance(item, int):  # bools too: True is stored as 1, as TF does
        return "int64_list"
    if isinstance(item, float):
        return "float_list"
    # Anything else is taken for a graph element; one without a name fails on export.
    return "node_list"


def add_collection_def(
    meta_graph_def: Any,
    key: Any,
    graph: Graph | None = None,
    export_scope: str | None = None,
    exclude_nodes: set[str] | None = None,
    override_contents: Sequence[Any] | None = None,
) -> None:
    """Adds collection `key` of the graph to meta_graph_def (skipped when it cannot be)."""
    if isinstance(key, bytes):
        key = key.decode()
    if not isinstance(key, str):
        return
    graph = graph or get_default_graph()
    items = list(override_contents) if override_contents else graph.get_collection(key)
    items = [x for x in items if _should_include(x, export_scope, exclude_nodes)]
    if not items:
        return
    col_def = meta_graph_def.collection_def[key]
    try:
        to_proto = proto_functions.get_to_proto_function(key)
        if to_proto is not None:
            for x in items:
                proto = to_proto(x, export_scope=export_scope)
                if proto:
                    col_def.bytes_list.value.append(proto.SerializeToString())
            return
        kind = _kind(items[0])
        if kind == "node_list":
            for x in items:
                if not export_scope or x.name.startswith(export_scope):
                    col_def.node_list.value.append(strip_name_scope(x.name, export_scope))
        elif kind == "bytes_list":
            col_def.bytes_list.value.extend(x.encode() if isinstance(x, str) else x for x in items)
        elif kind == "any_list":
            for x in items:
                col_def.any_list.value.add().CopyFrom(x)
        elif kind == "int64_list":
            # Older protobufs (TF 1.15's) take bools as integers; this one refuses them.
            col_def.int64_list.value.extend(int(x) if isinstance(x, bool) else x for x in items)
        else:
            getattr(col_def, kind).value.extend(items)
    except Exception as e:
        # As TF, the collection is left out with a warning (programs put anything in them).
        _log.warning(
            "Issue encountered when serializing %s.\n%s\n%s", key, _UNSUPPORTED_COLLECTION, e
        )
        del meta_graph_def.collection_def[key]


def create_meta_graph_def(
    meta_info_def: Any = None,
    graph_def: Any = None,
    saver_def: Any = None,
    collection_list: Iterable[str] | None = None,
    graph: Graph | None = None,
    export_scope: str | None = None,
    exclude_nodes: set[str] | None = None,
    clear_extraneous_savers: bool = False,
    strip_default_attrs: bool = False,
) -> meta_graph_pb2.MetaGraphDef:
    if graph_def is not None and not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError(f"graph_def must be of type GraphDef, not {type(graph_def)}")
    graph = graph or get_default_graph()
    mgd = meta_graph_pb2.MetaGraphDef()
    if meta_info_def is not None:
        mgd.meta_info_def.MergeFrom(meta_info_def)
    mgd.meta_info_def.tensorflow_version = TENSORFLOW_VERSION
    mgd.meta_info_def.tensorflow_git_version = _git_version()
    if graph_def is None:
        mgd.graph_def.MergeFrom(graph.as_graph_def(add_shapes=True))
    else:
        mgd.graph_def.MergeFrom(graph_def)
    if not mgd.meta_info_def.stripped_op_list.op:
        mgd.meta_info_def.stripped_op_list.MergeFrom(
            stripped_op_list.stripped_op_list_for_graph(mgd.graph_def)
        )
    if strip_default_attrs:
        stripped_op_list.strip_default_valued_attrs(mgd)
    if saver_def is not None:
        mgd.saver_def.MergeFrom(saver_def)
    keys = list(collection_list) if collection_list is not None else graph.get_all_collection_keys()
    for key in keys:
        if clear_extraneous_savers and key == GraphKeys.SAVERS:
            from_proto = proto_functions.get_from_proto_function(key)
            contents = [from_proto(saver_def)] if (from_proto and saver_def) else []
            add_collection_def(mgd, key, graph, export_scope, exclude_nodes, contents)
        else:
            add_collection_def(mgd, key, graph, export_scope, exclude_nodes)
    if not export_scope and (collection_list is None or v1_loop_lift.WHILE_CONTEXT in keys):
        _add_while_contexts(mgd)
    return mgd


def _add_while_contexts(mgd: meta_graph_pb2.MetaGraphDef) -> None:
    """The WhileContextDef of each TF1 loop frame the GraphDef has (tfcluster's While ops
    are written as such frames) and the collection does not list yet: TF 1.15 needs them
    to differentiate the loops after import_meta_graph."""
    key = v1_loop_lift.WHILE_CONTEXT
    listed: set[str] = set()
    if key in mgd.collection_def:
        listed = v1_loop_lift.while_context_names(mgd.collection_def[key].bytes_list.value)
    made = v1_loop_contexts.while_context_defs(mgd.graph_def, skip=listed)
    if made:
        mgd.collection_def[key].bytes_list.value.extend(
            c.SerializeToString(deterministic=True) for c in made
        )


def export_scoped_meta_graph(
    filename: str | None = None,
    graph_def: Any = None,
    graph: Graph | None = None,
    export_scope: str | None = None,
    as_text: bool = False,
    unbound_inputs_col_name: str = "unbound_inputs",
    clear_devices: bool = False,
    saver_def: Any = None,
    clear_extraneous_savers: bool = False,
    strip_default_attrs: bool = False,
    save_debug_info: bool = False,
    **kwargs: Any,
) -> tuple[meta_graph_pb2.MetaGraphDef, dict[str, Any]]:
    """The MetaGraphDef of the graph (the part under export_scope, the scope stripped), and
    its global variables by stripped name; written to `filename` when given."""
    graph = graph or get_default_graph()
    exclude: set[str] | None = None
    unbound: list[str] = []
    if export_scope or clear_extraneous_savers or clear_devices:
        source = graph_def if graph_def is not None else graph.as_graph_def(add_shapes=True)
        if clear_extraneous_savers:
            exclude = _extraneous_saver_nodes(source, saver_def)
        new_def = graph_pb2.GraphDef()
        new_def.versions.CopyFrom(source.versions)
        new_def.library.CopyFrom(source.library)
        for node in source.node:
            if _should_include(node.name, export_scope, exclude):
                new_def.node.append(_scoped_node_def(node, export_scope, unbound, clear_devices))
        graph_def = new_def
        if unbound_inputs_col_name:
            graph.clear_collection(unbound_inputs_col_name)
            for name in unbound:
                graph.add_to_collection(unbound_inputs_col_name, name)
    var_list: dict[str, Any] = {}
    for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=export_scope):
        if _should_include(v, export_scope, exclude):
            var_list[strip_name_scope(v.name, export_scope)] = v
    mgd = create_meta_graph_def(
        graph_def=graph_def,
        graph=graph,
        export_scope=export_scope,
        exclude_nodes=exclude,
        clear_extraneous_savers=clear_extraneous_savers,
        saver_def=saver_def,
        strip_default_attrs=strip_default_attrs,
        **kwargs,
    )
    if filename:
        write_proto(mgd, os.path.dirname(filename), os.path.basename(filename), as_text=as_text)
    return mgd, var_list


# ---- import -------------------------------------------------------------------------------
def import_scoped_meta_graph_with_return_elements(
    meta_graph_or_file: Any,
    clear_devices: bool = False,
    graph: Graph | None = None,
    import_scope: str | None = None,
    input_map: dict[str, Any] | None = None,
    unbound_inputs_col_name: str = "unbound_inputs",
    restore_collections_predicate: Callable[[str], bool] = lambda key: True,
    return_elements: Sequence[str] | None = None,
) -> tuple[dict[str, Any], list[Any] | None]:
    """Imports the graph and collections of a MetaGraphDef into `graph` under import_scope;
    returns its global variables by name (scope stripped) and the requested elements."""
    if isinstance(meta_graph_or_file, meta_graph_pb2.MetaGraphDef):
        mgd = meta_graph_or_file
    else:
        mgd = read_meta_graph_file(meta_graph_or_file)
    if unbound_inputs_col_name and unbound_inputs_col_name in mgd.collection_def:
        col = mgd.collection_def[unbound_inputs_col_name]
        kind = col.WhichOneof("kind")
        values = [v.decode() if isinstance(v, bytes) else v for v in getattr(col, kind).value]
        if values and (not input_map or sorted(values) != sorted(input_map)):
            raise ValueError(
                f"The MetaGraphDef has unbound inputs: map them with input_map ({sorted(values)})"
            )
    graph = graph or get_default_graph()
    with graph.as_default():
        graph_def = mgd.graph_def
        if clear_devices:
            graph_def = copy.deepcopy(graph_def)
            for node in graph_def.node:
                node.device = ""
        scope = graph.unique_name(import_scope or "", mark_as_used=False)
        as_given = graph_def
        graph_def, mgd = _loops_lifted(graph_def, mgd)
        info = mgd.meta_info_def
        producer_ops = info.stripped_op_list if info.HasField("stripped_op_list") else None
        returned = graph_io.import_reshaped_graph_def(
            graph_def,
            as_given,
            name=import_scope or scope,
            input_map=input_map,
            return_elements=return_elements,
            producer_op_list=producer_ops,
        )
        _restore_collections(
            graph, mgd, scope, unbound_inputs_col_name, restore_collections_predicate
        )
        var_list = {
            strip_name_scope(v.name, scope): v
            for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=scope or None)
        }
    return var_list, returned


def _loops_lifted(graph_def: Any, mgd: Any) -> tuple[Any, Any]:
    """The graph with TF1's while loop frames the MetaGraph's while_context collection names
    raised to functional Whiles (which tfcluster differentiates, as TF 1.15 does with the
    contexts), and the collections without the contexts of what was raised."""
    if v1_loop_lift.WHILE_CONTEXT not in mgd.collection_def:
        return graph_def, mgd
    raw = list(mgd.collection_def[v1_loop_lift.WHILE_CONTEXT].bytes_list.value)
    lifted = v1_loop_lift.lift_loops(graph_def, v1_loop_lift.while_context_names(raw))
    if len(lifted.node) == len(graph_def.node) and lifted == graph_def:
        return graph_def, mgd
    left = {nd.name for nd in lifted.node}
    out = meta_graph_pb2.MetaGraphDef()
    out.CopyFrom(mgd)
    for key in (v1_loop_lift.WHILE_CONTEXT, v1_loop_lift.COND_CONTEXT):
        if key not in out.collection_def:
            continue
        values = out.collection_def[key].bytes_list.value
        kept = [r for r in values if v1_loop_lift.context_pivot(key, r) in left]
        del values[:]
        values.extend(kept)
        if not kept:
            del out.collection_def[key]
    return lifted, out


def _restore_collections(
    graph: Graph,
    mgd: Any,
    scope: str,
    unbound_inputs_col_name: str,
    predicate: Callable[[str], bool],
) -> None:
    # Trainable variables first, so an object made from a VariableDef is shared by every
    # collection that lists it.
    keys = sorted(mgd.collection_def)
    if GraphKeys.TRAINABLE_VARIABLES in keys:
        keys.remove(GraphKeys.TRAINABLE_VARIABLES)
        keys.insert(0, GraphKeys.TRAINABLE_VARIABLES)
    made: dict[bytes, Any] = {}
    for key in keys:
        if key == unbound_inputs_col_name or not predicate(key):
            continue
        col = mgd.collection_def[key]
        kind = col.WhichOneof("kind")
        if kind is None:
            continue
        from_proto = proto_functions.get_from_proto_function(key)
        if from_proto is not None and kind == "bytes_list":
            proto_type = proto_functions.get_collection_proto_type(key)
            for raw in col.bytes_list.value:
                if key in VARIABLE_COLLECTIONS and raw in made:
                    graph.add_to_collection(key, made[raw])
                    continue
                proto = proto_type()
                proto.ParseFromString(raw)
                obj = from_proto(proto, import_scope=scope)
                if key in VARIABLE_COLLECTIONS:
                    made[raw] = obj
                graph.add_to_collection(key, obj)
        elif kind == "node_list":
            for name in col.node_list.value:
                graph.add_to_collection(
                    key, graph.as_graph_element(prepend_name_scope(name, scope))
                )
        elif kind == "int64_list":
            for value in col.int64_list.value:
                graph.add_to_collection(key, int(value))
        elif kind == "float_list":
            for value in col.float_list.value:
                graph.add_to_collection(key, float(value))
        elif kind == "bytes_list":
            for raw in col.bytes_list.value:
                graph.add_to_collection(key, prepend_name_scope(raw, scope) if scope else raw)
        else:
            for any_value in col.any_list.value:
                graph.add_to_collection(key, any_value)


def import_scoped_meta_graph(
    meta_graph_or_file: Any,
    clear_devices: bool = False,
    graph: Graph | None = None,
    import_scope: str | None = None,
    input_map: dict[str, Any] | None = None,
    unbound_inputs_col_name: str = "unbound_inputs",
    restore_collections_predicate: Callable[[str], bool] = lambda key: True,
) -> dict[str, Any]:
    return import_scoped_meta_graph_with_return_elements(
        meta_graph_or_file,
        clear_devices,
        graph,
        import_scope,
        input_map,
        unbound_inputs_col_name,
        restore_collections_predicate,
    )[0]


__all__ = [
    "add_collection_def",
    "create_meta_graph_def",
    "export_scoped_meta_graph",
    "import_scoped_meta_graph",
    "import_scoped_meta_graph_with_return_elements",
    "prepend_name_scope",
    "read_meta_graph_file",
    "strip_name_scope",
    "write_proto",
]
