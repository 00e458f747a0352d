"""A Keras network: layers connected into a graph, built from the call history of its
output tensors (functional), from a list (Sequential, engine/sequential.py), or from a
subclass's own `call` (subclassed). Weights, summary() and get/set_weights live here;
training (compile/fit/...) in engine/training.py."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Tensor
from tfcluster.lib.keras.engine import base_layer, network_config, tf_op_layer
from tfcluster.lib.keras.engine.base_layer import KerasLayerMixin, Node, flatten
from tfcluster.lib.layers import base as layers_base


class Network(KerasLayerMixin, layers_base.Layer):
    _layers: list[Any]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        inputs = kwargs.pop("inputs", args[0] if len(args) > 0 else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        name = kwargs.pop("name", None)
        trainable = kwargs.pop("trainable", True)
        object.__setattr__(self, "_layers", [])
        self._is_graph_network = False
        self.inputs: list[Any] = []
        self.outputs: list[Any] = []
        super().__init__(name=name, trainable=trainable, **kwargs)
        if inputs is not None and outputs is not None:
            self._init_graph_network(inputs, outputs)

    # ---- layers tracked by attribute (subclassed models) ------------------------------------
    def __setattr__(self, key: str, value: Any) -> None:
        layers = self.__dict__.get("_layers")
        if layers is not None and not key.startswith("_"):
            # A layer, or a list/tuple of layers (Keras tracks those too).
            candidates = value if isinstance(value, (list, tuple)) else [value]
            for item in candidates:
                if isinstance(item, layers_base.Layer) and all(item is not x for x in layers):
                    layers.append(item)
        super().__setattr__(key, value)
        from tfcluster.lib.keras import metrics

        if isinstance(value, metrics.Metric):
            # TF 1.15 tracks a metric made in a subclassed model's __init__ at once, so it
            # reports before the metrics its call adds.
            from tfcluster.lib.keras.engine import layer_metrics

            layer_metrics.metrics_of(self).append(value)

    @property
    def dynamic(self) -> bool:
        """True when the network or any of its layers was made with dynamic=True."""
        return self._dynamic or any(getattr(layer, "dynamic", False) for layer in self._layers)

    @property
    def layers(self) -> list[Any]:
        """Every layer, the InputLayers of a functional model included (as in TF 1.15)."""
        return list(self._layers)

    def get_layer(self, name: str | None = None, index: int | None = None) -> Any:
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(
                    f"Was asked to retrieve layer at index {index} but model only has "
                    f"{len(self.layers)} layers."
                )
            return self.layers[index]
        for layer in self._layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}")

    # ---- the functional graph --------------------------------------------------------------
    def _init_graph_network(self, inputs: Any, outputs: Any) -> None:
        self._nested_inputs = inputs
        self._nested_outputs = outputs
        self.inputs = flatten(inputs)
        self.outputs = flatten(outputs)
        if any(not hasattr(x, "_keras_history") for x in self.outputs):
            # Outputs made by raw TF ops get TensorFlowOpLayers (TF 1.15).
            tf_op_layer.create_keras_history(outputs)
        for x in self.inputs + self.outputs:
            if not hasattr(x, "_keras_history"):
                raise ValueError(
                    "Input tensors to a Model must come from `tf.keras.Input`. Received: "
                    f"{x} (missing previous layer metadata)."
                )
        self._is_graph_network = True
        self.built = True
        self._nodes_in_order = self._topological_nodes()
        self._layers[:] = layers_in_tf_order(self.inputs, self.outputs)
        self.input_names = [x._keras_history[0].name for x in self.inputs]
        self.output_names = [x._keras_history[0].name for x in self.outputs]
        # The network's own node, linking its inputs to its outputs, replaces those of earlier
        # builds (a Sequential rebuilds at each add), as TF 1.15's _base_init does.
        self._inbound_nodes = [Node(self, _one_or_all(inputs), _one_or_all(outputs))]

    def _topological_nodes(self) -> list[Node]:
        """The nodes between inputs and outputs, each after the nodes that feed it."""
        input_ids = {id(x) for x in self.inputs}
        ordered: list[Node] = []
        seen: set[int] = set()

        def visit(tensor: Any) -> None:
            if id(tensor) in input_ids:
                return
            layer, node_index, _ = tensor._keras_history
            node = layer._inbound_nodes[node_index]
            if id(node) in seen:
                return
            seen.add(id(node))
            for t in node.input_tensors:
                if not hasattr(t, "_keras_history"):
                    raise ValueError(
                        f"Graph disconnected: cannot obtain value for tensor {t} at layer "
                        f'"{layer.name}".'
                    )
                visit(t)
            ordered.append(node)

        for out in self.outputs:
            visit(out)
        return ordered

    def _run_graph(self, inputs: Any) -> Any:
        values = {id(x): v for x, v in zip(self.inputs, flatten(inputs))}
        for node in self._nodes_in_order:
            args = base_layer.layers_base._map(lambda t: values[id(t)], node.inputs_structure)
            outs = flatten(node.layer(args))
            for t, v in zip(node.output_tensors, outs):
                values[id(t)] = v
        results = [values[id(t)] for t in self.outputs]
        return results[0] if len(results) == 1 else results

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        if not self._is_graph_network:
            raise NotImplementedError("A subclassed Model must define `call`.")
        # As TF 1.15, a call on the model's own Input tensors builds the graph again too.
        return self._run_graph(inputs)

    # ---- weights ---------------------------------------------------------------------------
    def _all_layer_weights(self, attr: str) -> list[Any]:
        out: list[Any] = []
        seen: set[int] = set()
        own = list(getattr(self, "_" + attr))
        for layer in self._layers:
            for w in getattr(layer, attr):
                if id(w) not in seen:
                    seen.add(id(w))
                    out.append(w)
        return out + [w for w in own if id(w) not in seen]

    @property
    def trainable_weights(self) -> list[Any]:
        if not self.trainable:
            return []
        return self._all_layer_weights("trainable_weights")

    @property
    def non_trainable_weights(self) -> list[Any]:
        if not self.trainable:
            return self._all_layer_weights("trainable_weights") + self._all_layer_weights(
                "non_trainable_weights"
            )
        return self._all_layer_weights("non_trainable_weights")

    @property
    def weights(self) -> list[Any]:
        """Weights in layer order (as Keras's get_weights/save_weights see them)."""
        out: list[Any] = []
        seen: set[int] = set()
        for layer in self._layers:
            for w in layer.weights:
                if id(w) not in seen:
                    seen.add(id(w))
                    out.append(w)
        # A subclassed model's own add_weight()s come after its layers' (as in TF 1.15).
        own = list(self._trainable_weights) + list(self._non_trainable_weights)  # type: ignore[attr-defined]
        return out + [w for w in own if id(w) not in seen]

    @property
    def updates(self) -> list[Any]:
        out: list[Any] = []
        for layer in self._layers:
            out.extend(layer.updates)
        return out

    @property
    def state_updates(self) -> list[Any]:
        """The updates of stateful layers (an RNN's final states), run by predict too."""
        out: list[Any] = []
        for layer in self._layers:
            if getattr(layer, "stateful", False) and hasattr(layer, "updates"):
                out.extend(layer.updates)
            elif hasattr(layer, "state_updates"):
                out.extend(layer.state_updates)
        return out

    def reset_states(self) -> None:
        for layer in self._layers:
            stateful = hasattr(layer, "reset_states") and getattr(layer, "stateful", False)
            if stateful or isinstance(layer, Network):
                layer.reset_states()

    def add_loss(self, losses: Any, inputs: Any = None) -> None:
        """A functional model's symbolic loss is held by an AddLoss layer after its ops'
        TensorFlowOpLayers (TF 1.15's _graph_network_add_loss; compile leaves it out when
        the inputs do not reach it)."""
        rest = []
        for loss in flatten(losses):
            if (
                getattr(self, "_is_graph_network", False)
                and isinstance(loss, Tensor)
                and not tf_op_layer.in_a_call()
            ):
                tf_op_layer.graph_network_add_loss(self, loss)
            else:
                rest.append(loss)
        if rest:
            super().add_loss(rest, inputs)

    @property
    def losses(self) -> list[Any]:
        out: list[Any] = list(super().losses)
        for layer in self._layers:
            out.extend(layer.losses)
        return out

    # ---- config ----------------------------------------------------------------------------
    def get_config(self) -> dict[str, Any]:
        if not self._is_graph_network:
            raise NotImplementedError
        return network_config.get_config(self)

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        return network_config.from_config(cls, config, custom_objects)

    def to_json(self, **kwargs: Any) -> str:
        import json

        from tfcluster.lib.keras.utils.json_utils import keras_json_default

        model_config = {
            "class_name": type(self).__name__,
            "config": self.get_config(),
            "keras_version": KERAS_VERSION,
            "backend": "tensorflow",
        }
        return json.dumps(model_config, default=keras_json_default, **kwargs)

    def to_yaml(self, **kwargs: Any) -> str:
        import json

        yaml = _require_yaml()
        return str(yaml.dump(json.loads(self.to_json()), **kwargs))

    def count_params(self) -> int:
        return sum(layer.count_params() for layer in self.layers if layer.built)

    # ---- summary -----------------------------------------------------------------------------
    def summary(
        self, line_length: int | None = None, positions: Any = None, print_fn: Any = None
    ) -> None:
        from tfcluster.lib.keras.utils import layer_utils

        if not self.built:
            raise ValueError(
                "This model has not yet been built. Build the model first by calling `build()` "
                "or calling `fit()` with some data, or specify an `input_shape` argument in the "
                "first layer(s) for automatic build."
            )
        layer_utils.print_summary(self, line_length, positions, print_fn)


KERAS_VERSION = "2.2.4-tf"


def _require_yaml() -> Any:
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        raise ImportError("Requires yaml module installed (`pip install pyyaml`).") from None
    return yaml


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def _one_or_all(structure: Any) -> Any:
    """A one-tensor list as the tensor, as TF 1.15 nests a network's inputs and outputs: its
    input_shape and output_shape are then one shape, not a list of one."""
    if isinstance(structure, list) and len(flatten(structure)) == 1:
        return structure[0]
    return structure


def _inbound_nodes_of(node: Node) -> list[Node]:
    """The nodes that made a node's inputs, in input order (an InputLayer's node has none)."""
    out = []
    for t in node.input_tensors:
        if hasattr(t, "_keras_history"):
            layer, node_index, _ = t._keras_history
            inbound = layer._inbound_nodes[node_index]
            if inbound is not node:
                out.append(inbound)
    return out


def layers_in_tf_order(inputs: list[Any], outputs: list[Any]) -> list[Any]:
    """A functional model's layers in TF 1.15's order (its _map_graph_network): by depth,
    counted from the outputs, deepest (the inputs) first; within a depth, by when a
    depth-first walk from the outputs, inputs in order, first met the layer. model.layers,
    model.weights, HDF5 files and configs all follow this order."""
    layer_index: dict[int, int] = {}
    layers: dict[int, Any] = {}
    finished: set[int] = set()
    post_order: list[Node] = []

    def enter(node: Node) -> tuple[Node, Any]:
        layers.setdefault(id(node.layer), node.layer)
        layer_index.setdefault(id(node.layer), len(layer_index))
        return node, iter(_inbound_nodes_of(node))

    for out in outputs:
        layer, node_index, _ = out._keras_history
        root = layer._inbound_nodes[node_index]
        if id(root) in finished:
            continue
        stack = [enter(root)]
        in_progress = {id(root)}
        while stack:
            node, pending = stack[-1]
            child = next(pending, None)
            if child is None:
                stack.pop()
                in_progress.discard(id(node))
                finished.add(id(node))
                post_order.append(node)
            elif id(child) not in finished and id(child) not in in_progress:
                in_progress.add(id(child))
                stack.append(enter(child))
    node_depth: dict[int, int] = {}
    layer_depth: dict[int, int] = {}
    for node in reversed(post_order):
        depth = max(node_depth.setdefault(id(node), 0), layer_depth.get(id(node.layer), 0))
        layer_depth[id(node.layer)] = depth
        node_depth[id(node)] = depth
        for dep in _inbound_nodes_of(node):
            node_depth[id(dep)] = max(depth + 1, node_depth.get(id(dep), 0))
    for x in inputs:
        input_layer = x._keras_history[0]
        if id(input_layer) not in layer_depth:
            layers[id(input_layer)] = input_layer
            layer_depth[id(input_layer)] = 0
            layer_index[id(input_layer)] = -1
    by_depth: dict[int, list[int]] = {}
    for key, depth in layer_depth.items():
        by_depth.setdefault(depth, []).append(key)
    ordered: list[Any] = []
    for depth in sorted(by_depth, reverse=True):
        ordered.extend(layers[k] for k in sorted(by_depth[depth], key=layer_index.__getitem__))
    return ordered
