"""Helpers for layers' get_config: the Keras-serialized form of an activation, initializer,
regularizer or constraint (what TF 1.15 writes into model configs and HDF5 files)."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras import activations, constraints, initializers, regularizers


def activation(fn: Any) -> Any:
    return activations.serialize(fn if fn is not None else activations.linear)


def initializer(init: Any) -> Any:
    return initializers.serialize(init)


def regularizer(reg: Any) -> Any:
    return regularizers.serialize(reg)


def constraint(c: Any) -> Any:
    return constraints.serialize(c)


def weights(layer: Any, prefix: str, with_bias: bool = True) -> dict[str, Any]:
    """`<prefix>_initializer/_regularizer/_constraint` (and the bias's) as Keras lists them."""
    out: dict[str, Any] = {}
    names = [prefix, "bias"] if with_bias else [prefix]
    for part in ("initializer", "regularizer", "constraint"):
        for name in names:
            value = getattr(layer, f"{name}_{part}", None)
            out[f"{name}_{part}"] = {
                "initializer": initializer,
                "regularizer": regularizer,
                "constraint": constraint,
            }[part](value)
        if part == "regularizer":
            out["activity_regularizer"] = regularizer(getattr(layer, "activity_regularizer", None))
    return out
