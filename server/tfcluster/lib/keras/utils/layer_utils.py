"""Model.summary(): the table TF 1.15's Keras prints (its widths, truncation and totals)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def count_params(weights: list[Any]) -> int:
    return int(sum(int(np.prod(w.shape.as_list())) for w in weights))


def _sequential_like(model: Any) -> bool:
    if type(model).__name__ == "Sequential" or not model._is_graph_network:
        return True
    consumers: dict[int, int] = {}
    for node in model._nodes_in_order:
        if len(node.inbound_layers) > 1:
            return False
        for t in node.input_tensors:
            consumers[id(t)] = consumers.get(id(t), 0) + 1
    return all(count <= 1 for count in consumers.values())


def print_summary(
    model: Any,
    line_length: int | None = None,
    positions: Any = None,
    print_fn: Callable[[str], Any] | None = None,
) -> None:
    print_fn = print_fn or print
    sequential_like = _sequential_like(model)
    if sequential_like:
        line_length = line_length or 65
        positions = positions or [0.45, 0.85, 1.0]
        to_display = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = positions or [0.33, 0.55, 0.67, 1.0]
        to_display = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    relevant = {id(n) for n in getattr(model, "_nodes_in_order", [])}

    def print_row(fields: list[Any]) -> None:
        line = ""
        for i, field in enumerate(fields):
            if i > 0:
                line = line[:-1] + " "
            line += str(field)
            line = line[: positions[i]]
            line += " " * (positions[i] - len(line))
        print_fn(line)

    def output_shape(layer: Any) -> Any:
        try:
            return layer.output_shape
        except AttributeError:
            return "multiple"

    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    print_row(to_display)
    print_fn("=" * line_length)
    layers = model.layers
    for i, layer in enumerate(layers):
        fields = [f"{layer.name} ({type(layer).__name__})", output_shape(layer), _params(layer)]
        if sequential_like:
            print_row(fields)
        else:
            connections = []
            for node in layer._inbound_nodes:
                if relevant and id(node) not in relevant:
                    continue
                for t in node.input_tensors:
                    source, node_index, tensor_index = t._keras_history
                    connections.append(f"{source.name}[{node_index}][{tensor_index}]")
            print_row([*fields, connections[0] if connections else ""])
            for extra in connections[1:]:
                print_row(["", "", "", extra])
        print_fn("=" * line_length if i == len(layers) - 1 else "_" * line_length)
    trainable = count_params(model.trainable_weights)
    non_trainable = count_params(model.non_trainable_weights)
    print_fn(f"Total params: {trainable + non_trainable:,}")
    print_fn(f"Trainable params: {trainable:,}")
    print_fn(f"Non-trainable params: {non_trainable:,}")
    print_fn("_" * line_length)


def _params(layer: Any) -> int:
    return count_params(layer.weights)
