"""A functional network's config as TF 1.15 writes it (`layers` with their `inbound_nodes`,
`input_layers`, `output_layers`) and the network rebuilt from one: layers made from their
configs, then called node by node in the recorded order (a node waits until the nodes it
reads exist, as for shared layers)."""

from __future__ import annotations

from typing import Any


def _network_nodes(network: Any) -> tuple[set[int], dict[tuple[int, int], int]]:
    """The ids of the network's own nodes, and (layer id, node index) -> that node's index
    among the layer's nodes that belong to this network (a shared layer may have more)."""
    from tfcluster.lib.keras.engine.input_layer import InputLayer

    nodes = {id(n) for n in network._nodes_in_order}
    for layer in network._layers:
        if isinstance(layer, InputLayer):
            nodes.add(id(layer._inbound_nodes[0]))
    conversion: dict[tuple[int, int], int] = {}
    for layer in network._layers:
        # A nested graph network's node 0 is its own (made again when it is rebuilt).
        kept = 1 if hasattr(layer, "_layers") and getattr(layer, "_is_graph_network", False) else 0
        for index, node in enumerate(layer._inbound_nodes):
            if id(node) in nodes:
                conversion[(id(layer), index)] = kept
                kept += 1
    return nodes, conversion


def get_config(network: Any) -> dict[str, Any]:
    from tfcluster.lib.keras.engine.input_layer import InputLayer

    nodes, conversion = _network_nodes(network)
    layer_configs = []
    for layer in network._layers:
        inbound: list[Any] = []
        if not isinstance(layer, InputLayer):
            for node in layer._inbound_nodes:
                if id(node) not in nodes:
                    continue
                node_data = []
                for t in node.input_tensors:
                    source, node_index, tensor_index = t._keras_history
                    new_index = conversion.get((id(source), node_index), 0)
                    node_data.append([source.name, new_index, tensor_index, {}])
                if node_data:
                    inbound.append(node_data)
        layer_configs.append(
            {
                "name": layer.name,
                "class_name": type(layer).__name__,
                "config": layer.get_config(),
                "inbound_nodes": inbound,
            }
        )

    def endpoints(tensors: list[Any]) -> list[list[Any]]:
        out = []
        for t in tensors:
            layer, node_index, tensor_index = t._keras_history
            out.append([layer.name, conversion.get((id(layer), node_index), 0), tensor_index])
        return out

    return {
        "name": network.name,
        "layers": layer_configs,
        "input_layers": endpoints(network.inputs),
        "output_layers": endpoints(network.outputs),
    }


def _unpack(values: list[Any]) -> Any:
    return values[0] if len(values) == 1 else values


def from_config(cls: type, config: dict[str, Any], custom_objects: Any = None) -> Any:
    from tfcluster.lib.keras.layers.serialization import deserialize

    created: dict[str, Any] = {}
    pending: dict[str, list[Any]] = {}

    def process_node(layer: Any, node_data: list[Any]) -> bool:
        inputs = []
        kwargs: dict[str, Any] = {}
        for entry in node_data:
            name, node_index, tensor_index = entry[0], entry[1], entry[2]
            kwargs = entry[3] if len(entry) > 3 else {}
            source = created[name]
            if len(source._inbound_nodes) <= node_index:
                return False
            inputs.append(source._inbound_nodes[node_index].output_tensors[tensor_index])
        if inputs:
            layer(_unpack(inputs), **kwargs)
        return True

    for layer_data in config["layers"]:
        layer = deserialize(
            {"class_name": layer_data["class_name"], "config": layer_data["config"]},
            custom_objects=custom_objects,
        )
        created[layer_data["name"]] = layer
        pending[layer_data["name"]] = list(layer_data.get("inbound_nodes", []))

    while any(pending.values()):
        progressed = False
        for layer_data in config["layers"]:
            name = layer_data["name"]
            waiting = pending[name]
            while waiting and process_node(created[name], waiting[0]):
                waiting.pop(0)
                progressed = True
        if not progressed:
            waiting = sorted(name for name, nodes in pending.items() if nodes)
            raise ValueError(
                f"The model config has nodes whose inputs are never made (layers {waiting})."
            )

    def tensors(endpoints: list[Any]) -> list[Any]:
        out = []
        for name, node_index, tensor_index in endpoints:
            node = created[name]._inbound_nodes[node_index]
            out.append(node.output_tensors[tensor_index])
        return out

    model = cls(
        inputs=tensors(config["input_layers"]),
        outputs=tensors(config["output_layers"]),
        name=config.get("name"),
    )
    # Layers the outputs do not reach (an AddLoss and its op layers) join after the others.
    in_model = {id(layer) for layer in model._layers}
    ancillary = [layer for layer in created.values() if id(layer) not in in_model]
    if ancillary:
        from tfcluster.lib.keras.engine import tf_op_layer

        tf_op_layer.insert_layers(model, ancillary)
    return model
