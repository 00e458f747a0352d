"""What makes a tf.layers layer a tf.keras layer (TF 1.15, graph mode): names unique per
graph and zero-based (`dense`, `dense_1`), one name scope per call (`dense/MatMul`, then
`dense_1/MatMul` when called again), weights made in that name scope with tf.Variable (not
tf.get_variable: no variable-scope reuse), the learning phase passed as `training` when the
caller gives none, and the call history (`_keras_history`) functional models are built from.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import Tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.keras import backend, initializers
from tfcluster.lib.keras.mixed_precision import autocast_variable
from tfcluster.lib.keras.mixed_precision import policy as policy_lib
from tfcluster.lib.keras.mixed_precision.autocast_variable import AutoCastVariable
from tfcluster.lib.layers import base as layers_base
from tfcluster.ops import variables
from tfcluster.ops.variables import VariableAggregation, VariableSynchronization


class Node:
    """One call of a layer: the tensors it took and the tensors it made."""

    def __init__(self, layer: Any, inputs: Any, outputs: Any) -> None:
        self.layer = layer
        self.input_tensors = layers_base._flatten(inputs)
        self.output_tensors = layers_base._flatten(outputs)
        self.inputs_structure = inputs
        self.outputs_structure = outputs
        self.inbound_layers = [
            t._keras_history[0] for t in self.input_tensors if hasattr(t, "_keras_history")
        ]


def collect_masks(inputs: Any) -> Any:
    """The `_keras_mask` of the inputs: one, a list (None where absent), or None if none."""
    if isinstance(inputs, (list, tuple)):
        masks = [getattr(x, "_keras_mask", None) for x in inputs]
        return None if all(m is None for m in masks) else masks
    return getattr(inputs, "_keras_mask", None)


def flatten(structure: Any) -> list[Any]:
    return layers_base._flatten(structure)


def shape_tuple(shape: Any) -> tuple[Any, ...] | None:
    shape = TensorShape(shape)
    return None if shape.ndims is None else tuple(shape.as_list())


def _is_network(layer: Any) -> bool:
    """A model (its build is its layers' calls, made when it is called)."""
    return hasattr(layer, "_init_graph_network")


class KerasLayerMixin:
    """Mixed in before a tf.layers class (or the tf.layers base Layer) to give it Keras's
    behaviour; see the module docstring."""

    _name: str
    built: bool

    def __setattr__(self, key: str, value: Any) -> None:
        # TF 1.15's Keras Layer.__setattr__: a legacy tf.layers layer tracked by a Keras
        # layer or model (Sequential tracks its own) must make resource variables.
        # (tf.layers layers and tf.nn.rnn_cell cells both carry _use_resource_variables.)
        if (
            hasattr(value, "_use_resource_variables")
            and not isinstance(value, KerasLayerMixin)
            and type(self).__name__ != "Sequential"
        ):
            value._use_resource_variables = True
        super().__setattr__(key, value)

    def add_metric(
        self, value: Any, aggregation: str | None = None, name: str | None = None
    ) -> None:
        """A metric of this layer (see layer_metrics)."""
        from tfcluster.lib.keras.engine import layer_metrics

        layer_metrics.add_metric(self, value, aggregation, name)

    @property
    def metrics(self) -> list[Any]:
        """The metrics add_metric gave this layer."""
        from tfcluster.lib.keras.engine import layer_metrics

        return list(layer_metrics.metrics_of(self))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "input_shape" not in kwargs and "input_dim" in kwargs:
            kwargs["input_shape"] = (kwargs.pop("input_dim"),)
        kwargs.pop("input_dim", None)
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        input_shape = kwargs.pop("input_shape", None)
        batch_size = kwargs.pop("batch_size", None)
        if batch_input_shape is None and input_shape is not None:
            batch_input_shape = (batch_size, *tuple(input_shape))
        self._batch_input_shape = None if batch_input_shape is None else tuple(batch_input_shape)
        self._keras_initial_weights = kwargs.pop("weights", None)
        # dynamic=True: the layer runs eagerly only; in a graph its outputs are placeholders
        # shaped by compute_output_shape, and a model holding it refuses to compile (TF 1.15).
        self._dynamic = bool(kwargs.pop("dynamic", False))
        # TF 1's default: inputs are not cast to the compute dtype unless asked.
        self._autocast = bool(kwargs.pop("autocast", False))
        self._dtype_policy = _policy_for(kwargs.get("dtype"))
        if isinstance(kwargs.get("dtype"), policy_lib.Policy) or kwargs.get("dtype") is None:
            kwargs["dtype"] = self._dtype_policy.variable_dtype
        if kwargs.get("activity_regularizer") is not None:
            from tfcluster.lib.keras import regularizers

            kwargs["activity_regularizer"] = regularizers.get(kwargs["activity_regularizer"])
        dtype = kwargs.get("dtype")
        if dtype is None and self._batch_input_shape is not None:
            kwargs["dtype"] = backend.floatx()
        self._inbound_nodes: list[Node] = []
        self._outbound_nodes: list[Node] = []
        super().__init__(*args, **kwargs)
        self._keras_style = True

    def _init_set_name(self, name: Any) -> None:
        if not name:
            name = layers_base.unique_object_name(
                layers_base.to_snake_case(type(self).__name__), zero_based=True
            )
        self._name = name
        self._base_name = name

    # ---- weights -------------------------------------------------------------------------
    def _keras_add_weight(
        self,
        name: str | None = None,
        shape: Any = None,
        dtype: Any = None,
        initializer: Any = None,
        regularizer: Any = None,
        trainable: bool | None = None,
        constraint: Any = None,
        partitioner: Any = None,
        use_resource: Any = None,
        synchronization: Any = VariableSynchronization.AUTO,
        aggregation: Any = VariableAggregation.NONE,
        **kwargs: Any,
    ) -> Any:
        """A tf.Variable named after the current name scope (`dense/kernel`; `Variable` when
        no name is given, as TF 1.15 names it)."""
        if partitioner is not None:
            raise backend.unimplemented("tf.keras layer weights with a partitioner")
        if synchronization == VariableSynchronization.ON_READ:
            trainable = False
        elif trainable is None:
            trainable = True
        dtype = dtypes.as_dtype(dtype or getattr(self, "_dtype", None) or backend.floatx())
        dtype = dtype.base_dtype
        if initializer is None:
            if dtype.is_floating:
                initializer = initializers.get("glorot_uniform")
            elif dtype.is_integer or dtype == dtypes.bool_:
                initializer = initializers.get("zeros")
            else:
                raise ValueError(
                    f"An initializer for variable {name} of type {dtype} is required for layer "
                    f"{self._name}"
                )
        initializer = initializers.get(initializer)
        shape = () if shape is None else tuple(shape)
        if getattr(self, "_dtype", None) is None:
            self._dtype = dtype  # type: ignore[assignment]

        def initial_value() -> Any:
            return initializer(shape, dtype=dtype)

        # TF 1.15's make_variable: Keras weights are resource variables unless asked otherwise.
        variable: Any = variables.Variable(
            initial_value,
            name=name,
            dtype=dtype,
            trainable=trainable,
            constraint=constraint,
            use_resource=True if use_resource is None else use_resource,
        )
        if (
            kwargs.get("experimental_autocast", True)
            and self._dtype_policy.should_cast_variables
            and dtype.is_floating
        ):
            variable = AutoCastVariable(variable)
        # The name the layer tracks it by (a checkpoint's `kernel`, where the variable itself
        # may be `rnn/kernel_1`).
        variable._tracked_name = name or "Variable"
        if trainable:
            self._trainable_weights.append(variable)  # type: ignore[attr-defined]
        else:
            self._non_trainable_weights.append(variable)  # type: ignore[attr-defined]
        if regularizer is not None:
            # Keras names the penalty's scope after the variable ('dense/kernel/Regularizer').
            in_scope = variable.name[: variable.name.find(":")]
            self._handle_weight_regularization(in_scope, variable, regularizer)  # type: ignore[attr-defined]
        return variable

    # Keras's order (partitioner before use_resource) and optional name differ from tf.layers'
    # add_weight, which the layers built on tf.layers classes also inherit: typed as Any so
    # the two can differ.
    add_weight: Any = _keras_add_weight

    def add_variable(self, *args: Any, **kwargs: Any) -> Any:
        """Deprecated alias of add_weight (TF 1.15 takes the same arguments); its first call
        announces the deprecation, from the caller (TF's RNN cells and feature columns call
        it: TF names their files)."""
        internal_deprecations.called_internally(internal_deprecations.LAYER_ADD_VARIABLE, 2)
        return self.add_weight(*args, **kwargs)

    def get_weights(self) -> list[np.ndarray]:
        return backend.batch_get_value(self.weights)  # type: ignore[attr-defined]

    def set_weights(self, weights: Sequence[Any]) -> None:
        params = self.weights  # type: ignore[attr-defined]
        if len(params) != len(weights):
            raise ValueError(
                f'You called `set_weights(weights)` on layer "{self._name}" with a  weight list '
                f"of length {len(weights)}, but the layer was expecting {len(params)} weights. "
                f"Provided weights: {str(weights)[:50]}..."
            )
        pairs = []
        for p, w in zip(params, weights):
            w = np.asarray(w)
            if tuple(p.shape.as_list()) != w.shape:
                raise ValueError(
                    f"Layer weight shape {tuple(p.shape.as_list())} not compatible with "
                    f"provided weight shape {w.shape}"
                )
            pairs.append((p, w))
        backend.batch_set_value(pairs)

    # ---- calling -------------------------------------------------------------------------
    # Whether __call__ passes the learning phase as `training` when not given: only the
    # layers whose TF 1.15 call asks for it when given None (Dropout, BatchNormalization,
    # the noise layers). TF's graph-mode __call__ fills nothing: a Lambda's or a user's
    # layer's call gets training=None.
    _fills_training = False
    # The inputs of the layer's first call (class default: not called yet).
    _first_call_inputs: Any = None

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        from tfcluster.lib.keras.engine import tf_op_layer

        if tf_op_layer.needs_keras_history(inputs):
            # Raw TF ops on Keras tensors become TensorFlowOpLayers (TF 1.15's autolambda).
            tf_op_layer.create_keras_history(inputs)
        call_args = self._call_arg_names  # type: ignore[attr-defined]
        fill_training = False
        if "training" in call_args and kwargs.get("training") is None and self._fills_training:
            position = call_args.index("training") - 1  # after `inputs`
            fill_training = len(args) <= position
        previous_mask = collect_masks(inputs)
        if "mask" in call_args and kwargs.get("mask") is None and previous_mask is not None:
            kwargs["mask"] = previous_mask
        if "mask" in kwargs and "mask" not in call_args:
            kwargs.pop("mask")
        if not self.built:
            self._infer_policy_from(inputs)
        if self._autocast:
            inputs = self._cast_inputs(inputs)
        with name_scope(self._name), autocast_variable.enable_auto_cast(self._compute_dtype):
            was_built = self.built
            if fill_training and not _is_network(self):
                # TF 1.15's layers ask for the learning phase in call, after build: the
                # weights' initializers come first, and their op seeds count no placeholder.
                # (A model leaves it to its layers.)
                if not was_built and not self._dynamic:
                    tensors = layers_base._map(layers_base._as_tensor, inputs)
                    self._maybe_build(tensors)  # type: ignore[attr-defined]
                kwargs["training"] = backend.learning_phase()
            with tf_op_layer.in_call():
                outputs = self._call_in_scope(inputs, args, kwargs)  # type: ignore[attr-defined]
            # TF 1.15 computes the outputs' masks in the layer's scope (embedding/NotEqual).
            masks = self._output_masks(inputs, outputs, previous_mask)
            # Inside the layer's scope, as TF 1.15 copies them (`<name>/<name>/Identity`).
            outputs = self._copy_passed_through(inputs, outputs)
        if not was_built and self._keras_initial_weights is not None:
            self.set_weights(self._keras_initial_weights)
            self._keras_initial_weights = None
        self._assign_masks(outputs, masks)
        if self._first_call_inputs is None:
            # What a SavedModel traces the layer's call on when no node records it (the
            # layers of a subclassed model built on plain placeholders).
            self._first_call_inputs = inputs
        self._record_call(inputs, outputs)
        return outputs

    @property
    def dynamic(self) -> bool:
        return self._dynamic

    def _call_in_scope(self, inputs: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if not self._dynamic:
            return super()._call_in_scope(inputs, args, kwargs)  # type: ignore[misc]
        return self._symbolic_call(inputs)

    def _symbolic_call(self, inputs: Any) -> Any:
        """A dynamic layer in a graph: built, but not called; its outputs are placeholders
        disconnected from the inputs, as TF 1.15 makes them (feeding nothing can run them)."""
        self._maybe_build(inputs)  # type: ignore[attr-defined]
        input_shapes = layers_base._map(lambda x: x.shape, inputs)
        output_shapes = self.compute_output_shape(input_shapes)  # type: ignore[attr-defined]
        dtype = getattr(self, "_dtype", None) or backend.floatx()

        def placeholder(shape: Any) -> Any:
            shape = TensorShape(shape)
            dims = None if shape.ndims is None else shape.as_list()
            return backend.placeholder(shape=dims, dtype=dtype)

        if isinstance(output_shapes, list) and all(
            isinstance(s, (TensorShape, tuple, list)) for s in output_shapes
        ):
            return [placeholder(s) for s in output_shapes]
        return placeholder(output_shapes)

    # ---- dtype policies (tf.keras.mixed_precision) ---------------------------------------------
    @property
    def _compute_dtype(self) -> str | None:
        if self._dtype_policy.compute_dtype:
            return self._dtype_policy.compute_dtype
        dtype = getattr(self, "_dtype", None)
        return None if dtype is None else str(dtypes.as_dtype(dtype).name)

    def _infer_policy_from(self, inputs: Any) -> None:
        """An "infer" policy takes the first input's dtype (its float32 variables, if any,
        stay float32)."""
        if self._dtype_policy.compute_dtype is not None:
            return
        first = flatten(inputs)[:1]
        dtype = getattr(first[0], "dtype", None) if first else None
        if dtype is None:
            return
        self._dtype_policy = policy_lib.with_input_dtype(self._dtype_policy, dtype.base_dtype)
        if getattr(self, "_dtype", None) is None and self._dtype_policy.variable_dtype:
            self._dtype = dtypes.as_dtype(self._dtype_policy.variable_dtype)  # type: ignore[assignment]

    def _cast_inputs(self, inputs: Any) -> Any:
        """autocast=True: floating inputs in the compute dtype."""
        compute_dtype = self._compute_dtype
        if compute_dtype is None or not dtypes.as_dtype(compute_dtype).is_floating:
            return inputs
        from tfcluster.ops import math_ops

        def cast(x: Any) -> Any:
            if (
                isinstance(x, Tensor)
                and x.dtype.is_floating
                and x.dtype.base_dtype.name != compute_dtype
            ):
                return math_ops.cast(x, compute_dtype)
            return x

        return layers_base._map(cast, inputs)

    def _copy_passed_through(self, inputs: Any, outputs: Any) -> Any:
        """An input returned unchanged is copied (tf.identity in the layer's scope), as TF 1.15
        does, so its own Keras history is kept."""
        input_ids = {id(x) for x in flatten(inputs)}
        if not any(id(x) in input_ids for x in flatten(outputs)):
            return outputs
        from tfcluster.ops import array_ops

        def copy(x: Any) -> Any:
            if id(x) not in input_ids:
                return x
            with name_scope(self._name):
                y = array_ops.identity(x)
            if getattr(x, "_keras_mask", None) is not None:
                y._keras_mask = x._keras_mask  # type: ignore[attr-defined]
            return y

        return layers_base._map(copy, outputs)

    # ---- masks (Embedding(mask_zero=True), Masking) ---------------------------------------------
    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The input mask carried on by layers that support masking; None otherwise (TF 1.15
        raises there; layers here do not all declare support, so the mask is dropped)."""
        return mask if getattr(self, "supports_masking", False) else None

    def _set_mask_metadata(self, inputs: Any, outputs: Any, previous_mask: Any) -> None:
        self._assign_masks(outputs, self._output_masks(inputs, outputs, previous_mask))

    def _output_masks(self, inputs: Any, outputs: Any, previous_mask: Any) -> Any:
        """The masks compute_mask gives the outputs (None: nothing to set)."""
        if previous_mask is None and type(self).compute_mask is KerasLayerMixin.compute_mask:
            return None
        if all(getattr(x, "_keras_mask", None) is not None for x in flatten(outputs)):
            return None
        return [self.compute_mask(inputs, previous_mask)]

    def _assign_masks(self, outputs: Any, computed: Any) -> None:
        if computed is None:
            return
        flat_outputs = flatten(outputs)
        masks = computed[0]
        flat_masks = flatten(masks) if isinstance(masks, (list, tuple)) else [masks]
        if len(flat_masks) != len(flat_outputs):
            flat_masks = (
                [masks] * len(flat_outputs) if not isinstance(masks, (list, tuple)) else flat_masks
            )
        for output, mask in zip(flat_outputs, flat_masks):
            with contextlib.suppress(AttributeError):  # a non-tensor output
                output._keras_mask = mask

    def _record_call(self, inputs: Any, outputs: Any) -> None:
        """A node, when every input comes from a Keras layer (as Keras records them)."""
        if not all(hasattr(t, "_keras_history") for t in flatten(inputs)):
            return
        node = Node(self, inputs, outputs)
        node_index = len(self._inbound_nodes)
        self._inbound_nodes.append(node)
        for layer in node.inbound_layers:
            layer._outbound_nodes.append(node)
        for i, t in enumerate(node.output_tensors):
            if isinstance(t, Tensor):
                tensor: Any = t  # Keras's history rides on the tensor object
                tensor._keras_history = (self, node_index, i)

    # ---- what the first call took and made --------------------------------------------------
    def _node(self, what: str) -> Node:
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self._name} is not connected, no {what} to return.")
        return self._inbound_nodes[0]

    @staticmethod
    def _one_or_list(tensors: list[Any]) -> Any:
        return tensors[0] if len(tensors) == 1 else tensors

    @property
    def inbound_nodes(self) -> list[Node]:
        """The layer's calls (TF 1.15 keeps it for external Keras)."""
        return self._inbound_nodes

    @property
    def outbound_nodes(self) -> list[Node]:
        """The calls of other layers on this layer's outputs."""
        return self._outbound_nodes

    @property
    def input(self) -> Any:
        return self._one_or_list(self._node("input").input_tensors)

    @property
    def output(self) -> Any:
        return self._one_or_list(self._node("output").output_tensors)

    @property
    def input_mask(self) -> Any:
        """The Keras mask of the layer's input (its one call's), as TF 1.15's property."""
        return self._one_or_list(
            [getattr(t, "_keras_mask", None) for t in self._node("input").input_tensors]
        )

    @property
    def output_mask(self) -> Any:
        return self._one_or_list(
            [getattr(t, "_keras_mask", None) for t in self._node("output").output_tensors]
        )

    def _at_node(self, node_index: int, what: str, of: str) -> Any:
        """What call `node_index` took or made (`input`/`output` tensors, shapes or masks):
        one value, or a list for several (TF 1.15's _get_node_attribute_at_index)."""
        if not self._inbound_nodes:
            raise RuntimeError(f"The layer has never been called and thus has no defined {of}.")
        if not len(self._inbound_nodes) > node_index:
            raise ValueError(
                f"Asked to get {of} at node {node_index}, but the layer has only "
                f"{len(self._inbound_nodes)} inbound nodes."
            )
        node = self._inbound_nodes[node_index]
        tensors = node.input_tensors if of.startswith("input") else node.output_tensors
        if what == "shape":
            values = [shape_tuple(t.shape) for t in tensors]
        elif what == "mask":
            values = [getattr(t, "_keras_mask", None) for t in tensors]
        else:
            values = list(tensors)
        return values[0] if len(values) == 1 else values

    def get_input_at(self, node_index: int) -> Any:
        return self._at_node(node_index, "tensor", "input")

    def get_output_at(self, node_index: int) -> Any:
        return self._at_node(node_index, "tensor", "output")

    def get_input_shape_at(self, node_index: int) -> Any:
        return self._at_node(node_index, "shape", "input shape")

    def get_output_shape_at(self, node_index: int) -> Any:
        return self._at_node(node_index, "shape", "output shape")

    def get_input_mask_at(self, node_index: int) -> Any:
        return self._at_node(node_index, "mask", "input mask")

    def get_output_mask_at(self, node_index: int) -> Any:
        return self._at_node(node_index, "mask", "output mask")

    def _shapes(self, which: str) -> Any:
        """The input or output shapes of every call, when all calls agree."""
        self._node(which)
        found = []
        for node in self._inbound_nodes:
            structure = node.inputs_structure if which == "input" else node.outputs_structure
            found.append(layers_base._map(lambda t: shape_tuple(t.shape), structure))
        if any(f != found[0] for f in found[1:]):
            raise AttributeError(
                f'The layer "{self._name}" has multiple inbound nodes, with different {which} '
                f'shapes. Hence the notion of "{which} shape" is ill-defined for the layer.'
            )
        return found[0]

    @property
    def input_shape(self) -> Any:
        return self._shapes("input")

    @property
    def output_shape(self) -> Any:
        return self._shapes("output")

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"name": self._name, "trainable": self.trainable}  # type: ignore[attr-defined]
        if self._batch_input_shape is not None:
            config["batch_input_shape"] = self._batch_input_shape
        dtype = getattr(self, "_dtype", None)
        # None until the layer is built or given a dtype (as TF 1.15 writes it).
        config["dtype"] = dtypes.as_dtype(dtype).name if dtype is not None else None
        if type(self).get_config is KerasLayerMixin.get_config and _has_own_arguments(self):
            raise NotImplementedError(
                "Layers with arguments in `__init__` must override `get_config`."
            )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        return cls(**config)


def _policy_for(dtype: Any) -> policy_lib.Policy:
    """A layer's policy from its dtype argument: the Policy given, one named after the dtype,
    or the global policy ("infer" in TF 1)."""
    if isinstance(dtype, policy_lib.Policy):
        return dtype
    if dtype:
        return policy_lib.Policy(dtypes.as_dtype(dtype).name)
    return policy_lib.global_policy()


def _has_own_arguments(layer: Any) -> bool:
    """Whether a user's layer takes constructor arguments get_config cannot know."""
    import inspect

    params = inspect.signature(type(layer).__init__).parameters
    own = [
        p
        for name, p in params.items()
        if name not in ("self", "name", "trainable", "dtype", "dynamic")
        and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
    ]
    return len(own) > 0


class Layer(KerasLayerMixin, layers_base.Layer):
    """tf.keras.layers.Layer: subclass with build(input_shape) and call(inputs, ...)."""

    def __init__(
        self,
        trainable: bool = True,
        name: str | None = None,
        dtype: Any = None,
        dynamic: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(trainable=trainable, name=name, dtype=dtype, dynamic=dynamic, **kwargs)
