"""What TF 1.15's RNN cells inherit from `tf.layers.Layer` (and the Keras layer under it), in
graph mode: a unique layer name per graph, the variable scope captured at the first call
(whose name prefixes the variables), `build` once with the input shapes, the input rank
check, `add_weight`/`add_variable` through `tf.get_variable`, and the weight lists.

Names come out as TF makes them because the scopes are opened in TF's order: the variable
scope `<outer>/<base name>` is captured at the first call and re-entered without a name
scope; ops go into the name scope that scope had when it was captured.
"""

from __future__ import annotations

import inspect
import re
import weakref
from collections import Counter
from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.func_graph import flatten
from tfcluster.framework.graph import (
    Graph,
    GraphKeys,
    add_to_collection,
    get_collection,
    get_default_graph,
    init_scope,
    name_scope,
)
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import variable_scope as vs
from tfcluster.ops.variables import PartitionedVariable

# Layer names are unique per graph, as Keras's backend keeps them (`name`, `name_1`, ...).
_NAME_UIDS: weakref.WeakKeyDictionary[Graph, Counter[str]] = weakref.WeakKeyDictionary()

# Keyword arguments a Keras layer accepts besides trainable/name/dtype.
_ALLOWED_KWARGS = frozenset(
    {
        "input_shape",
        "batch_input_shape",
        "batch_size",
        "weights",
        "activity_regularizer",
        "autocast",
        "dynamic",
        "experimental_autocast",
    }
)


def to_snake_case(name: str) -> str:
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return insecure if insecure[0] != "_" else "private" + insecure


def unique_layer_name(base_name: str) -> str:
    """base_1, base_2, ... in the default graph (tf.layers' names are not zero-based)."""
    uids = _NAME_UIDS.setdefault(get_default_graph(), Counter())
    uids[base_name] += 1
    return f"{base_name}_{uids[base_name]}"


class InputSpec:
    """The rank a layer's input must have (the part of Keras's InputSpec cells use)."""

    def __init__(
        self, ndim: int | None = None, min_ndim: int | None = None, max_ndim: int | None = None
    ) -> None:
        self.ndim = ndim
        self.min_ndim = min_ndim
        self.max_ndim = max_ndim

    def __repr__(self) -> str:
        return f"InputSpec(ndim={self.ndim}, min_ndim={self.min_ndim}, max_ndim={self.max_ndim})"


def assert_input_compatibility(input_spec: Any, inputs: Any, layer_name: str) -> None:
    if not input_spec:
        return
    specs = flatten(input_spec)
    xs = flatten(inputs)
    if len(xs) != len(specs):
        raise ValueError(
            f"Layer {layer_name} expects {len(specs)} inputs, but it received {len(xs)} input "
            f"tensors. Inputs received: {inputs}"
        )
    for index, (x, spec) in enumerate(zip(xs, specs)):
        if spec is None:
            continue
        if spec.ndim is None and spec.min_ndim is None and spec.max_ndim is None:
            continue
        ndim = x.shape.ndims
        if ndim is None:
            raise ValueError(
                f"Input {index} of layer {layer_name} is incompatible with the layer: its rank is "
                "undefined, but the layer requires a defined rank."
            )
        if spec.ndim is not None and ndim != spec.ndim:
            raise ValueError(
                f"Input {index} of layer {layer_name} is incompatible with the layer: expected "
                f"ndim={spec.ndim}, found ndim={ndim}. Full shape received: {x.shape.as_list()}"
            )
        if spec.max_ndim is not None and ndim > spec.max_ndim:
            raise ValueError(
                f"Input {index} of layer {layer_name} is incompatible with the layer: expected "
                f"max_ndim={spec.max_ndim}, found ndim={ndim}"
            )
        if spec.min_ndim is not None and ndim < spec.min_ndim:
            raise ValueError(
                f"Input {index} of layer {layer_name} is incompatible with the layer: expected "
                f"min_ndim={spec.min_ndim}, found ndim={ndim}. Full shape received: "
                f"{x.shape.as_list()}"
            )


def _shape_tuple(shape: Any) -> Any:
    """TF's tf_utils.shape_type_conversion: a build method sees tuples, not TensorShapes."""
    if isinstance(shape, TensorShape):
        return tuple(shape.as_list()) if shape.ndims is not None else None
    if isinstance(shape, (list, tuple)):
        items = [_shape_tuple(s) for s in shape]
        if isinstance(shape, tuple) and hasattr(shape, "_fields"):
            return type(shape)(*items)
        return type(shape)(items)
    return shape


