"""tensorflow.python.tools.freeze_graph (`freeze_graph.freeze_graph(input_graph=..., ...)`, the
usual last step of a TF1 training script that exports a model): a graph and a checkpoint become
one GraphDef whose variables are constants, written to `output_graph`. Built on tfcluster's
Session, Saver and graph_util.convert_variables_to_constants. The command line (main,
run_main) is not served."""

from __future__ import annotations

import re
from typing import Any

from google.protobuf import text_format

from tfcluster.framework import internal_deprecations
from tfcluster.protos import graph_pb2, saver_pb2
from tfcluster.protos.meta_graph_pb2 import MetaGraphDef
from tfcluster.python._private_module import module_getattr

_SERVING = "serve"


def _tf() -> Any:
    import tfcluster

    return tfcluster


def _has_no_variables(sess: Any) -> bool:
    """Whether the session's graph has no variable ops."""
    for op in sess.graph.get_operations():
        if op.type.startswith("Variable") or op.type.endswith("VariableOp"):
            return False
    return True


def _restore_from_checkpoint(sess: Any, input_checkpoint: str, checkpoint_version: int) -> None:
    """Restores each variable of the checkpoint the graph has a tensor of (by name)."""
    tf = _tf()
    reader = tf.train.NewCheckpointReader(input_checkpoint)
    partitioned = [
        t.name.split(":")[0]
        for op in sess.graph.get_operations()
        for t in op.values()
        if re.search(r"/part_\d+/", t.name)
    ]
    var_list: dict[str, Any] = {}
    has_partition_var = False
    for key in reader.get_variable_to_shape_map():
        try:
            tensor = sess.graph.get_tensor_by_name(key + ":0")
        except KeyError:
            continue
        if any(key in name for name in partitioned):
            has_partition_var = True
        var_list[key] = tensor
    try:
        saver = tf.train.Saver(var_list=var_list, write_version=checkpoint_version)
    except TypeError:
        if has_partition_var:
            raise ValueError(
                "Models containing partition variables cannot be converted "
                "from checkpoint files. Please pass in a SavedModel using "
                "the flag --input_saved_model_dir."
            ) from None
        if _has_no_variables(sess):
            raise ValueError(
                "No variables were found in this model. It is likely the model "
                "was frozen previously. You cannot freeze a graph twice."
            ) from None
        raise
    saver.restore(sess, input_checkpoint)


def _names(value: str) -> list[str] | None:
    return value.replace(" ", "").split(",") if value else None


def freeze_graph_with_def_protos(
    input_graph_def: Any,
    input_saver_def: Any,
    input_checkpoint: str,
    output_node_names: str,
    restore_op_name: Any,
    filename_tensor_name: Any,
    output_graph: str,
    clear_devices: bool,
    initializer_nodes: str,
    variable_names_whitelist: str = "",
    variable_names_blacklist: str = "",
    input_meta_graph_def: Any = None,
    input_saved_model_dir: str | None = None,
    saved_model_tags: Any = None,
    checkpoint_version: int = saver_pb2.SaverDef.V2,
) -> Any:
    """The frozen GraphDef of the graph and checkpoint given (also written to output_graph)."""
    del restore_op_name, filename_tensor_name  # unused, as in TF
    tf = _tf()
    if not input_saved_model_dir:
        # TF's freeze_graph calls the deprecated checkpoint_exists (its warning from here).
        internal_deprecations.called_internally(internal_deprecations.CHECKPOINT_EXISTS)
    if not input_saved_model_dir and not tf.train.checkpoint_exists(input_checkpoint):
        raise ValueError("Input checkpoint '" + input_checkpoint + "' doesn't exist!")
    if not output_node_names:
        raise ValueError("You need to supply the name of a node to --output_node_names.")
    if clear_devices:
        if input_meta_graph_def:
            for node in input_meta_graph_def.graph_def.node:
                node.device = ""
        elif input_graph_def:
            for node in input_graph_def.node:
                node.device = ""
    if input_graph_def:
        tf.import_graph_def(input_graph_def, name="")
    with tf.Session() as sess:
        if input_saver_def:
            saver = tf.train.Saver(saver_def=input_saver_def, write_version=checkpoint_version)
            saver.restore(sess, input_checkpoint)
        elif input_meta_graph_def:
            restorer = tf.train.import_meta_graph(input_meta_graph_def, clear_devices=True)
            restorer.restore(sess, input_checkpoint)
            if initializer_nodes:
                sess.run(initializer_nodes.replace(" ", "").split(","))
        elif input_saved_model_dir:
            tf.saved_model.loader.load(sess, saved_model_tags or [], input_saved_model_dir)
        else:
            _restore_from_checkpoint(sess, input_checkpoint, checkpoint_version)
            if initializer_nodes:
                sess.run(initializer_nodes.replace(" ", "").split(","))
        graph_def = input_meta_graph_def.graph_def if input_meta_graph_def else input_graph_def
        internal_deprecations.called_internally(
            internal_deprecations.CONVERT_VARIABLES_TO_CONSTANTS
        )
        output_graph_def = tf.graph_util.convert_variables_to_constants(
            sess,
            graph_def,
            output_node_names.replace(" ", "").split(","),
            variable_names_whitelist=_names(variable_names_whitelist),
            variable_names_blacklist=_names(variable_names_blacklist),
        )
    if output_graph:
        with tf.gfile.GFile(output_graph, "wb") as f:
            f.write(output_graph_def.SerializeToString())
    return output_graph_def


