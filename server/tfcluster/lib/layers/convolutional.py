"""tf.layers convolutions (TF 1.15's layers/convolutional.py on Keras's convolutional
layers): Conv1D/2D/3D, SeparableConv1D/2D, Conv2DTranspose, Conv3DTranspose and their
functions. A convolution is built once per layer as TF's nn_ops.Convolution (dilations go
through SpaceToBatchND as on TF's CPU) and applied on each call."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.layers import utils
from tfcluster.lib.layers.base import InputSpec, Layer, applied_as_tf
from tfcluster.ops import array_ops, conv_ops, init_ops, nn_ops


class _Conv(Layer):
    """N-D convolution (N = rank) plus bias and activation."""

    def __init__(
        self,
        rank: int,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate: Any = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = None,
        bias_initializer: Any = init_ops.zeros_initializer(),
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        trainable: bool = True,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            trainable=trainable,
            name=name,
            activity_regularizer=utils.get_regularizer(activity_regularizer),
            **kwargs,
        )
        self.rank = rank
        self.filters = filters
        self.kernel_size = utils.normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = utils.normalize_tuple(strides, rank, "strides")
        self.padding = utils.normalize_padding(padding)
        if self.padding == "causal" and not isinstance(self, (Conv1D, SeparableConv1D)):
            raise ValueError("Causal padding is only supported for `Conv1D`and ``SeparableConv1D`.")
        self.data_format = utils.normalize_data_format(data_format)
        self.dilation_rate = utils.normalize_tuple(dilation_rate, rank, "dilation_rate")
        self.activation = utils.get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = utils.get_initializer(kernel_initializer)
        self.bias_initializer = utils.get_initializer(bias_initializer)
        self.kernel_regularizer = utils.get_regularizer(kernel_regularizer)
        self.bias_regularizer = utils.get_regularizer(bias_regularizer)
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _channel_axis(self) -> int:
        return 1 if self.data_format == "channels_first" else -1

    def _input_dim(self, input_shape: TensorShape) -> int:
        dims = input_shape.as_list()
        dim = dims[self._channel_axis()]
        if dim is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        return int(dim)

    def build(self, input_shape: Any) -> None:
        input_shape = TensorShape(input_shape)
        input_dim = self._input_dim(input_shape)
        self.kernel = self.add_weight(
            name="kernel",
            shape=(*self.kernel_size, input_dim, self.filters),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            trainable=True,
            dtype=self.dtype,
        )
        self._add_bias()
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis(): input_dim})
        op_padding = "valid" if self.padding == "causal" else self.padding
        self._convolution_op = conv_ops.Convolution(
            input_shape,
            filter_shape=self.kernel.shape,
            dilation_rate=self.dilation_rate,
            strides=self.strides,
            padding=op_padding.upper() if isinstance(op_padding, str) else op_padding,
            data_format=utils.convert_data_format(self.data_format, self.rank + 2),
        )
        self.built = True

    def _add_bias(self) -> None:
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias",
                shape=(self.filters,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                trainable=True,
                dtype=self.dtype,
            )
        else:
            self.bias = None

    def call(self, inputs: Any) -> Any:
        outputs = self._convolution_op(inputs, self.kernel)
        if self.use_bias:
            if self.data_format == "channels_first":
                if self.rank == 1:
                    outputs += array_ops.reshape(self.bias, (1, self.filters, 1))
                else:
                    outputs = nn_ops.bias_add(outputs, self.bias, data_format="NCHW")
            else:
                outputs = nn_ops.bias_add(outputs, self.bias, data_format="NHWC")
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        dims = TensorShape(input_shape).as_list()
        space = dims[1:-1] if self.data_format == "channels_last" else dims[2:]
        new_space = [
            utils.conv_output_length(
                d, self.kernel_size[i], self.padding, self.strides[i], self.dilation_rate[i]
            )
            for i, d in enumerate(space)
        ]
        if self.data_format == "channels_last":
            return TensorShape([dims[0], *new_space, self.filters])
        return TensorShape([dims[0], self.filters, *new_space])

    def _compute_causal_padding(self) -> list[list[int]]:
        left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
        if self.data_format == "channels_last":
            return [[0, 0], [left, 0], [0, 0]]
        return [[0, 0], [0, 0], [left, 0]]


def _rank_defaults(fn: Any, rank: int) -> Any:
    """TF's 2-D and 3-D layers default strides and dilation_rate to (1,) * rank (the 1-D ones
    to 1): fn's defaults made so, for callers that read them."""
    if rank > 1:
        names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
        first = len(names) - len(fn.__defaults__)
        fn.__defaults__ = tuple(
            (1,) * rank if names[first + i] in ("strides", "dilation_rate") else default
            for i, default in enumerate(fn.__defaults__)
        )
    return fn


