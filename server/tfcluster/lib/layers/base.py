"""The base of tf.layers (TF 1.15's layers/base.py on Keras's base Layer, graph mode only):
layer names, variable scopes and reuse, building on first call, weights made with
tf.get_variable, losses (weight and activity regularisers) and updates (UPDATE_OPS).

Names follow TF 1.15 exactly: a layer's object name is unique per graph and one-based
(`dense_1`, `dense_2`, ...), while its variable scope is unique per enclosing scope and
zero-based (`dense`, `dense_1`, ...), so its variables are `dense/kernel` and its ops
`dense/MatMul`; a layer called again reuses its variables and opens its own name scope again
(`dense/MatMul_1`).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import inspect
import re
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import (
    Graph,
    GraphKeys,
    Operation,
    Tensor,
    convert_to_tensor,
    get_collection_ref,
    get_default_graph,
    name_scope,
)
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.layers import utils
from tfcluster.lib.tf_module import Module
from tfcluster.ops import array_ops, init_ops, math_ops, variables
from tfcluster.ops import variable_scope as vs
from tfcluster.ops.variables import (
    PartitionedVariable,
    VariableAggregation,
    VariableSynchronization,
)

# ---- names -------------------------------------------------------------------------------------
_NAME_UIDS: weakref.WeakKeyDictionary[Graph, collections.defaultdict[tuple[str, str], int]] = (
    weakref.WeakKeyDictionary()
)


def to_snake_case(name: str) -> str:
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return insecure if insecure[0] != "_" else "private" + insecure


def unique_object_name(name: str, zero_based: bool = False) -> str:
    """A name unique among the layers of the default graph (Keras's unique_object_name)."""
    graph = get_default_graph()
    uids = _NAME_UIDS.setdefault(graph, collections.defaultdict(int))
    key = ("", name)
    if zero_based:
        number = uids[key]
        uids[key] += 1
        return f"{name}_{number}" if number else name
    uids[key] += 1
    return f"{name}_{uids[key]}"


# ---- keras-style variable management -----------------------------------------------------------
_KERAS_STYLE_SCOPE = False


@contextlib.contextmanager
def keras_style_scope() -> Iterator[None]:
    """Layers made inside use Keras-style variable management: no `scope`/`reuse`
    arguments, and every layer makes its own variables."""
    global _KERAS_STYLE_SCOPE
    outer = _KERAS_STYLE_SCOPE
    _KERAS_STYLE_SCOPE = True
    try:
        yield
    finally:
        _KERAS_STYLE_SCOPE = outer


def set_keras_style() -> None:
    """Keras-style variable management for every layer made from now on (it cannot be unset)."""
    global _KERAS_STYLE_SCOPE
    _KERAS_STYLE_SCOPE = True


# ---- input specs --------------------------------------------------------------------------------
class InputSpec:
    """The ndim, dtype and shape every input to a layer must have (None: unchecked)."""

    def __init__(
        self,
        dtype: Any = None,
        shape: Any = None,
        ndim: int | None = None,
        max_ndim: int | None = None,
        min_ndim: int | None = None,
        axes: dict[int, int | None] | None = None,
    ) -> None:
        self.dtype = dtypes.as_dtype(dtype).name if dtype is not None else None
        if shape is not None:
            self.ndim: int | None = len(shape)
            self.shape = shape
        else:
            self.ndim = ndim
            self.shape = None
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        try:
            axes = axes or {}
            self.axes = {int(k): axes[k] for k in axes}
        except (ValueError, TypeError):
            raise TypeError("The keys in axes must be integers.") from None
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim or 0) - 1
            max_axis = max(self.axes)
            if max_axis > max_dim:
                raise ValueError(
                    f"Axis {max_axis} is greater than the maximum allowed value: {max_dim}"
                )

    def __repr__(self) -> str:
        spec = [
            f"dtype={self.dtype}" if self.dtype else "",
            f"shape={self.shape}" if self.shape else "",
            f"ndim={self.ndim}" if self.ndim else "",
            f"max_ndim={self.max_ndim}" if self.max_ndim else "",
            f"min_ndim={self.min_ndim}" if self.min_ndim else "",
            f"axes={self.axes}" if self.axes else "",
        ]
        return f"InputSpec({', '.join(x for x in spec if x)})"

    def get_config(self) -> dict[str, Any]:
        return {
            "dtype": self.dtype,
            "shape": self.shape,
            "ndim": self.ndim,
            "max_ndim": self.max_ndim,
            "min_ndim": self.min_ndim,
            "axes": self.axes,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> InputSpec:
        return cls(**config)


def _flatten(structure: Any) -> list[Any]:
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flatten(item)]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in _flatten(structure[key])]
    return [structure]


