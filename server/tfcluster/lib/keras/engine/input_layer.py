"""tf.keras.Input and InputLayer: a placeholder that starts a functional model's graph
(named `input_1`, `input_2`, ... per graph, or `<first layer>_input` in a Sequential)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import name_scope
from tfcluster.lib.keras import backend
from tfcluster.lib.keras.engine.base_layer import Layer, Node


class InputLayer(Layer):
    def __init__(
        self,
        input_shape: Any = None,
        batch_size: Any = None,
        dtype: Any = None,
        input_tensor: Any = None,
        sparse: bool = False,
        name: str | None = None,
        ragged: bool = False,
        **kwargs: Any,
    ) -> None:
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        if sparse:
            raise backend.unimplemented("tf.keras.layers.InputLayer(sparse=True)")
        if ragged:
            raise backend.unimplemented("tf.keras.layers.InputLayer(ragged=True)")
        if not name:
            name = f"input_{backend.get_uid('input')}"
        if batch_input_shape is None and input_shape is not None:
            batch_input_shape = (batch_size, *tuple(input_shape))
        dtype = dtype or (
            input_tensor.dtype.base_dtype.name if input_tensor is not None else backend.floatx()
        )
        super().__init__(name=name, dtype=dtype)
        self.built = True
        self.batch_size = batch_size
        self.sparse = False
        self.ragged = False
        self.is_placeholder = input_tensor is None
        if input_tensor is None:
            with name_scope(""):
                input_tensor = backend.placeholder(shape=batch_input_shape, dtype=dtype, name=name)
        # A given tensor's own shape, whatever shape was asked for (TF 1.15's InputLayer).
        self._batch_input_shape = (
            tuple(batch_input_shape)
            if self.is_placeholder and batch_input_shape is not None
            else tuple(input_tensor.shape.as_list())
        )
        node = Node(self, [input_tensor], [input_tensor])
        self._inbound_nodes.append(node)
        tensor: Any = input_tensor  # Keras's history rides on the tensor object
        tensor._keras_history = (self, 0, 0)

    def get_config(self) -> dict[str, Any]:
        return {
            "batch_input_shape": self._batch_input_shape,
            "dtype": self._dtype.name if self._dtype is not None else None,
            "sparse": False,
            "ragged": False,
            "name": self._name,
        }


def Input(
    shape: Any = None,
    batch_size: Any = None,
    name: str | None = None,
    dtype: Any = None,
    sparse: bool = False,
    tensor: Any = None,
    ragged: bool = False,
    **kwargs: Any,
) -> Any:
    batch_shape = kwargs.pop("batch_shape", None)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments: {list(kwargs)}")
    if shape is None and batch_shape is None and tensor is None:
        raise ValueError(
            "Please provide to Input either a `shape` or a `batch_shape` argument. Note that "
            "`shape` does not include the batch dimension."
        )
    layer = InputLayer(
        input_shape=shape,
        batch_size=batch_size,
        batch_input_shape=batch_shape,
        name=name,
        dtype=dtype,
        sparse=sparse,
        input_tensor=tensor,
        ragged=ragged,
    )
    return layer._inbound_nodes[0].output_tensors[0]
