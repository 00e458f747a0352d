"""TF 1.15's Keras history for raw TensorFlow ops in the functional API: an op applied to
Keras tensors (`tf.square(h)`, `0.01 * tf.reduce_mean(...)`) becomes a TensorFlowOpLayer
(`tf_op_layer_<op name>`) when a layer is called on its result, when a Model is made with it
as an output, or when a functional model's add_loss gets it (then an AddLoss layer holds the
loss). The op's other inputs become constants, evaluated through K.function as TF does (its
`group_deps` ops and the session's variable initialization included). The layers rebuild
their op from its NodeDef when the model is called again or loaded from its config."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from google.protobuf import json_format

from tfcluster.framework import attr_values, op_signatures
from tfcluster.framework.graph import Tensor
from tfcluster.lib.keras import backend
from tfcluster.lib.keras.engine.base_layer import Layer, Node, flatten
from tfcluster.ops import constant_op
from tfcluster.protos import node_def_pb2

PREFIX = "tf_op_layer_"
_call_depth = [0]


@contextmanager
def in_call() -> Iterator[None]:
    """Inside a layer's call: ops there are the layer's own, never wrapped."""
    _call_depth[0] += 1
    try:
        yield
    finally:
        _call_depth[0] -= 1


def in_a_call() -> bool:
    return _call_depth[0] > 0


def uses_keras_history(tensor: Any) -> bool:
    """Whether tensor is computed from a tensor with Keras history (TF's walk back through
    op inputs, stopping at tensors already found not to; the tensor asked about is marked
    so, as TF marks it)."""
    stack = [tensor]
    seen: set[int] = set()
    while stack:
        t = stack.pop()
        if id(t) in seen or getattr(t, "_keras_history_checked", False):
            continue
        seen.add(id(t))
        if getattr(t, "_keras_history", None) is not None:
            return True
        stack.extend(t.op.inputs)
    tensor._keras_history_checked = True
    return False


def needs_keras_history(tensors: Any) -> bool:
    """Outside any layer's call, some Tensor lacks Keras history but is computed from one."""
    if _call_depth[0]:
        return False
    flat = [t for t in flatten(tensors) if isinstance(t, Tensor)]
    if all(getattr(t, "_keras_history", None) is not None for t in flat):
        return False
    return any(uses_keras_history(t) for t in flat)


def create_keras_history(tensors: Any) -> list[Layer]:
    """TF 1.15's create_keras_history: a TensorFlowOpLayer for every op between Keras
    tensors and `tensors`, made inputs first; returns them."""
    created: list[Layer] = []
    processed: set[int] = set()

    def wrap(tensor_list: list[Any]) -> None:
        for tensor in tensor_list:
            if getattr(tensor, "_keras_history", None) is not None:
                continue
            op = tensor.op
            if id(op) in processed:
                continue
            constants: dict[int, Any] = {}
            layer_inputs = []
            for i, op_input in enumerate(op.inputs):
                if uses_keras_history(op_input):
                    layer_inputs.append(op_input)
                else:
                    constants[i] = backend.function([], op_input)([])
            wrap(layer_inputs)
            layer = TensorFlowOpLayer(op.node_def, constants=constants, name=op.name)
            created.append(layer)
            layer._add_inbound_node(layer_inputs, list(op.outputs))
            processed.add(id(op))

    wrap([t for t in flatten(tensors) if isinstance(t, Tensor)])
    return created


def _sorted_attrs(config: dict[str, Any]) -> dict[str, Any]:
    """A NodeDef's dict with its attrs by name (TF's serialization sorts its map)."""
    if "attr" in config:
        config["attr"] = {k: config["attr"][k] for k in sorted(config["attr"])}
    return config


