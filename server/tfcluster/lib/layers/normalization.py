"""tf.layers BatchNormalization (TF 1.15's layers/normalization.py on Keras's V1 batch
normalisation): the fused kernel for 4-D inputs normalised over axis 1 or 3 (as TF 1.15
chooses by default), moments and ordinary ops otherwise; moving statistics updated by ops the
layer puts in UPDATE_OPS; `training` a Python bool or a boolean tensor; batch renormalisation,
virtual batches and adjustments as Keras does them."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import (
    Tensor,
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    name_scope,
)
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.layers import utils
from tfcluster.lib.layers.base import InputSpec, Layer, applied_as_tf
from tfcluster.ops import array_ops, constant_op, init_ops, math_ops, nn_impl, nn_ops, state_ops
from tfcluster.ops.variables import VariableAggregation, VariableSynchronization


class BatchNormalization(Layer):
    """Batch normalisation (Ioffe and Szegedy): normalises with the batch's statistics when
    training and with moving averages of them otherwise."""

    def __init__(
        self,
        axis: Any = -1,
        momentum: float = 0.99,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = init_ops.zeros_initializer(),
        gamma_initializer: Any = init_ops.ones_initializer(),
        moving_mean_initializer: Any = init_ops.zeros_initializer(),
        moving_variance_initializer: Any = init_ops.ones_initializer(),
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        renorm: bool = False,
        renorm_clipping: dict[str, Any] | None = None,
        renorm_momentum: float = 0.99,
        fused: bool | None = None,
        trainable: bool = True,
        virtual_batch_size: int | None = None,
        adjustment: Any = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, trainable=trainable, **kwargs)
        if isinstance(axis, list):
            self.axis: Any = axis[:]
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(f"axis must be int or list, type given: {type(axis)}")
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = utils.get_initializer(beta_initializer)
        self.gamma_initializer = utils.get_initializer(gamma_initializer)
        self.moving_mean_initializer = utils.get_initializer(moving_mean_initializer)
        self.moving_variance_initializer = utils.get_initializer(moving_variance_initializer)
        self.beta_regularizer = utils.get_regularizer(beta_regularizer)
        self.gamma_regularizer = utils.get_regularizer(gamma_regularizer)
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.renorm = renorm
        self.virtual_batch_size = virtual_batch_size
        self.adjustment = adjustment
        # Keras V1 (TF 1.15's tf.layers): fused unless build finds it cannot be.
        self.fused = True if fused is None else fused
        self.supports_masking = True
        if renorm:
            renorm_clipping = renorm_clipping or {}
            keys = ["rmax", "rmin", "dmax"]
            if set(renorm_clipping) - set(keys):
                raise ValueError(f"renorm_clipping {renorm_clipping} contains keys not in {keys}")
            self.renorm_clipping = renorm_clipping
            self.renorm_momentum = renorm_momentum

    def _fused_can_be_used(self) -> bool:
        axis = [self.axis] if isinstance(self.axis, int) else self.axis
        return (
            not self.renorm
            and len(axis) == 1
            and axis[0] in (-3, -1, 1, 3)
            and self.virtual_batch_size is None
            and self.adjustment is None
        )

    @property
    def _param_dtype(self) -> dtypes.DType:
        if self.dtype in (dtypes.float16,):
            return dtypes.float32
        return dtypes.as_dtype(self.dtype or dtypes.float32)

    # ---- build -----------------------------------------------------------------------------
    def build(self, input_shape: Any) -> None:
        input_shape = TensorShape(input_shape)
        if not input_shape.ndims:
            raise ValueError("Input has undefined rank:", input_shape)
        ndims = input_shape.ndims
        if isinstance(self.axis, int):
            self.axis = [self.axis]
        self.axis = [ndims + x if x < 0 else x for x in self.axis]
        for x in self.axis:
            if x < 0 or x >= ndims:
                raise ValueError(f"Invalid axis: {x}")
        if len(self.axis) != len(set(self.axis)):
            raise ValueError(f"Duplicate axis: {self.axis}")
        if self.virtual_batch_size is not None:
            if self.virtual_batch_size <= 0:
                raise ValueError(
                    "virtual_batch_size must be a positive integer that divides the true batch "
                    "size of the input Tensor"
                )
            if 0 in self.axis:
                raise ValueError(
                    "When using virtual_batch_size, the batch dimension must be 0 and thus axis "
                    "cannot include 0"
                )
            if self.adjustment is not None:
                raise ValueError("When using virtual_batch_size, adjustment cannot be specified")
        if self.fused in (None, True):
            self.fused = ndims == 4 and self._fused_can_be_used()
        if self.fused:
            if self.axis == [1]:
                self._data_format = "NCHW"
            elif self.axis == [3]:
                self._data_format = "NHWC"
            else:
                raise ValueError(
                    "Unsupported axis, fused batch norm only supports axis == [1] or axis == [3]"
                )
        dims = input_shape.as_list()
        axis_to_dim = {x: dims[x] for x in self.axis}
        for d in axis_to_dim.values():
            if d is None:
                raise ValueError("Input has undefined `axis` dimension. Input shape: ", input_shape)
        self.input_spec = InputSpec(ndim=ndims, axes=axis_to_dim)
        if len(axis_to_dim) == 1 and self.virtual_batch_size is None:
            param_shape: Any = (next(iter(axis_to_dim.values())),)
        else:
            param_shape = [axis_to_dim.get(i, 1) for i in range(ndims)]
            if self.virtual_batch_size is not None:
                param_shape.insert(1, 1)
                self.axis = [x + 1 for x in self.axis]
        pdtype = self._param_dtype
        if self.scale:
            self.gamma = self.add_weight(
                name="gamma",
                shape=param_shape,
                dtype=pdtype,
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
                trainable=True,
            )
        else:
            self.gamma = None
            if self.fused:
                self._gamma_const = constant_op.constant(1.0, dtype=pdtype, shape=param_shape)
        if self.center:
            self.beta = self.add_weight(
                name="beta",
                shape=param_shape,
                dtype=pdtype,
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
                trainable=True,
            )
        else:
            self.beta = None
            if self.fused:
                self._beta_const = constant_op.constant(0.0, dtype=pdtype, shape=param_shape)
        partitioner = None
        if self._scope is not None:
            partitioner = self._scope.partitioner
            self._scope.set_partitioner(None)
        try:
            stats = {
                "shape": param_shape,
                "dtype": pdtype,
                "synchronization": VariableSynchronization.ON_READ,
                "trainable": False,
                "aggregation": VariableAggregation.MEAN,
            }
            self.moving_mean = self.add_weight(
                name="moving_mean", initializer=self.moving_mean_initializer, **stats
            )
            self.moving_variance = self.add_weight(
                name="moving_variance", initializer=self.moving_variance_initializer, **stats
            )
            if self.renorm:
                variance_init = self.moving_variance_initializer

                def moving_stddev_initializer(*args: Any, **kw: Any) -> Any:
                    return math_ops.sqrt(variance_init(*args, **kw))

                with colocate_with(self.moving_variance):
                    self.moving_stddev = self.add_weight(
                        name="moving_stddev", initializer=moving_stddev_initializer, **stats
                    )
                with colocate_with(self.moving_mean):
                    self.renorm_mean = self.add_weight(
                        name="renorm_mean", initializer=self.moving_mean_initializer, **stats
                    )
                with colocate_with(self.moving_stddev):
                    self.renorm_stddev = self.add_weight(
                        name="renorm_stddev", initializer=moving_stddev_initializer, **stats
                    )
        finally:
            if partitioner and self._scope is not None:
                self._scope.set_partitioner(partitioner)
        self.built = True

    # ---- moving averages -------------------------------------------------------------------
    def _assign_moving_average(self, variable: Any, value: Any, momentum: Any) -> Tensor:
        with name_scope("AssignMovingAvg") as scope, colocate_with(variable):
            decay = convert_to_tensor(1.0 - momentum, name="decay")
            if decay.dtype.base_dtype != variable.dtype.base_dtype:
                decay = math_ops.cast(decay, variable.dtype.base_dtype)
            delta = (variable - math_ops.cast(value, variable.dtype.base_dtype)) * decay
            return state_ops.assign_sub(variable, delta, name=scope)

    def _assign_new_value(self, variable: Any, value: Any) -> Tensor:
        with name_scope("AssignNewValue") as scope, colocate_with(variable):
            return state_ops.assign(variable, value, name=scope)

    # ---- call ------------------------------------------------------------------------------
    def _fused_batch_norm(self, inputs: Tensor, training: Any) -> Tensor:
        beta = self.beta if self.center else self._beta_const
        gamma = self.gamma if self.scale else self._gamma_const

        def train() -> Any:
            return nn_impl.fused_batch_norm(
                inputs, gamma, beta, epsilon=self.epsilon, data_format=self._data_format
            )

        def infer() -> Any:
            return nn_impl.fused_batch_norm(
                inputs,
                gamma,
                beta,
                mean=self.moving_mean,
                variance=self.moving_variance,
                epsilon=self.epsilon,
                is_training=False,
                data_format=self._data_format,
            )

        output, mean, variance = utils.smart_cond(training, train, infer)
        training_value = utils.constant_value(training)
        if training_value is None:
            momentum: Any = utils.smart_cond(training, lambda: self.momentum, lambda: 1.0)
        else:
            momentum = convert_to_tensor(self.momentum)
        if training_value or training_value is None:
            self.add_update(lambda: self._assign_moving_average(self.moving_mean, mean, momentum))
            self.add_update(
                lambda: self._assign_moving_average(self.moving_variance, variance, momentum)
            )
        return output

    def _renorm_correction_and_moments(
        self, mean: Tensor, variance: Tensor, training: Any
    ) -> tuple[Any, Any, Tensor, Tensor]:
        stddev = math_ops.sqrt(variance + self.epsilon)
        renorm_mean = self.renorm_mean
        renorm_stddev = math_ops.maximum(self.renorm_stddev, math_ops.sqrt(self.epsilon))
        r = stddev / renorm_stddev
        d = (mean - renorm_mean) / renorm_stddev
        with control_dependencies([r, d]):
            mean = array_ops.identity(mean)
            stddev = array_ops.identity(stddev)
        rmin, rmax, dmax = (self.renorm_clipping.get(k) for k in ("rmin", "rmax", "dmax"))
        if rmin is not None:
            r = math_ops.maximum(r, rmin)
        if rmax is not None:
            r = math_ops.minimum(r, rmax)
        if dmax is not None:
            d = math_ops.maximum(d, -dmax)
            d = math_ops.minimum(d, dmax)
        r = utils.smart_cond(training, lambda: r, lambda: array_ops.ones_like(r))
        d = utils.smart_cond(training, lambda: d, lambda: array_ops.zeros_like(d))

        def update(var: Any, value: Any) -> Any:
            value = array_ops.identity(value)
            return utils.smart_cond(
                training,
                lambda: self._assign_moving_average(var, value, self.renorm_momentum),
                lambda: array_ops.identity(var),
            )

        new_mean = update(self.renorm_mean, mean)
        new_stddev = update(self.renorm_stddev, stddev)
        with control_dependencies([new_mean, new_stddev]):
            out_mean = array_ops.identity(mean)
            out_variance = array_ops.identity(variance)
        return r, d, out_mean, out_variance

    def call(self, inputs: Any, training: Any = False) -> Any:
        original_shape: list[int] = []
        if self.virtual_batch_size is not None:
            original_shape = [-1, *inputs.shape.as_list()[1:]]
            expanded = [self.virtual_batch_size, -1, *original_shape[1:]]
            inputs = array_ops.reshape(inputs, expanded)
        if self.fused:
            outputs = self._fused_batch_norm(inputs, training)
            if self.virtual_batch_size is not None:
                outputs = array_ops.reshape(outputs, original_shape)
            return outputs
        input_shape = inputs.shape
        ndims = input_shape.ndims
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        if self.virtual_batch_size is not None:
            del reduction_axes[1]
        broadcast_shape = [1] * ndims
        broadcast_shape[self.axis[0]] = input_shape.as_list()[self.axis[0]]

        def broadcast(v: Any) -> Any:
            if (
                v is not None
                and v.shape.ndims != ndims
                and reduction_axes != list(range(ndims - 1))
            ):
                return array_ops.reshape(v, broadcast_shape)
            return v

        scale, offset = broadcast(self.gamma), broadcast(self.beta)

        def compose(scale: Any, offset: Any, then_scale: Any, then_offset: Any) -> Any:
            if then_scale is not None:
                scale *= then_scale
                offset *= then_scale
            if then_offset is not None:
                offset += then_offset
            return scale, offset

        training_value = utils.constant_value(training)
        if training_value is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            if self.adjustment:
                adj_scale, adj_bias = self.adjustment(array_ops.shape(inputs))
                adj_scale = utils.smart_cond(
                    training, lambda: adj_scale, lambda: array_ops.ones_like(adj_scale)
                )
                adj_bias = utils.smart_cond(
                    training, lambda: adj_bias, lambda: array_ops.zeros_like(adj_bias)
                )
                scale, offset = compose(adj_scale, adj_bias, scale, offset)
            keep_dims = self.virtual_batch_size is not None or len(self.axis) > 1
            batch_mean, batch_variance = nn_ops.moments(
                math_ops.cast(inputs, self._param_dtype), reduction_axes, keep_dims=keep_dims
            )
            moving_mean, moving_variance = self.moving_mean, self.moving_variance
            mean = utils.smart_cond(
                training, lambda: batch_mean, lambda: convert_to_tensor(moving_mean)
            )
            variance = utils.smart_cond(
                training, lambda: batch_variance, lambda: convert_to_tensor(moving_variance)
            )
            if self.virtual_batch_size is not None:
                new_mean = math_ops.reduce_mean(mean, axis=1, keepdims=True)
                new_variance = math_ops.reduce_mean(variance, axis=1, keepdims=True)
            else:
                new_mean, new_variance = mean, variance
            if self.renorm:
                r, d, new_mean, new_variance = self._renorm_correction_and_moments(
                    new_mean, new_variance, training
                )
                r = broadcast(array_ops.stop_gradient(r, name="renorm_r"))
                d = broadcast(array_ops.stop_gradient(d, name="renorm_d"))
                scale, offset = compose(r, d, scale, offset)

            def mean_update() -> Any:
                return utils.smart_cond(
                    training,
                    lambda: self._assign_moving_average(self.moving_mean, new_mean, self.momentum),
                    lambda: self.moving_mean,
                )

            def variance_update() -> Any:
                def renorm_branch() -> Any:
                    stddev = self._assign_moving_average(
                        self.moving_stddev,
                        math_ops.sqrt(new_variance + self.epsilon),
                        self.momentum,
                    )
                    return self._assign_new_value(
                        self.moving_variance, nn_ops.relu(stddev * stddev - self.epsilon)
                    )

                if self.renorm:
                    true_branch = renorm_branch
                else:

                    def true_branch() -> Any:
                        return self._assign_moving_average(
                            self.moving_variance, new_variance, self.momentum
                        )

                return utils.smart_cond(training, true_branch, lambda: self.moving_variance)

            self.add_update(mean_update)
            self.add_update(variance_update)
        dtype = inputs.dtype.base_dtype
        mean = math_ops.cast(mean, dtype)
        variance = math_ops.cast(variance, dtype)
        if offset is not None:
            offset = math_ops.cast(offset, dtype)
        if scale is not None:
            scale = math_ops.cast(scale, dtype)
        outputs = nn_impl.batch_normalization(
            inputs, broadcast(mean), broadcast(variance), offset, scale, self.epsilon
        )
        outputs.set_shape(input_shape)
        if self.virtual_batch_size is not None:
            outputs = array_ops.reshape(outputs, original_shape)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


def batch_normalization(
    inputs: Any,
    axis: Any = -1,
    momentum: float = 0.99,
    epsilon: float = 1e-3,
    center: bool = True,
    scale: bool = True,
    beta_initializer: Any = init_ops.zeros_initializer(),
    gamma_initializer: Any = init_ops.ones_initializer(),
    moving_mean_initializer: Any = init_ops.zeros_initializer(),
    moving_variance_initializer: Any = init_ops.ones_initializer(),
    beta_regularizer: Any = None,
    gamma_regularizer: Any = None,
    beta_constraint: Any = None,
    gamma_constraint: Any = None,
    training: Any = False,
    trainable: bool = True,
    name: str | None = None,
    reuse: Any = None,
    renorm: bool = False,
    renorm_clipping: dict[str, Any] | None = None,
    renorm_momentum: float = 0.99,
    fused: bool | None = None,
    virtual_batch_size: int | None = None,
    adjustment: Any = None,
) -> Any:
    """Functional interface of BatchNormalization; the moving-statistics updates go to
    tf.GraphKeys.UPDATE_OPS (run them with the train op)."""
    layer = BatchNormalization(
        axis=axis,
        momentum=momentum,
        epsilon=epsilon,
        center=center,
        scale=scale,
        beta_initializer=beta_initializer,
        gamma_initializer=gamma_initializer,
        moving_mean_initializer=moving_mean_initializer,
        moving_variance_initializer=moving_variance_initializer,
        beta_regularizer=beta_regularizer,
        gamma_regularizer=gamma_regularizer,
        beta_constraint=beta_constraint,
        gamma_constraint=gamma_constraint,
        renorm=renorm,
        renorm_clipping=renorm_clipping,
        renorm_momentum=renorm_momentum,
        fused=fused,
        trainable=trainable,
        virtual_batch_size=virtual_batch_size,
        adjustment=adjustment,
        name=name,
        _reuse=reuse,
        _scope=name,
    )
    return applied_as_tf(layer, inputs, training=training)


BatchNorm = BatchNormalization
batch_norm = batch_normalization
