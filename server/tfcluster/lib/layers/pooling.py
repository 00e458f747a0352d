"""tf.layers pooling (TF 1.15's layers/pooling.py on Keras's pooling layers): max and average
pooling in 1, 2 and 3 dimensions, classes and functions. As in TF 1.15 on the CPU, 1-D pools
are 2-D pools of the input expanded by one axis, and channels-first 1-D and 3-D inputs are
transposed to channels-last around the pool (2-D pools take NCHW directly)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.layers import utils
from tfcluster.lib.layers.base import InputSpec, Layer, applied_as_tf
from tfcluster.ops import array_ops, pooling_ops


class _Pooling(Layer):
    def __init__(
        self,
        rank: int,
        kind: str,
        pool_size: Any,
        strides: Any,
        padding: str = "valid",
        data_format: str = "channels_last",
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if strides is None:
            raise ValueError("Argument `strides` must not be None.")
        super().__init__(name=name, **kwargs)
        self.rank = rank
        self.kind = kind
        self.pool_size = utils.normalize_tuple(pool_size, rank, "pool_size")
        self.strides = utils.normalize_tuple(strides, rank, "strides")
        self.padding = utils.normalize_padding(padding)
        self.data_format = utils.normalize_data_format(data_format)
        self.input_spec = InputSpec(ndim=rank + 2)
        self.pool_function = _pool_function(rank, kind)

    def _pool2d(self, x: Any, pool_size: tuple[int, ...], strides: tuple[int, ...]) -> Any:
        """Keras's backend.pool2d as it runs on the CPU (channels-first transposed)."""
        first = self.data_format == "channels_first"
        if first:
            x = array_ops.transpose(x, (0, 2, 3, 1))
        fn = pooling_ops.max_pool if self.kind == "max" else pooling_ops.avg_pool
        out = fn(
            x,
            (1, *pool_size, 1),
            (1, *strides, 1),
            padding=self.padding.upper(),
            data_format="NHWC",
        )
        if first:
            out = array_ops.transpose(out, (0, 3, 1, 2))
        return out

    def call(self, inputs: Any) -> Any:
        if self.rank == 1:
            axis = 2 if self.data_format == "channels_last" else 3
            x = array_ops.expand_dims(inputs, axis)
            out = self._pool2d(x, (*self.pool_size, 1), (*self.strides, 1))
            return array_ops.squeeze(out, axis)
        if self.rank == 2:
            fn2: Callable[..., Any] = (
                pooling_ops.max_pool if self.kind == "max" else pooling_ops.avg_pool
            )
            first = self.data_format == "channels_first"
            shape = (1, 1, *self.pool_size) if first else (1, *self.pool_size, 1)
            strides = (1, 1, *self.strides) if first else (1, *self.strides, 1)
            return fn2(
                inputs,
                ksize=shape,
                strides=strides,
                padding=self.padding.upper(),
                data_format=utils.convert_data_format(self.data_format, 4),
            )
        fn3 = pooling_ops.max_pool3d if self.kind == "max" else pooling_ops.avg_pool3d
        if self.data_format == "channels_first":
            inputs = array_ops.transpose(inputs, (0, 2, 3, 4, 1))
        out = fn3(
            inputs,
            ksize=(1, *self.pool_size, 1),
            strides=(1, *self.strides, 1),
            padding=self.padding.upper(),
        )
        if self.data_format == "channels_first":
            out = array_ops.transpose(out, (0, 4, 1, 2, 3))
        return out

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        dims = TensorShape(input_shape).as_list()
        first = self.data_format == "channels_first"
        space = dims[2:] if first else dims[1:-1]
        out = [
            utils.conv_output_length(d, self.pool_size[i], self.padding, self.strides[i])
            for i, d in enumerate(space)
        ]
        if first:
            return TensorShape([dims[0], dims[1], *out])
        return TensorShape([dims[0], *out, dims[-1]])


def _pool_function(rank: int, kind: str) -> Any:
    """The function TF 1.15's pooling layer holds: Keras's pool2d for 1-D (its input gets a
    dimension), tf.nn's max/avg pool for 2-D and 3-D."""
    if rank == 1:
        from tfcluster.lib.keras import backend_math

        return functools.partial(backend_math.pool2d, pool_mode=kind)
    if rank == 2:
        return pooling_ops.max_pool if kind == "max" else pooling_ops.avg_pool
    return pooling_ops.max_pool3d if kind == "max" else pooling_ops.avg_pool3d


def _pool_class(rank: int, kind: str, doc: str) -> type:
    def __init__(
        self: Any,
        pool_size: Any,
        strides: Any,
        padding: str = "valid",
        data_format: str = "channels_last",
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        _Pooling.__init__(
            self, rank, kind, pool_size, strides, padding, data_format, name, **kwargs
        )

    prefix = "MaxPooling" if kind == "max" else "AveragePooling"
    return type(f"{prefix}{rank}D", (_Pooling,), {"__init__": __init__, "__doc__": doc})


MaxPooling1D = _pool_class(1, "max", "Max pooling over 1-D inputs.")
MaxPooling2D = _pool_class(2, "max", "Max pooling over 2-D inputs (images).")
MaxPooling3D = _pool_class(3, "max", "Max pooling over 3-D inputs (volumes).")
AveragePooling1D = _pool_class(1, "avg", "Average pooling over 1-D inputs.")
AveragePooling2D = _pool_class(2, "avg", "Average pooling over 2-D inputs (images).")
AveragePooling3D = _pool_class(3, "avg", "Average pooling over 3-D inputs (volumes).")


def _pool_fn(cls: type, name: str) -> Callable[..., Any]:
    def fn(
        inputs: Any,
        pool_size: Any,
        strides: Any,
        padding: str = "valid",
        data_format: str = "channels_last",
        name: str | None = None,
    ) -> Any:
        layer = cls(
            pool_size=pool_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            name=name,
        )
        return applied_as_tf(layer, inputs)

    fn.__name__ = name
    fn.__doc__ = f"Functional interface of {cls.__name__}: the layer made and applied."
    return fn


max_pooling1d = _pool_fn(MaxPooling1D, "max_pooling1d")
max_pooling2d = _pool_fn(MaxPooling2D, "max_pooling2d")
max_pooling3d = _pool_fn(MaxPooling3D, "max_pooling3d")
average_pooling1d = _pool_fn(AveragePooling1D, "average_pooling1d")
average_pooling2d = _pool_fn(AveragePooling2D, "average_pooling2d")
average_pooling3d = _pool_fn(AveragePooling3D, "average_pooling3d")

MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D
AvgPool1D, AvgPool2D, AvgPool3D = AveragePooling1D, AveragePooling2D, AveragePooling3D
max_pool2d = max_pooling2d
average_pool2d = average_pooling2d