def _conv_init(rank: int) -> Any:
    """The __init__ of Conv1D/2D/3D: _Conv's, with the rank fixed."""

    def __init__(
        self: Any,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate: Any = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = None,
        bias_initializer: Any = init_ops.zeros_initializer(),
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        trainable: bool = True,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        _Conv.__init__(
            self,
            rank,
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
            trainable=trainable,
            name=name,
            **kwargs,
        )

    return _rank_defaults(__init__, rank)


class Conv1D(_Conv):
    """1-D convolution (temporal)."""

    __init__ = _conv_init(1)

    def call(self, inputs: Any) -> Any:
        if self.padding == "causal":
            inputs = array_ops.pad(inputs, self._compute_causal_padding())
        return super().call(inputs)


class Conv2D(_Conv):
    """2-D convolution (spatial)."""

    __init__ = _conv_init(2)


class Conv3D(_Conv):
    """3-D convolution (spatial over volumes)."""

    __init__ = _conv_init(3)


def _conv_fn(cls: type, rank: int) -> Any:
    def fn(
        inputs: Any,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate: Any = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = None,
        bias_initializer: Any = init_ops.zeros_initializer(),
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        trainable: bool = True,
        name: str | None = None,
        reuse: Any = None,
    ) -> Any:
        layer = cls(
            filters=filters,
            kernel_size=kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
            trainable=trainable,
            name=name,
            _reuse=reuse,
            _scope=name,
        )
        return applied_as_tf(layer, inputs)

    fn.__name__ = f"conv{rank}d"
    fn.__doc__ = f"Functional interface of Conv{rank}D: the layer made and applied to inputs."
    return _rank_defaults(fn, rank)


conv1d = _conv_fn(Conv1D, 1)
conv2d = _conv_fn(Conv2D, 2)
conv3d = _conv_fn(Conv3D, 3)


# ---- separable -----------------------------------------------------------------------------------
class _SeparableConv(_Conv):
    """A depthwise convolution (depth_multiplier per input channel) then a 1x1 convolution."""

    def __init__(
        self,
        rank: int,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate: Any = 1,
        depth_multiplier: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = None,
        pointwise_initializer: Any = None,
        bias_initializer: Any = init_ops.zeros_initializer(),
        depthwise_regularizer: Any = None,
        pointwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        pointwise_constraint: Any = None,
        bias_constraint: Any = None,
        trainable: bool = True,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            rank,
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            bias_initializer=bias_initializer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            bias_constraint=bias_constraint,
            trainable=trainable,
            name=name,
            **kwargs,
        )
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = utils.get_initializer(depthwise_initializer)
        self.pointwise_initializer = utils.get_initializer(pointwise_initializer)
        self.depthwise_regularizer = utils.get_regularizer(depthwise_regularizer)
        self.pointwise_regularizer = utils.get_regularizer(pointwise_regularizer)
        self.depthwise_constraint = depthwise_constraint
        self.pointwise_constraint = pointwise_constraint

    def build(self, input_shape: Any) -> None:
        input_shape = TensorShape(input_shape)
        input_dim = self._input_dim(input_shape)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis(): input_dim})
        self.depthwise_kernel = self.add_weight(
            name="depthwise_kernel",
            shape=(*self.kernel_size, input_dim, self.depth_multiplier),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
            trainable=True,
            dtype=self.dtype,
        )
        self.pointwise_kernel = self.add_weight(
            name="pointwise_kernel",
            shape=(1,) * self.rank + (self.depth_multiplier * input_dim, self.filters),
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
            trainable=True,
            dtype=self.dtype,
        )
        self._add_bias()
        self.built = True