def _read_proto(path: str, binary: bool, message: Any) -> Any:
    tf = _tf()
    with tf.gfile.GFile(path, "rb" if binary else "r") as f:
        if binary:
            message.ParseFromString(f.read())
        else:
            text_format.Merge(f.read(), message)
    return message


def _parse_input_graph_proto(input_graph: str, input_binary: bool) -> Any:
    if not _tf().gfile.Exists(input_graph):
        raise OSError("Input graph file '" + input_graph + "' does not exist!")
    return _read_proto(input_graph, input_binary, graph_pb2.GraphDef())


def _parse_input_meta_graph_proto(input_graph: str, input_binary: bool) -> Any:
    if not _tf().gfile.Exists(input_graph):
        raise OSError("Input meta graph file '" + input_graph + "' does not exist!")
    meta = _read_proto(input_graph, input_binary, MetaGraphDef())
    print("Loaded meta graph file '" + input_graph)
    return meta


def _parse_input_saver_proto(input_saver: str, input_binary: bool) -> Any:
    if not _tf().gfile.Exists(input_saver):
        raise OSError("Input saver file '" + input_saver + "' does not exist!")
    return _read_proto(input_saver, input_binary, saver_pb2.SaverDef())


def freeze_graph(
    input_graph: str,
    input_saver: str,
    input_binary: bool,
    input_checkpoint: str,
    output_node_names: str,
    restore_op_name: Any,
    filename_tensor_name: Any,
    output_graph: str,
    clear_devices: bool,
    initializer_nodes: str,
    variable_names_whitelist: str = "",
    variable_names_blacklist: str = "",
    input_meta_graph: str | None = None,
    input_saved_model_dir: str | None = None,
    saved_model_tags: str = _SERVING,
    checkpoint_version: int = saver_pb2.SaverDef.V2,
) -> Any:
    """freeze_graph_with_def_protos of the protos read from the files given."""
    input_graph_def = None
    if input_saved_model_dir:
        from tfcluster.lib.saved_model.loader import SavedModelLoader

        tags = saved_model_tags.replace(" ", "").split(",")
        loader = SavedModelLoader(input_saved_model_dir)
        input_graph_def = loader.get_meta_graph_def_from_tags(tags).graph_def
    elif input_graph:
        input_graph_def = _parse_input_graph_proto(input_graph, input_binary)
    input_meta_graph_def = None
    if input_meta_graph:
        input_meta_graph_def = _parse_input_meta_graph_proto(input_meta_graph, input_binary)
    input_saver_def = None
    if input_saver:
        input_saver_def = _parse_input_saver_proto(input_saver, input_binary)
    return freeze_graph_with_def_protos(
        input_graph_def,
        input_saver_def,
        input_checkpoint,
        output_node_names,
        restore_op_name,
        filename_tensor_name,
        output_graph,
        clear_devices,
        initializer_nodes,
        variable_names_whitelist,
        variable_names_blacklist,
        input_meta_graph_def,
        input_saved_model_dir,
        saved_model_tags.replace(" ", "").split(","),
        checkpoint_version=checkpoint_version,
    )


__getattr__ = module_getattr("python.tools.freeze_graph")

__all__ = ["MetaGraphDef", "freeze_graph", "freeze_graph_with_def_protos"]