class TensorFlowOpLayer(Layer):
    """One TensorFlow op as a layer (`tf_op_layer_<op name>`): called, it makes the op again
    on its inputs, its constants put back at their input positions."""

    def __init__(
        self,
        node_def: Any,
        name: str,
        constants: Any = None,
        trainable: bool = True,
        dtype: Any = None,
    ) -> None:
        super().__init__(name=PREFIX + name, trainable=trainable, dtype=dtype)
        if isinstance(node_def, dict):
            self.node_def = json_format.ParseDict(node_def, node_def_pb2.NodeDef())
        elif isinstance(node_def, (bytes, str)):
            raw = node_def.encode("utf-8") if isinstance(node_def, str) else node_def
            self.node_def = node_def_pb2.NodeDef.FromString(raw)
        else:
            self.node_def = node_def
        self.constants = {int(i): c for i, c in (constants or {}).items()}
        self.built = True

    def _add_inbound_node(self, inputs: list[Any], outputs: list[Any]) -> None:
        node = Node(self, inputs, outputs)
        index = len(self._inbound_nodes)
        self._inbound_nodes.append(node)
        for layer in node.inbound_layers:
            layer._outbound_nodes.append(node)
        for i, t in enumerate(outputs):
            t._keras_history = (self, index, i)

    def call(self, inputs: Any) -> Any:
        inputs = list(flatten(inputs))
        graph = inputs[0].graph
        node_def = self.node_def
        with graph.as_default():
            for index, value in sorted(self.constants.items()):
                inputs.insert(index, constant_op.constant(value, name=node_def.input[index]))
            attrs = {k: attr_values.from_proto(k, v) for k, v in node_def.attr.items()}
            attrs = op_signatures.with_default_attrs(node_def.op, attrs)
            op = graph.create_op(node_def.op, inputs, attrs, name=node_def.name)
        outputs = list(op.outputs)
        return outputs[0] if len(outputs) == 1 else outputs

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["name"] = config["name"][len(PREFIX) :]
        config["node_def"] = _sorted_attrs(json_format.MessageToDict(self.node_def))
        config["constants"] = dict(self.constants)
        return config


class AddLoss(Layer):
    """Adds its input to its losses and returns it (a functional model's add_loss)."""

    def __init__(self, unconditional: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.unconditional = unconditional

    def call(self, inputs: Any) -> Any:
        self.add_loss(inputs)
        return inputs

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["unconditional"] = self.unconditional
        return config


def is_ancillary(layer: Any) -> bool:
    """A layer add_loss put in a model (an op layer or an AddLoss)."""
    return isinstance(layer, (TensorFlowOpLayer, AddLoss))


def insert_layers(network: Any, layers: list[Any]) -> None:
    """Layers reachable from the network's inputs but not its outputs (an AddLoss and the
    op layers before it), added after its layers with their nodes (TF's _insert_layers)."""
    known = {id(layer) for layer in network._layers}
    node_ids = {id(n) for n in network._nodes_in_order}
    for layer in layers:
        if id(layer) in known:
            continue
        known.add(id(layer))
        network._layers.append(layer)
        for node in layer._inbound_nodes:
            if id(node) not in node_ids and _reaches(node, network):
                node_ids.add(id(node))
                network._nodes_in_order.append(node)


def _reaches(node: Any, network: Any) -> bool:
    """Whether all of node's inputs are the network's inputs or outputs of its nodes."""
    known = {id(t) for t in network.inputs}
    for n in network._nodes_in_order:
        known.update(id(t) for t in n.output_tensors)
    return all(id(t) in known for t in node.input_tensors)


def graph_network_add_loss(network: Any, loss: Tensor) -> None:
    """TF 1.15's _graph_network_add_loss: op layers up to the loss, an AddLoss on it."""
    from tfcluster.lib.keras.engine.network import layers_in_tf_order

    create_keras_history(loss)
    add_loss_layer = AddLoss(unconditional=False)
    add_loss_layer(loss)
    new_layers = layers_in_tf_order(network.inputs, [loss])
    insert_layers(network, [*new_layers, add_loss_layer])


def unreachable_added_losses(network: Any) -> set[int]:
    """ids of the losses the network's AddLoss layers hold that its inputs do not reach:
    TF 1.15's compile keys them on the inputs and leaves them out of the total loss."""
    inputs = {id(t) for t in network.inputs}
    out: set[int] = set()
    for layer in network._layers:
        if not isinstance(layer, AddLoss):
            continue
        for loss in layer.losses:
            if not _reaches_inputs(loss, inputs):
                out.add(id(loss))
    return out


def _reaches_inputs(tensor: Any, inputs: set[int]) -> bool:
    stack = [tensor]
    seen: set[int] = set()
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if id(t) in inputs:
            return True
        stack.extend(t.op.inputs)
    return False