def _separable_init(rank: int) -> Any:
    """The __init__ of SeparableConv1D/2D: _SeparableConv's, with the rank fixed."""

    def __init__(
        self: Any,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate: Any = 1,
        depth_multiplier: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = None,
        pointwise_initializer: Any = None,
        bias_initializer: Any = init_ops.zeros_initializer(),
        depthwise_regularizer: Any = None,
        pointwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        pointwise_constraint: Any = None,
        bias_constraint: Any = None,
        trainable: bool = True,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        _SeparableConv.__init__(
            self,
            rank,
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            depth_multiplier=depth_multiplier,
            activation=activation,
            use_bias=use_bias,
            depthwise_initializer=depthwise_initializer,
            pointwise_initializer=pointwise_initializer,
            bias_initializer=bias_initializer,
            depthwise_regularizer=depthwise_regularizer,
            pointwise_regularizer=pointwise_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            depthwise_constraint=depthwise_constraint,
            pointwise_constraint=pointwise_constraint,
            bias_constraint=bias_constraint,
            trainable=trainable,
            name=name,
            **kwargs,
        )

    return _rank_defaults(__init__, rank)


class SeparableConv1D(_SeparableConv):
    """Depthwise separable 1-D convolution."""

    __init__ = _separable_init(1)

    def call(self, inputs: Any) -> Any:
        if self.padding == "causal":
            inputs = array_ops.pad(inputs, self._compute_causal_padding())
        if self.data_format == "channels_last":
            strides = (1, *self.strides * 2, 1)
            start = 1
        else:
            strides = (1, 1, *self.strides * 2)
            start = 2
        inputs = array_ops.expand_dims(inputs, start)
        depthwise = array_ops.expand_dims(self.depthwise_kernel, 0)
        pointwise = array_ops.expand_dims(self.pointwise_kernel, 0)
        op_padding = "valid" if self.padding == "causal" else self.padding
        fmt = utils.convert_data_format(self.data_format, 4)
        outputs = conv_ops.separable_conv2d(
            inputs,
            depthwise,
            pointwise,
            strides=list(strides),
            padding=op_padding.upper(),
            rate=(1, *self.dilation_rate),
            data_format=fmt,
        )
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias, data_format=fmt)
        outputs = array_ops.squeeze(outputs, [start])
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


class SeparableConv2D(_SeparableConv):
    """Depthwise separable 2-D convolution."""

    __init__ = _separable_init(2)

    def call(self, inputs: Any) -> Any:
        if self.data_format == "channels_last":
            strides = (1, *self.strides, 1)
        else:
            strides = (1, 1, *self.strides)
        fmt = utils.convert_data_format(self.data_format, 4)
        outputs = conv_ops.separable_conv2d(
            inputs,
            self.depthwise_kernel,
            self.pointwise_kernel,
            strides=list(strides),
            padding=self.padding.upper(),
            rate=self.dilation_rate,
            data_format=fmt,
        )
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias, data_format=fmt)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


