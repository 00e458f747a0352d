"""Keras's global pooling layers: the mean or max over every spatial axis."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras import backend
from tfcluster.lib.keras.engine.base_layer import Layer
from tfcluster.ops import array_ops, math_ops


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
    members: dict[str, Any] = {"__init__": __init__, "call": call, "get_config": get_config}
    if rank == 1 and kind == "Average":
        members.update(_masked_average_members(__init__))
    return type(name, (Layer,), members)


def _masked_average_members(base_init: Any) -> dict[str, Any]:
    """GlobalAveragePooling1D takes the mask of its steps: the mean over the unmasked steps
    (TF 1.15), and masks nothing downstream."""

    def __init__(self: Any, data_format: Any = "channels_last", **kwargs: Any) -> None:
        base_init(self, data_format, **kwargs)
        self.supports_masking = True

    def call(self: Any, inputs: Any, mask: Any = None) -> Any:
        steps_axis = 1 if self.data_format == "channels_last" else 2
        if mask is None:
            return math_ops.reduce_mean(inputs, axis=steps_axis)
        mask = math_ops.cast(mask, backend.floatx())
        mask = array_ops.reshape(mask, [-1, inputs.shape.as_list()[steps_axis], 1])
        inputs = inputs * mask
        return math_ops.reduce_sum(inputs, axis=steps_axis) / math_ops.reduce_sum(
            mask, axis=steps_axis
        )

    def compute_mask(self: Any, inputs: Any, mask: Any = None) -> Any:
        return None

    return {"__init__": __init__, "call": call, "compute_mask": compute_mask}


GlobalAveragePooling1D = _global_pool(1, "Average")
GlobalAveragePooling2D = _global_pool(2, "Average")
GlobalAveragePooling3D = _global_pool(3, "Average")
GlobalMaxPooling1D = _global_pool(1, "Max")
GlobalMaxPooling2D = _global_pool(2, "Max")
GlobalMaxPooling3D = _global_pool(3, "Max")