def assert_input_compatibility(input_spec: Any, inputs: Any, layer_name: str) -> None:
    """ValueError, as Keras words it, when inputs break the layer's InputSpec(s)."""
    if not input_spec:
        return
    flat_inputs = _flatten(inputs)
    specs = _flatten(input_spec)
    if len(flat_inputs) != len(specs):
        raise ValueError(
            f"Layer {layer_name} expects {len(specs)} inputs, but it received "
            f"{len(flat_inputs)} input tensors. Inputs received: {flat_inputs}"
        )
    for index, (x, spec) in enumerate(zip(flat_inputs, specs)):
        if spec is None:
            continue
        shape = x.shape
        where = f"Input {index} of layer {layer_name} is incompatible with the layer: "
        if (spec.ndim is not None or spec.min_ndim is not None or spec.max_ndim is not None) and (
            shape.ndims is None
        ):
            raise ValueError(
                where + "its rank is undefined, but the layer requires a defined rank."
            )
        if spec.ndim is not None and shape.ndims != spec.ndim:
            raise ValueError(
                where + f"expected ndim={spec.ndim}, found ndim={shape.ndims}. Full shape "
                f"received: {shape.as_list()}"
            )
        if spec.max_ndim is not None and shape.ndims is not None and shape.ndims > spec.max_ndim:
            raise ValueError(where + f"expected max_ndim={spec.max_ndim}, found ndim={shape.ndims}")
        if spec.min_ndim is not None and shape.ndims is not None and shape.ndims < spec.min_ndim:
            raise ValueError(
                where + f": expected min_ndim={spec.min_ndim}, found ndim={shape.ndims}. Full "
                f"shape received: {shape.as_list()}"
            )
        if spec.dtype is not None and x.dtype.base_dtype.name != spec.dtype:
            raise ValueError(where + f"expected dtype={spec.dtype}, found dtype={x.dtype}")
        if spec.axes and shape.ndims is not None:
            dims = shape.as_list()
            for axis, value in spec.axes.items():
                if value is not None and dims[int(axis)] not in (value, None):
                    raise ValueError(
                        f"Input {index} of layer {layer_name} is incompatible with the layer: "
                        f"expected axis {axis} of input shape to have value {value} but "
                        f"received input with shape {dims}"
                    )
        if spec.shape is not None and shape.ndims is not None:
            for spec_dim, dim in zip(spec.shape, shape.as_list()):
                if spec_dim is not None and dim is not None and spec_dim != dim:
                    raise ValueError(
                        f"Input {index} is incompatible with layer {layer_name}: expected "
                        f"shape={spec.shape}, found shape={shape.as_list()}"
                    )


# ---- the layer ---------------------------------------------------------------------------------
def _default_initializer(dtype: dtypes.DType, name: str, layer: str) -> Any:
    if dtype.is_floating:
        return init_ops.glorot_uniform_initializer()
    if dtype.is_integer or dtype == dtypes.bool_:
        return init_ops.zeros_initializer()
    raise ValueError(
        f"An initializer for variable {name} of type {dtype.base_dtype} is required for layer "
        f"{layer}"
    )


def _add_to_collection(elements: Sequence[Any], key: str) -> None:
    collection = get_collection_ref(key)
    present = {id(e) for e in collection}
    for element in elements:
        if id(element) not in present:
            collection.append(element)
            present.add(id(element))


def _call_arg_names(fn: Callable[..., Any]) -> tuple[list[str], bool]:
    params = inspect.signature(fn).parameters.values()
    names = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    return names, any(p.kind == p.VAR_KEYWORD for p in params)


def _reachable(sources: Sequence[Tensor], target: Operation) -> bool:
    """Whether `target` depends on any of `sources` through data inputs."""
    wanted = {id(t.op) for t in sources if isinstance(t, Tensor)}
    if not wanted:
        return False
    seen: set[int] = set()
    stack = [target]
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        if id(op) in wanted:
            return True
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return False