def _separable_fn(cls: type, rank: int) -> Any:
    def fn(
        inputs: Any,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate: Any = 1,
        depth_multiplier: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = None,
        pointwise_initializer: Any = None,
        bias_initializer: Any = init_ops.zeros_initializer(),
        depthwise_regularizer: Any = None,
        pointwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        pointwise_constraint: Any = None,
        bias_constraint: Any = None,
        trainable: bool = True,
        name: str | None = None,
        reuse: Any = None,
    ) -> Any:
        layer = cls(
            filters=filters,
            kernel_size=kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            depth_multiplier=depth_multiplier,
            activation=activation,
            use_bias=use_bias,
            depthwise_initializer=depthwise_initializer,
            pointwise_initializer=pointwise_initializer,
            bias_initializer=bias_initializer,
            depthwise_regularizer=depthwise_regularizer,
            pointwise_regularizer=pointwise_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            depthwise_constraint=depthwise_constraint,
            pointwise_constraint=pointwise_constraint,
            bias_constraint=bias_constraint,
            trainable=trainable,
            name=name,
            _reuse=reuse,
            _scope=name,
        )
        return applied_as_tf(layer, inputs)

    fn.__name__ = f"separable_conv{rank}d"
    return _rank_defaults(fn, rank)


separable_conv1d = _separable_fn(SeparableConv1D, 1)
separable_conv2d = _separable_fn(SeparableConv2D, 2)


# ---- transposed ----------------------------------------------------------------------------------
class Conv2DTranspose(Conv2D):
    """Transposed 2-D convolution ("deconvolution")."""

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        data_format: str = "channels_last",
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = None,
        bias_initializer: Any = init_ops.zeros_initializer(),
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        trainable: bool = True,
        name: str | None = None,
        *,  # Keras's options, beyond TF 1.15's tf.layers signature
        output_padding: Any = None,
        dilation_rate: Any = (1, 1),
        **kwargs: Any,
    ) -> None:
        super().__init__(
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
            trainable=trainable,
            name=name,
            **kwargs,
        )
        self.output_padding = output_padding
        if output_padding is not None:
            self.output_padding = utils.normalize_tuple(output_padding, 2, "output_padding")
            for stride, pad in zip(self.strides, self.output_padding):
                if pad >= stride:
                    raise ValueError(
                        f"Stride {self.strides} must be greater than output padding "
                        f"{self.output_padding}"
                    )

    def build(self, input_shape: Any) -> None:
        input_shape = TensorShape(input_shape)
        if input_shape.ndims != 4:
            raise ValueError(f"Inputs should have rank 4. Received input shape: {input_shape}")
        input_dim = self._input_dim(input_shape)
        self.input_spec = InputSpec(ndim=4, axes={self._channel_axis(): input_dim})
        self.kernel = self.add_weight(
            name="kernel",
            shape=(*self.kernel_size, self.filters, input_dim),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            trainable=True,
            dtype=self.dtype,
        )
        self._add_bias()
        self.built = True

    def call(self, inputs: Any) -> Any:
        shape = array_ops.shape(inputs)
        batch = shape[0]
        h_axis, w_axis = (2, 3) if self.data_format == "channels_first" else (1, 2)
        height, width = shape[h_axis], shape[w_axis]
        pads = self.output_padding or (None, None)
        out_h = utils.deconv_output_length(
            height,
            self.kernel_size[0],
            self.padding,
            pads[0],
            self.strides[0],
            self.dilation_rate[0],
        )
        out_w = utils.deconv_output_length(
            width,
            self.kernel_size[1],
            self.padding,
            pads[1],
            self.strides[1],
            self.dilation_rate[1],
        )
        first = self.data_format == "channels_first"
        output_shape = (
            (batch, self.filters, out_h, out_w) if first else (batch, out_h, out_w, self.filters)
        )
        output_shape_t = array_ops.stack(list(output_shape))
        outputs = self._transpose_conv(inputs, output_shape_t)
        outputs.set_shape(self.compute_output_shape(inputs.shape))
        if self.use_bias:
            fmt = utils.convert_data_format(self.data_format, 4)
            outputs = nn_ops.bias_add(outputs, self.bias, data_format=fmt)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def _transpose_conv(self, x: Any, output_shape: Any) -> Any:
        """Keras's backend.conv2d_transpose as it runs on the CPU: a channels-first input is
        transposed to NHWC and the result back."""
        first = self.data_format == "channels_first"
        if first:
            from tfcluster.lib.keras import backend

            backend.has_nchw_support()  # asked as TF's (its first ask opens the Keras session)
            x = array_ops.transpose(x, (0, 2, 3, 1))
            output_shape = (output_shape[0], output_shape[2], output_shape[3], output_shape[1])
        if output_shape[0] is None:
            output_shape = (array_ops.shape(x)[0], *tuple(output_shape[1:]))
        if isinstance(output_shape, (tuple, list)):
            output_shape = array_ops.stack(list(output_shape))
        padding = self.padding.upper()
        if self.dilation_rate == (1, 1):
            out = conv_ops.conv2d_transpose(
                x,
                self.kernel,
                output_shape,
                (1, *self.strides, 1),
                padding=padding,
                data_format="NHWC",
            )
        else:
            out = conv_ops.atrous_conv2d_transpose(
                x, self.kernel, output_shape, rate=self.dilation_rate[0], padding=padding
            )
        if first:
            out = array_ops.transpose(out, (0, 3, 1, 2))
        return out

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        dims = TensorShape(input_shape).as_list()
        c, h, w = (1, 2, 3) if self.data_format == "channels_first" else (3, 1, 2)
        pads = self.output_padding or (None, None)
        dims[c] = self.filters
        dims[h] = utils.deconv_output_length(
            dims[h],
            self.kernel_size[0],
            self.padding,
            pads[0],
            self.strides[0],
            self.dilation_rate[0],
        )
        dims[w] = utils.deconv_output_length(
            dims[w],
            self.kernel_size[1],
            self.padding,
            pads[1],
            self.strides[1],
            self.dilation_rate[1],
        )
        return TensorShape(dims)


