"""Keras's global pooling layers: the mean or max over every spatial axis."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras.engine.base_layer import Layer
from tfcluster.ops import math_ops


def _global_pool(rank: int, kind: str) -> type:
    # TF 1.15's 1-D layers say channels_last; the 2-D and 3-D ones None (Keras's image format).
    def __init__(
        self: Any, data_format: Any = "channels_last" if rank == 1 else None, **kwargs: Any
    ) -> None:
        Layer.__init__(self, **kwargs)
        self.data_format = data_format or "channels_last"

    def call(self: Any, inputs: Any) -> Any:
        first = 1 if self.data_format == "channels_last" else 2
        axes = list(range(first, first + rank))
        reduce = math_ops.reduce_mean if kind == "Average" else math_ops.reduce_max
        return reduce(inputs, axis=axes)

    def get_config(self: Any) -> dict[str, Any]:
        return {**Layer.get_config(self), "data_format": self.data_format}

    name = f"Global{kind}Pooling{rank}D"
    return type(name, (Layer,), {"__init__": __init__, "call": call, "get_config": get_config})


GlobalAveragePooling1D = _global_pool(1, "Average")
GlobalAveragePooling2D = _global_pool(2, "Average")
GlobalAveragePooling3D = _global_pool(3, "Average")
GlobalMaxPooling1D = _global_pool(1, "Max")
GlobalMaxPooling2D = _global_pool(2, "Max")
GlobalMaxPooling3D = _global_pool(3, "Max")