class Layer:
    """tf.layers.Layer in graph mode, as far as RNN cells use it."""

    def __init__(
        self, trainable: bool = True, name: Any = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        scope = kwargs.pop("_scope", None)
        self._reuse = kwargs.pop("_reuse", None)
        for kwarg in kwargs:
            if kwarg not in _ALLOWED_KWARGS:
                raise TypeError("Keyword argument not understood:", kwarg)
        self._trainable_weights: list[Any] = []
        self._non_trainable_weights: list[Any] = []
        self._losses: list[Any] = []
        self._updates: list[Any] = []
        self.built = False
        # A cell held by a Keras layer (tf.keras.layers.RNN) makes resource variables, as
        # TF 1.15's Keras Layer.__setattr__ sets this on the legacy layers it tracks.
        self._use_resource_variables = False
        self._trainable = trainable
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype.name
        self.input_spec: Any = None
        self._init_set_name(name)
        self._call_has_scope_arg = "scope" in inspect.signature(self.call).parameters
        self._scope: vs.VariableScope | None = None
        if scope:
            with vs.variable_scope(scope) as captured_scope:
                self._scope = captured_scope
        self._current_scope: vs.VariableScope | None = None

    def _init_set_name(self, name: Any) -> None:
        if isinstance(name, vs.VariableScope):
            base_name = name.name
            self._name = unique_layer_name(to_snake_case(type(self).__name__))
        else:
            base_name = name
            self._name = name
        if not name:
            base_name = to_snake_case(type(self).__name__)
            self._name = unique_layer_name(base_name)
        self._base_name = base_name

    # ---- properties ------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> str | None:
        return self._dtype

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable = bool(value)

    @property
    def scope_name(self) -> str:
        if not self._scope:
            raise ValueError(
                'No name available for layer scope because the layer "'
                + self._name
                + '" has not been used yet. The scope name  is determined the first time the '
                "layer instance is called. You must therefore call the layer before querying "
                "`scope_name`."
            )
        return self._scope.name

    @property
    def trainable_weights(self) -> list[Any]:
        return _dedup(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self) -> list[Any]:
        if self.trainable:
            return _dedup(self._non_trainable_weights)
        return _dedup(self._trainable_weights + self._non_trainable_weights)

    @property
    def weights(self) -> list[Any]:
        return self.trainable_weights + self.non_trainable_weights

    @property
    def variables(self) -> list[Any]:
        return self.weights

    @property
    def trainable_variables(self) -> list[Any]:
        return self.trainable_weights

    @property
    def non_trainable_variables(self) -> list[Any]:
        return self.non_trainable_weights

    @property
    def losses(self) -> list[Any]:
        return list(self._losses)

    @property
    def updates(self) -> list[Any]:
        return list(self._updates)

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype}

    # ---- the rest of TF 1.15's Layer API a cell has (its cells are Keras layers) -----------
    supports_masking = False
    dynamic = False
    stateful = False
    activity_regularizer = None

    @property
    def metrics(self) -> list[Any]:
        return []

    def count_params(self) -> int:
        from tfcluster.lib.layers.base import Layer as LegacyLayer

        return LegacyLayer.count_params(self)  # type: ignore[arg-type]

    def get_weights(self) -> list[Any]:
        """The weights' values in the Keras session (TF's Layer.get_weights)."""
        from tfcluster.lib.keras.engine.base_layer import KerasLayerMixin

        return KerasLayerMixin.get_weights(self)  # type: ignore[arg-type]

    def set_weights(self, weights: Any) -> None:
        from tfcluster.lib.keras.engine.base_layer import KerasLayerMixin

        KerasLayerMixin.set_weights(self, weights)  # type: ignore[arg-type]

    # ---- building ----------------------------------------------------------------------
    def build(self, input_shape: Any) -> None:
        self.built = True

    def call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return inputs

    def _name_scope(self) -> str:
        assert self._current_scope is not None
        return self._current_scope.original_name_scope

    def _set_scope(self, scope: Any = None) -> None:
        if self._scope is None:
            if self._reuse:
                with vs.variable_scope(
                    scope if scope is not None else self._base_name
                ) as captured_scope:
                    self._scope = captured_scope
            else:
                with vs.variable_scope(scope, default_name=self._base_name) as captured_scope:
                    self._scope = captured_scope

    def add_weight(
        self,
        name: str,
        shape: Any,
        dtype: Any = None,
        initializer: Any = None,
        regularizer: Any = None,
        trainable: bool | None = None,
        constraint: Any = None,
        use_resource: Any = None,
        synchronization: Any = vs.VariableSynchronization.AUTO,
        aggregation: Any = vs.VariableAggregation.NONE,
        partitioner: Any = None,
        **kwargs: Any,
    ) -> Any:
        for kwarg in kwargs:
            if kwarg != "experimental_autocast":
                raise TypeError("Unknown keyword argument:", kwarg)
        if synchronization == vs.VariableSynchronization.ON_READ:
            if trainable:
                raise ValueError(
                    "Synchronization value can be set to VariableSynchronization.ON_READ only "
                    "for non-trainable variables. You have specified trainable=True and "
                    "synchronization=VariableSynchronization.ON_READ."
                )
            trainable = False
        elif trainable is None:
            trainable = True
        with init_scope():
            existing = set(map(id, get_collection(GraphKeys.GLOBAL_VARIABLES)))
        dtype = dtypes.as_dtype(dtype or self.dtype or dtypes.float32)
        self._set_scope(None)
        reuse = self.built or self._reuse
        prev_len_trainable = len(self._trainable_weights)
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with name_scope(self._name_scope()):
                if initializer is None:
                    initializer = scope.initializer
                variable = vs.get_variable(
                    name,
                    shape=shape,
                    dtype=dtype,
                    initializer=initializer,
                    trainable=trainable and self.trainable,
                    constraint=constraint,
                    partitioner=partitioner,
                    use_resource=use_resource or self._use_resource_variables or None,
                    synchronization=synchronization,
                    aggregation=aggregation,
                )
                # A PartitionedVariable is one weight, as in TF.
                if trainable:
                    self._trainable_weights.append(variable)
                else:
                    self._non_trainable_weights.append(variable)
                parts = list(variable) if isinstance(variable, PartitionedVariable) else [variable]
                if regularizer is not None and not any(id(v) in existing for v in parts):
                    self._add_regularization(name, parts, regularizer)
        with init_scope():
            trainable_now = {id(v) for v in get_collection(GraphKeys.TRAINABLE_VARIABLES)}
        if trainable and self.trainable and id(variable) not in trainable_now:
            # A custom getter or the scope turned `trainable` off (TF's test, which a
            # PartitionedVariable, never in the collection itself, fails too).
            moved = self._trainable_weights[prev_len_trainable:]
            self._trainable_weights = self._trainable_weights[:prev_len_trainable]
            self._non_trainable_weights += moved
        return variable

    def add_variable(self, *args: Any, **kwargs: Any) -> Any:
        """Deprecated alias of add_weight; its first call announces the deprecation, from the
        caller (TF's cells call it in build: TF names its file)."""
        internal_deprecations.called_internally(internal_deprecations.LAYER_ADD_VARIABLE, 2)
        return self.add_weight(*args, **kwargs)

    def _add_regularization(self, name: str, parts: list[Any], regularizer: Any) -> None:
        for v in parts:
            with name_scope(name + "/Regularizer"):
                loss = regularizer(v)
            if loss is not None:
                self._losses.append(loss)
                add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)

    # ---- calling -----------------------------------------------------------------------
    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        scope = kwargs.pop("scope", None)
        self._set_scope(scope)
        if self.built:
            cm = getattr(self, "_always_reuse_variable_scope", None)
            if cm is None:
                # From here on the scope is always entered with reuse=True.
                cm = vs.variable_scope(self._scope, reuse=True, auxiliary_name_scope=False)
                self._always_reuse_variable_scope = cm
        else:
            cm = vs.variable_scope(self._scope, reuse=self._reuse, auxiliary_name_scope=False)
        with cm as entered:
            self._current_scope = entered
            if self._call_has_scope_arg:
                kwargs["scope"] = entered
            assert_input_compatibility(self.input_spec, inputs, self.name)
            with name_scope(self._name_scope()):
                if not self.built:
                    self._maybe_build(inputs)
                outputs = self.call(inputs, *args, **kwargs)
        if outputs is None:
            raise ValueError(
                "A layer's `call` method should return a Tensor or a list of Tensors, not None "
                "(layer: " + self.name + ")."
            )
        for update in self._updates:
            if update not in get_collection(GraphKeys.UPDATE_OPS):
                add_to_collection(GraphKeys.UPDATE_OPS, update)
        return outputs

    def _maybe_build(self, inputs: Any) -> None:
        flat = flatten(inputs)
        if flat and self._dtype is None:
            dt = getattr(flat[0], "dtype", None)
            if dt is not None:
                self._dtype = dtypes.as_dtype(dt).base_dtype.name
        input_shapes = None
        if all(hasattr(x, "shape") for x in flat):
            input_shapes = _map_shapes(inputs)
        self.build(_shape_tuple(input_shapes))
        self.built = True


def _map_shapes(inputs: Any) -> Any:
    if isinstance(inputs, (list, tuple)):
        items = [_map_shapes(x) for x in inputs]
        if isinstance(inputs, tuple) and hasattr(inputs, "_fields"):
            return type(inputs)(*items)
        return type(inputs)(items)
    if isinstance(inputs, dict):
        return {k: _map_shapes(v) for k, v in inputs.items()}
    return inputs.shape


def _dedup(weights: list[Any]) -> list[Any]:
    seen: set[int] = set()
    out = []
    for w in weights:
        if id(w) not in seen:
            seen.add(id(w))
            out.append(w)
    return out


__all__ = ["InputSpec", "Layer", "assert_input_compatibility", "to_snake_case"]