class Conv3DTranspose(Conv3D):
    """Transposed 3-D convolution."""

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1, 1),
        padding: str = "valid",
        data_format: str = "channels_last",
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = None,
        bias_initializer: Any = init_ops.zeros_initializer(),
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        trainable: bool = True,
        name: str | None = None,
        *,  # Keras's options, beyond TF 1.15's tf.layers signature
        output_padding: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
            trainable=trainable,
            name=name,
            **kwargs,
        )
        self.output_padding = output_padding
        if output_padding is not None:
            self.output_padding = utils.normalize_tuple(output_padding, 3, "output_padding")
            for stride, pad in zip(self.strides, self.output_padding):
                if pad >= stride:
                    raise ValueError(
                        f"Stride {self.strides} must be greater than output padding "
                        f"{self.output_padding}"
                    )

    def build(self, input_shape: Any) -> None:
        input_shape = TensorShape(input_shape)
        if input_shape.ndims != 5:
            raise ValueError("Inputs should have rank 5, received input shape:", str(input_shape))
        input_dim = self._input_dim(input_shape)
        self.input_spec = InputSpec(ndim=5, axes={self._channel_axis(): input_dim})
        self.kernel = self.add_weight(
            "kernel",
            shape=(*self.kernel_size, self.filters, input_dim),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            trainable=True,
            dtype=self.dtype,
        )
        self._add_bias()
        self.built = True

    def call(self, inputs: Any) -> Any:
        shape = array_ops.shape(inputs)
        batch = shape[0]
        first = self.data_format == "channels_first"
        axes = (2, 3, 4) if first else (1, 2, 3)
        sizes = [shape[a] for a in axes]
        pads = self.output_padding or (None, None, None)
        outs = [
            utils.deconv_output_length(
                sizes[i], self.kernel_size[i], self.padding, pads[i], self.strides[i]
            )
            for i in range(3)
        ]
        if first:
            output_shape = (batch, self.filters, *outs)
            strides = (1, 1, *self.strides)
        else:
            output_shape = (batch, *outs, self.filters)
            strides = (1, *self.strides, 1)
        output_shape_t = array_ops.stack(list(output_shape))
        fmt = utils.convert_data_format(self.data_format, 5)
        outputs = conv_ops.conv3d_transpose(
            inputs,
            self.kernel,
            output_shape_t,
            strides,
            data_format=fmt,
            padding=self.padding.upper(),
        )
        outputs.set_shape(self.compute_output_shape(inputs.shape))
        if self.use_bias:
            outputs = nn_ops.bias_add(
                outputs, self.bias, data_format=utils.convert_data_format(self.data_format, 4)
            )
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        dims = TensorShape(input_shape).as_list()
        c, d, h, w = (1, 2, 3, 4) if self.data_format == "channels_first" else (4, 1, 2, 3)
        pads = self.output_padding or (None, None, None)
        dims[c] = self.filters
        for i, axis in enumerate((d, h, w)):
            dims[axis] = utils.deconv_output_length(
                dims[axis], self.kernel_size[i], self.padding, pads[i], self.strides[i]
            )
        return TensorShape(dims)