def _pass_through(self: Any, inputs: Any, **kwargs: Any) -> Any:
    return inputs


class Layer(Module):
    """tf.layers.Layer: a callable that builds its variables on first call.

    A tf.Module, as TF 1.15's layers are (Keras's Layer is one): `submodules` walks its
    attributes, and a tf.Module holding a layer finds its variables. Module.__init__ is not
    run (TF's Layer does not run it either), so `name_scope` is missing as in TF.

    Subclasses implement `build(input_shape)` (make weights with `add_weight`) and
    `call(inputs, ...)`. Calling a layer opens its variable scope (made on first call from
    `name`, or from the class name made unique) and the name scope that goes with it.
    """

    _walk_meets_a_set = True

    def __init__(
        self, trainable: bool = True, name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        scope = kwargs.pop("_scope", None)
        self._reuse = kwargs.pop("_reuse", None)
        allowed = {
            "input_shape",
            "batch_input_shape",
            "batch_size",
            "weights",
            "activity_regularizer",
            "autocast",
        }
        for kwarg in kwargs:
            if kwarg not in allowed:
                raise TypeError(f"('Keyword argument not understood:', '{kwarg}')")
        self._trainable = trainable
        self.stateful = False
        self.built = False
        self._input_spec: Any = None
        self.supports_masking = False
        self._init_set_name(name)
        self._activity_regularizer = kwargs.pop("activity_regularizer", None)
        self._trainable_weights: list[Any] = []
        self._non_trainable_weights: list[Any] = []
        self._updates: list[Any] = []
        self._losses: list[Tensor] = []
        self._callable_losses: list[Callable[[], Any]] = []
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
        self._initial_weights = kwargs.get("weights")
        self._call_inputs: list[Any] = []
        # A tf.layers layer made an attribute of a Keras layer or model makes resource
        # variables from then on (TF 1.15's Keras Layer.__setattr__ sets this).
        self._use_resource_variables = False
        if _KERAS_STYLE_SCOPE:
            if scope is not None:
                raise ValueError(
                    "scope argument not allowed when keras style layers are enabled, but saw: "
                    f"{scope}"
                )
            if self._reuse is not None:
                raise ValueError(
                    "reuse argument not allowed when keras style layers are enabled, but saw: "
                    f"{self._reuse}"
                )
            self._keras_style = True
        else:
            self._keras_style = False
        arg_names, self._call_takes_kwargs = _call_arg_names(self.call)
        self._call_arg_names = arg_names
        self._call_has_scope_arg = "scope" in arg_names
        if scope:
            with vs.variable_scope(scope) as captured:
                self._scope: vs.VariableScope | None = captured
        else:
            self._scope = None
        self._current_scope: vs.VariableScope | None = None

    # ---- names and scopes ------------------------------------------------------------------
    def _init_set_name(self, name: Any) -> None:
        if isinstance(name, vs.VariableScope):
            base_name = name.name
            self._name = unique_object_name(to_snake_case(type(self).__name__))
        else:
            base_name = name
            self._name = name
        if not name:
            base_name = to_snake_case(type(self).__name__)
            self._name = unique_object_name(base_name)
        self._base_name = base_name

    @property
    def name(self) -> str:
        return self._name

    @property
    def scope_name(self) -> str:
        if not self._scope:
            raise ValueError(
                f'No name available for layer scope because the layer "{self._name}" has not '
                "been used yet. The scope name  is determined the first time the layer instance "
                "is called. You must therefore call the layer before querying `scope_name`."
            )
        return self._scope.name

    def _name_scope(self) -> str:
        if self._keras_style:
            return self._name
        assert self._current_scope is not None
        return self._current_scope.original_name_scope

    def _set_scope(self, scope: Any = None) -> None:
        if self._scope is None:
            if self._reuse:
                with vs.variable_scope(scope if scope is not None else self._base_name) as captured:
                    self._scope = captured
            else:
                with vs.variable_scope(scope, default_name=self._base_name) as captured:
                    self._scope = captured

    # ---- properties ------------------------------------------------------------------------
    @property
    def dtype(self) -> str | None:
        """The variables' dtype by name ('float32'), None until known, as TF 1.15's layers say."""
        return None if self._dtype is None else str(self._dtype.name)

    @property
    def _compute_dtype(self) -> str | None:
        """The dtype the layer computes in (Keras layers with a mixed policy: float16)."""
        return None if self._dtype is None else str(self._dtype.name)

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable = value

    @property
    def activity_regularizer(self) -> Any:
        return self._activity_regularizer

    @activity_regularizer.setter
    def activity_regularizer(self, regularizer: Any) -> None:
        self._activity_regularizer = regularizer

    @property
    def input_spec(self) -> Any:
        return self._input_spec

    @input_spec.setter
    def input_spec(self, value: Any) -> None:
        for v in _flatten(value):
            if v is not None and not isinstance(v, InputSpec):
                raise TypeError(f"Layer input_spec must be an instance of InputSpec. Got: {v}")
        self._input_spec = value

    @property
    def trainable_weights(self) -> list[Any]:
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self) -> list[Any]:
        if self.trainable:
            return list(self._non_trainable_weights)
        return self._trainable_weights + self._non_trainable_weights

    @property
    def weights(self) -> list[Any]:
        return self.trainable_weights + self.non_trainable_weights

    @property
    def variables(self) -> list[Any]:  # type: ignore[override]  # a list, as TF's Layer
        return self.weights

    @property
    def trainable_variables(self) -> list[Any]:  # type: ignore[override]
        return self.trainable_weights

    @property
    def non_trainable_variables(self) -> list[Any]:
        return self.non_trainable_weights

    @property
    def updates(self) -> list[Any]:
        if not self.trainable and not self.stateful:
            return []
        return list(self._updates)

    @property
    def losses(self) -> list[Tensor]:
        """The layer's losses; weight regularisers are evaluated again on each access."""
        out = list(self._losses)
        for fn in self._callable_losses:
            loss = fn()
            if loss is not None:
                out.append(loss)
        return out

    @property
    def graph(self) -> None:
        return None

    # ---- weights ---------------------------------------------------------------------------
    def add_weight(
        self,
        name: str,
        shape: Any = None,
        dtype: Any = None,
        initializer: Any = None,
        regularizer: Any = None,
        trainable: bool | None = None,
        constraint: Any = None,
        use_resource: Any = None,
        synchronization: Any = VariableSynchronization.AUTO,
        aggregation: Any = VariableAggregation.NONE,
        partitioner: Any = None,
        **kwargs: Any,
    ) -> Any:
        """A variable of this layer (made with tf.get_variable in the layer's scope, or found
        there when the layer is reused); its regulariser's loss joins REGULARIZATION_LOSSES."""
        for kwarg in kwargs:
            if kwarg not in ("experimental_autocast", "getter", "collections"):
                raise TypeError("Unknown keyword argument:", kwarg)
        collections_arg = kwargs.get("collections")
        if synchronization == VariableSynchronization.ON_READ:
            if trainable:
                raise ValueError(
                    "Synchronization value can be set to VariableSynchronization.ON_READ only "
                    "for non-trainable variables. You have specified trainable=True and "
                    "synchronization=VariableSynchronization.ON_READ."
                )
            trainable = False
        elif trainable is None:
            trainable = True
        shape = () if shape is None else shape
        existing = {id(v) for v in variables.global_variables()}
        dtype = dtypes.as_dtype(dtype or self.dtype or dtypes.float32).base_dtype
        if self._keras_style:
            scope_cm: Any = vs.variable_scope(self._name, auxiliary_name_scope=False)
        else:
            self._set_scope(None)
            reuse = self.built or self._reuse
            scope_cm = vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False)
        with scope_cm as scope:
            if not self._keras_style:
                self._current_scope = scope
            with name_scope(self._name_scope() if not self._keras_style else None):
                if initializer is None:
                    initializer = scope.initializer
                if initializer is None:
                    initializer = _default_initializer(dtype, name, self.name)
                initializer = utils.get_initializer(initializer)
                if self._dtype is None:
                    self._dtype = dtype
                variable = vs.get_variable(
                    name,
                    shape=shape,
                    dtype=dtype,
                    initializer=initializer,
                    trainable=trainable and self.trainable,
                    collections=collections_arg,
                    constraint=constraint,
                    partitioner=partitioner,
                    use_resource=use_resource
                    or (not self._keras_style and self._use_resource_variables)
                    or None,
                    synchronization=synchronization,
                    aggregation=aggregation,
                )
                if trainable and self.trainable:
                    self._trainable_weights.append(variable)
                else:
                    self._non_trainable_weights.append(variable)
                if regularizer is not None and self._is_new(variable, existing):
                    self._handle_weight_regularization(name, variable, regularizer)
                # A custom getter or variable scope that made the variable non-trainable.
                if trainable and self.trainable and not self._is_trainable(variable):
                    self._trainable_weights.remove(variable)
                    self._non_trainable_weights.append(variable)
        return variable

    add_variable = add_weight

    @staticmethod
    def _is_new(variable: Any, existing: set[int]) -> bool:
        parts = list(variable) if isinstance(variable, PartitionedVariable) else [variable]
        return all(id(p) not in existing for p in parts)

    @staticmethod
    def _is_trainable(variable: Any) -> bool:
        trainable = {id(v) for v in variables.trainable_variables()}
        parts = list(variable) if isinstance(variable, PartitionedVariable) else [variable]
        return all(id(p) in trainable for p in parts)

    def _handle_weight_regularization(self, name: str, variable: Any, regularizer: Any) -> None:
        regularizer = utils.get_regularizer(regularizer)

        def loss_for(v: Any) -> Any:
            with name_scope(name + "/Regularizer"):
                return regularizer(v)

        parts = list(variable) if isinstance(variable, PartitionedVariable) else [variable]
        for part in parts:
            self.add_loss(functools.partial(loss_for, part))

    # ---- losses and updates ----------------------------------------------------------------
    def add_loss(self, losses: Any, inputs: Any = None) -> None:
        """Adds loss tensors (or zero-argument callables making one) to the layer and to
        REGULARIZATION_LOSSES."""
        new: list[Tensor] = []
        # A Keras layer (TF 1.15's keras base Layer) keeps a callable loss to evaluate when
        # its losses are read (a weight regularizer: no ops at build, so the next layer's
        # initializers get TF's op seeds), and fills no collection.
        keras_style = getattr(self, "_keras_style", False)
        for loss in _flatten(losses):
            if loss is None:
                continue
            if callable(loss) and keras_style:
                self._callable_losses.append(loss)
                continue
            if callable(loss):
                self._callable_losses.append(loss)
                value = loss()
                if value is not None:
                    new.append(value if isinstance(value, Tensor) else convert_to_tensor(value))
                continue
            t = loss if isinstance(loss, Tensor) else convert_to_tensor(loss, dtype=dtypes.float32)
            self._losses.append(t)
            new.append(t)
        if not keras_style:
            _add_to_collection(new, GraphKeys.REGULARIZATION_LOSSES)

    def add_update(self, updates: Any, inputs: Any = None) -> None:
        """Adds update ops (or zero-argument callables making them); `__call__` puts them in
        UPDATE_OPS."""
        for update in _flatten(updates):
            if callable(update) and not isinstance(update, (Tensor, Operation)):
                update = update()
            if isinstance(update, Operation):
                op = update
            elif hasattr(update, "op"):
                op = update.op
            else:
                op = convert_to_tensor(update).op
            self._updates.append(op)

    def get_updates_for(self, inputs: Any) -> list[Any]:
        """The updates that depend on `inputs` (None: those that depend on no input)."""
        if inputs is None:
            sources = [t for call in self._call_inputs for t in call]
            return [u for u in self.updates if not _reachable(sources, u)]
        sources = _flatten(inputs)
        return [u for u in self.updates if _reachable(sources, u)]

    def get_losses_for(self, inputs: Any) -> list[Tensor]:
        if inputs is None:
            sources = [t for call in self._call_inputs for t in call]
            return [x for x in self.losses if not _reachable(sources, x.op)]
        sources = _flatten(inputs)
        return [x for x in self.losses if _reachable(sources, x.op)]

    # ---- building and calling --------------------------------------------------------------
    def build(self, input_shape: Any) -> None:
        self.built = True

    # What calling the layer computes; subclasses define it with their own arguments.
    call: Callable[..., Any] = _pass_through

    def compute_output_shape(self, input_shape: Any) -> Any:
        raise NotImplementedError

    def _maybe_build(self, inputs: Any) -> None:
        if not self.built:
            assert_input_compatibility(self.input_spec, inputs, self.name)
            flat = _flatten(inputs)
            if flat and self._dtype is None:
                dtype = getattr(flat[0], "dtype", None)
                if dtype is not None:
                    self._dtype = dtype.base_dtype
            shapes: Any = None
            if all(hasattr(x, "shape") for x in flat):
                shapes = _map(lambda x: x.shape, inputs)
            self.build(shapes)
            self.built = True

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        scope = kwargs.pop("scope", None)
        if self._keras_style:
            if scope is not None:
                raise ValueError(
                    "scope argument not allowed when keras style layers are enabled, but saw: "
                    f"{scope}"
                )
            with name_scope(self._name):
                return self._call_in_scope(inputs, args, kwargs)
        self._set_scope(scope)
        reuse: Any = True if self.built else self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope_:
            self._current_scope = scope_
            if self._call_has_scope_arg:
                kwargs["scope"] = scope_
            outputs = self._call_in_scope(inputs, args, kwargs)
        _add_to_collection(self.updates, GraphKeys.UPDATE_OPS)
        return outputs

    def _call_in_scope(self, inputs: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        inputs = _map(_as_tensor, inputs)
        if (
            "training" in kwargs
            and "training" not in self._call_arg_names
            and not self._call_takes_kwargs
        ):
            kwargs.pop("training")
        assert_input_compatibility(self.input_spec, inputs, self.name)
        scope = self._name_scope() if not self._keras_style else None
        with name_scope(scope) if scope else contextlib.nullcontext():
            self._maybe_build(inputs)
            if self._initial_weights is not None:
                raise ValueError("tf.layers layers take no `weights` argument in graph mode")
            outputs = self.call(inputs, *args, **kwargs)
            if outputs is None:
                raise ValueError(
                    "A layer's `call` method should return a Tensor or a list of Tensors, not "
                    f"None (layer: {self.name})."
                )
            self._call_inputs.append([t for t in _flatten(inputs) if isinstance(t, Tensor)])
            self._handle_activity_regularization(inputs, outputs)
        return outputs

    def _handle_activity_regularization(self, inputs: Any, outputs: Any) -> None:
        if not self._activity_regularizer:
            return
        with name_scope("ActivityRegularizer"):
            for output in _flatten(outputs):
                loss = self._activity_regularizer(output)
                batch = math_ops.cast(array_ops.shape(output)[0], loss.dtype)
                self.add_loss(loss / batch, inputs=inputs)

    def apply(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return self.__call__(inputs, *args, **kwargs)

    def count_params(self) -> int:
        if not self.built:
            raise ValueError(
                f"You tried to call `count_params` on {self.name}, but the layer isn't built. "
                "You can build it manually via: `" + self.name + ".build(batch_input_shape)`."
            )
        total = 0
        for w in self.weights:
            n = TensorShape(w.shape).num_elements()
            total += n or 0
        return total

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"name": self.name, "trainable": self.trainable}
        if self._dtype is not None:
            config["dtype"] = self._dtype.name
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Layer:
        return cls(**config)


def _as_tensor(x: Any) -> Any:
    if isinstance(x, (np.ndarray, float, int)):
        return convert_to_tensor(x)
    return x


def _map(fn: Callable[[Any], Any], structure: Any) -> Any:
    if isinstance(structure, list):
        return [_map(fn, s) for s in structure]
    if isinstance(structure, tuple):
        return tuple(_map(fn, s) for s in structure)
    if isinstance(structure, dict):
        return {k: _map(fn, v) for k, v in structure.items()}
    return fn(structure)


__all__ = ["InputSpec", "Layer", "keras_style_scope", "set_keras_style"]


def applied_as_tf(layer: Layer, inputs: Any, **kwargs: Any) -> Any:
    """A tf.layers function's result: TF 1.15's functions return layer.apply(inputs), whose
    deprecation is announced at the first such call (here; TF names its own file)."""
    internal_deprecations.called_internally(internal_deprecations.LAYER_APPLY)
    return layer.apply(inputs, **kwargs)
