"""tf.keras.utils helpers about models (TF 1.15): get_source_inputs, convert_all_kernels_in_model,
plot_model/model_to_dot (vis_utils), and multi_gpu_model up to its checks of the GPUs asked for
(one process per task here; use a TFCluster with several workers)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.lib.keras import backend
from tfcluster.lib.keras.utils.vis_utils import model_to_dot, plot_model


def get_source_inputs(tensor: Any, layer: Any = None, node_index: Any = None) -> list[Any]:
    """The input tensors (of InputLayers) that `tensor` is computed from."""
    if not hasattr(tensor, "_keras_history"):
        return [tensor]
    if layer is None or node_index is None:
        layer, node_index, _ = tensor._keras_history
    if not layer._inbound_nodes:
        return [tensor]
    node = layer._inbound_nodes[node_index]
    if not node.inbound_layers:
        return list(node.input_tensors)
    found: list[Any] = []
    for x in node.input_tensors:
        for source in get_source_inputs(x):
            if all(source is not f for f in found):
                found.append(source)
    return found


def convert_kernel(kernel: np.ndarray) -> np.ndarray:
    """Flips a convolution kernel's spatial axes (Theano's kernels to TensorFlow's)."""
    kernel = np.asarray(kernel)
    if not 3 <= kernel.ndim <= 5:
        raise ValueError("Invalid kernel shape:", kernel.shape)
    slices = [slice(None, None, -1) for _ in range(kernel.ndim)]
    slices[-2:] = [slice(None), slice(None)]
    return np.copy(kernel[tuple(slices)])


def convert_all_kernels_in_model(model: Any) -> None:
    conv_classes = {"Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose"}
    pairs = []
    for layer in model.layers:
        if type(layer).__name__ in conv_classes:
            pairs.append((layer.kernel, convert_kernel(backend.get_value(layer.kernel))))
    backend.batch_set_value(pairs)


def multi_gpu_model(
    model: Any, gpus: Any, cpu_merge: bool = True, cpu_relocation: bool = False
) -> Any:
    ids = list(gpus) if isinstance(gpus, (list, tuple)) else list(range(gpus))
    if len(ids) <= 1:
        raise ValueError(
            "For multi-gpu usage to be effective, call `multi_gpu_model` with `gpus >= 2`. "
            f"Received: `gpus={gpus}`"
        )
    wanted = ["/cpu:0", *(f"/gpu:{i}" for i in ids)]
    available = [_short_device_name(d.name) for d in backend.get_session().list_devices()]
    if any(d not in available for d in wanted):
        raise ValueError(
            f"To call `multi_gpu_model` with `gpus={gpus}`, we expect the following devices to "
            f"be available: {wanted}. However this machine only has: {available}. Try reducing "
            "`gpus`."
        )
    raise backend.unimplemented(
        "tf.keras.utils.multi_gpu_model (tfcluster runs one device per task: train over a "
        "TFCluster's workers instead)"
    )


def _short_device_name(name: str) -> str:
    """'/job:localhost/replica:0/task:0/device:XLA_CPU:0' -> '/xla_cpu:0', as Keras names
    devices."""
    return "/" + ":".join(name.lower().replace("/", "").split(":")[-2:])


__all__ = [
    "convert_all_kernels_in_model",
    "convert_kernel",
    "get_source_inputs",
    "model_to_dot",
    "multi_gpu_model",
    "plot_model",
]