def conv2d_transpose(
    inputs: Any,
    filters: int,
    kernel_size: Any,
    strides: Any = (1, 1),
    padding: str = "valid",
    data_format: str = "channels_last",
    activation: Any = None,
    use_bias: bool = True,
    kernel_initializer: Any = None,
    bias_initializer: Any = init_ops.zeros_initializer(),
    kernel_regularizer: Any = None,
    bias_regularizer: Any = None,
    activity_regularizer: Any = None,
    kernel_constraint: Any = None,
    bias_constraint: Any = None,
    trainable: bool = True,
    name: str | None = None,
    reuse: Any = None,
) -> Any:
    layer = Conv2DTranspose(
        filters=filters,
        kernel_size=kernel_size,
        strides=strides,
        padding=padding,
        data_format=data_format,
        activation=activation,
        use_bias=use_bias,
        kernel_initializer=kernel_initializer,
        bias_initializer=bias_initializer,
        kernel_regularizer=kernel_regularizer,
        bias_regularizer=bias_regularizer,
        activity_regularizer=activity_regularizer,
        kernel_constraint=kernel_constraint,
        bias_constraint=bias_constraint,
        trainable=trainable,
        name=name,
        _reuse=reuse,
        _scope=name,
    )
    return applied_as_tf(layer, inputs)


def conv3d_transpose(
    inputs: Any,
    filters: int,
    kernel_size: Any,
    strides: Any = (1, 1, 1),
    padding: str = "valid",
    data_format: str = "channels_last",
    activation: Any = None,
    use_bias: bool = True,
    kernel_initializer: Any = None,
    bias_initializer: Any = init_ops.zeros_initializer(),
    kernel_regularizer: Any = None,
    bias_regularizer: Any = None,
    activity_regularizer: Any = None,
    kernel_constraint: Any = None,
    bias_constraint: Any = None,
    trainable: bool = True,
    name: str | None = None,
    reuse: Any = None,
) -> Any:
    layer = Conv3DTranspose(
        filters=filters,
        kernel_size=kernel_size,
        strides=strides,
        padding=padding,
        data_format=data_format,
        activation=activation,
        use_bias=use_bias,
        kernel_initializer=kernel_initializer,
        bias_initializer=bias_initializer,
        kernel_regularizer=kernel_regularizer,
        bias_regularizer=bias_regularizer,
        activity_regularizer=activity_regularizer,
        kernel_constraint=kernel_constraint,
        bias_constraint=bias_constraint,
        trainable=trainable,
        name=name,
        _reuse=reuse,
        _scope=name,
    )
    return applied_as_tf(layer, inputs)


Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution3D = Conv3D
SeparableConvolution2D = SeparableConv2D
Convolution2DTranspose = Deconvolution2D = Deconv2D = Conv2DTranspose
Convolution3DTranspose = Deconvolution3D = Deconv3D = Conv3DTranspose
convolution1d = conv1d
convolution2d = conv2d
convolution3d = conv3d
separable_convolution2d = separable_conv2d
convolution2d_transpose = deconvolution2d = deconv2d = conv2d_transpose
convolution3d_transpose = deconvolution3d = deconv3d = conv3d_transpose
