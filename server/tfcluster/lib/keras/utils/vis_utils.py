"""tf.keras.utils.model_to_dot and plot_model (TF 1.15's vis_utils): a model as a pydot graph,
one `record` node per layer (`name: Class`, with an input/output shape table under
show_shapes), an edge per call between the network's layers, nested models as dashed
clusters under expand_nested; plot_model renders it with graphviz into the file named.
Both need pydot (pydot_ng or pydotplus first, as TF looks for them) and graphviz's `dot`: without
them, TF's ImportError (a printed line inside IPython)."""

from __future__ import annotations

import os
import sys
from typing import Any

from tfcluster.lib.keras.engine.network import Network
from tfcluster.lib.keras.engine.network_config import _network_nodes

_MISSING = "Failed to import pydot. You must install pydot and graphviz for `pydotprint` to work."


def _pydot() -> Any:
    for name in ("pydot_ng", "pydotplus", "pydot"):
        try:
            return __import__(name)
        except ImportError:
            continue
    return None


def check_pydot() -> bool:
    """Whether pydot and graphviz are there: graphviz must render an empty graph."""
    pydot = _pydot()
    if pydot is None:
        return False
    try:
        pydot.Dot.create(pydot.Dot())
        return True
    except OSError:
        return False


def _is_wrapper(layer: Any) -> bool:
    from tfcluster.lib.keras.layers.wrappers import Wrapper

    return isinstance(layer, Wrapper)


def is_wrapped_model(layer: Any) -> bool:
    return _is_wrapper(layer) and isinstance(layer.layer, Network)


def _add_edge(pydot: Any, dot: Any, src: str, dst: str) -> None:
    if not dot.get_edge(src, dst):
        dot.add_edge(pydot.Edge(src, dst))


def _format_shape(shape: Any) -> str:
    return str(shape).replace(str(None), "?")


def _label(layer: Any, layer_name: str, class_name: str, show_shapes: bool, names: bool) -> str:
    label = f"{layer_name}: {class_name}" if names else class_name
    if not show_shapes:
        return label
    try:
        outputs = _format_shape(layer.output_shape)
    except AttributeError:
        outputs = "?"
    try:
        inputs = _format_shape(layer.input_shape)
    except AttributeError:
        inputs = "?"
    # graphviz's record label: the name over a table of the input and output shapes.
    return label + "\n|{input:|output:}|{{" + inputs + "}|{" + outputs + "}}"


def model_to_dot(
    model: Any,
    show_shapes: bool = False,
    show_layer_names: bool = True,
    rankdir: str = "TB",
    expand_nested: bool = False,
    dpi: int = 96,
    subgraph: bool = False,
) -> Any:
    if not check_pydot():
        if "IPython.core.magics.namespace" in sys.modules:
            # TF prints instead in notebooks, where graphviz is often missing.
            print(_MISSING)
            return None
        raise ImportError(_MISSING)
    pydot = _pydot()
    if subgraph:
        dot = pydot.Cluster(style="dashed", graph_name=model.name)
        dot.set("label", model.name)
        dot.set("labeljust", "l")
    else:
        dot = pydot.Dot()
        dot.set("rankdir", rankdir)
        dot.set("concentrate", True)
        dot.set("dpi", dpi)
        dot.set_node_defaults(shape="record")
    if not model._is_graph_network:
        dot.add_node(pydot.Node(str(id(model)), label=model.name))
        return dot
    first: dict[str, Any] = {}
    last: dict[str, Any] = {}
    layers = _layers_of(model)
    for layer in layers:
        layer_name, class_name = layer.name, type(layer).__name__
        if _is_wrapper(layer):
            if expand_nested and isinstance(layer.layer, Network):
                inner = model_to_dot(
                    layer.layer,
                    show_shapes,
                    show_layer_names,
                    rankdir,
                    expand_nested,
                    subgraph=True,
                )
                nodes = inner.get_nodes()
                first[layer.layer.name], last[layer.layer.name] = nodes[0], nodes[-1]
                dot.add_subgraph(inner)
            else:
                layer_name = f"{layer_name}({layer.layer.name})"
                class_name = f"{class_name}({type(layer.layer).__name__})"
        nested = expand_nested and isinstance(layer, Network)
        if nested:
            inner = model_to_dot(
                layer, show_shapes, show_layer_names, rankdir, expand_nested, subgraph=True
            )
            nodes = inner.get_nodes()
            first[layer.name], last[layer.name] = nodes[0], nodes[-1]
            dot.add_subgraph(inner)
        label = _label(layer, layer_name, class_name, show_shapes, show_layer_names)
        if not nested:
            dot.add_node(pydot.Node(str(id(layer)), label=label))
    _connect(pydot, dot, model, expand_nested, first, last)
    return dot


def _layers_of(model: Any) -> list[Any]:
    """The network's layers as TF's Network keeps them: a Sequential's generated InputLayer
    first (tfcluster's Sequential keeps it apart)."""
    from tfcluster.lib.keras.engine.input_layer import InputLayer

    layers = list(model._layers)
    if layers and not isinstance(layers[0], InputLayer) and model.inputs:
        history = getattr(model.inputs[0], "_keras_history", None)
        if history is not None and isinstance(history[0], InputLayer):
            layers.insert(0, history[0])
    return layers


def _connect(
    pydot: Any, dot: Any, model: Any, expand: bool, first: dict[str, Any], last: dict[str, Any]
) -> None:
    """An edge per call of a layer in this network, from each layer it read (TF's order)."""
    own, _ = _network_nodes(model)
    for layer in _layers_of(model):
        layer_id = str(id(layer))
        for node in layer._inbound_nodes:
            if id(node) not in own:
                continue
            for inbound in node.inbound_layers:
                inbound_id = str(id(inbound))
                if not expand or not (isinstance(inbound, Network) or is_wrapped_model(inbound)):
                    if not expand or not (isinstance(layer, Network) or is_wrapped_model(layer)):
                        _add_edge(pydot, dot, inbound_id, layer_id)
                    elif isinstance(layer, Network):
                        _add_edge(pydot, dot, inbound_id, first[layer.name].get_name())
                    else:
                        _add_edge(pydot, dot, inbound_id, layer_id)
                        _add_edge(pydot, dot, layer_id, first[layer.layer.name].get_name())
                elif isinstance(inbound, Network):
                    source = last[inbound.name].get_name()
                    if isinstance(layer, Network):
                        _add_edge(pydot, dot, source, first[layer.name].get_name())
                    else:
                        _add_edge(pydot, dot, source, layer_id)
                else:
                    _add_edge(pydot, dot, last[inbound.layer.name].get_name(), layer_id)


def plot_model(
    model: Any,
    to_file: str = "model.png",
    show_shapes: bool = False,
    show_layer_names: bool = True,
    rankdir: str = "TB",
    expand_nested: bool = False,
    dpi: int = 96,
) -> Any:
    dot = model_to_dot(
        model,
        show_shapes=show_shapes,
        show_layer_names=show_layer_names,
        rankdir=rankdir,
        expand_nested=expand_nested,
        dpi=dpi,
    )
    if dot is None:
        return None
    extension = os.path.splitext(to_file)[1][1:] or "png"
    dot.write(to_file, format=extension)
    try:
        from IPython import display  # type: ignore[import-not-found]
    except ImportError:
        return None
    return display.Image(filename=to_file)
