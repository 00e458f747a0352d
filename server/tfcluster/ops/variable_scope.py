"""Variable scopes and tf.get_variable (TF 1.15's variable_scope.py).

Two stores live in the graph's collections, so a new graph starts afresh: the variable store
(the variables made by get_variable, by full name, which is what reuse finds) and, per
thread, the variable scope store (the current VariableScope and how often each scope name
was opened, which makes `default_name` scopes unique). Variable names come from variable
scopes only; name scopes (which `variable_scope` also opens, uniquified: foo/, foo_1/) name
the other ops.
"""

from __future__ import annotations

import copy
import enum
import functools
import inspect
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import (
    Graph,
    GraphKeys,
    Tensor,
    add_to_collection,
    colocate_with,
    convert_to_tensor,
    get_collection,
    get_collection_ref,
    get_default_graph,
    get_graph_from_inputs,
    init_scope,
    name_scope,
)
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.ops import array_ops, init_ops
from tfcluster.ops.variables import (
    PartitionedVariable,
    SaveSliceInfo,
    Variable,
    VariableAggregation,
    VariableSynchronization,
    validate_synchronization_aggregation_trainable,
)

_VARSTORE_KEY = ("__variable_store",)
_VARSCOPESTORE_KEY = ("__varscope",)


class _ReuseMode(enum.Enum):
    """Mode for variable access within a variable scope."""

    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE


class _PartitionInfo:
    """Where a shard sits in its partitioned variable: what initializers get as
    `partition_info` (full_shape, var_offset)."""

    __slots__ = ("_full_shape", "_var_offset")

    def __init__(self, full_shape: Sequence[int], var_offset: Sequence[int]) -> None:
        if not isinstance(full_shape, (list, tuple)):
            raise TypeError(
                "`full_shape` must be a sequence (like tuple or list) instead of "
                + type(full_shape).__name__
            )
        if not isinstance(var_offset, (list, tuple)):
            raise TypeError(
                "`var_offset` must be a sequence (like tuple or list) instead of "
                + type(var_offset).__name__
            )
        if len(var_offset) != len(full_shape):
            raise ValueError(
                f"Expected equal length, but `var_offset` is of length {len(var_offset)} while "
                f"full_shape is of length {len(full_shape)}."
            )
        for offset, size in zip(var_offset, full_shape):
            if offset < 0 or offset >= size:
                raise ValueError(
                    f"Expected 0 <= offset < shape but found offset={offset}, shape={size} for "
                    f"var_offset={var_offset}, full_shape={full_shape}"
                )
        self._full_shape = full_shape
        self._var_offset = var_offset

    @property
    def full_shape(self) -> Sequence[int]:
        return self._full_shape

    @property
    def var_offset(self) -> Sequence[int]:
        return self._var_offset

    def single_offset(self, shape: Sequence[int]) -> int:
        """The offset along the one partitioned dimension (0 when not partitioned)."""
        dim = self.single_slice_dim(shape)
        return 0 if dim is None else self.var_offset[dim]

    def single_slice_dim(self, shape: Sequence[int]) -> int | None:
        """The dimension the variable is partitioned along, None if it is not."""
        if not isinstance(shape, (list, tuple)):
            raise TypeError(
                "`shape` must be a sequence (like tuple or list) instead of " + type(shape).__name__
            )
        if len(shape) != len(self.full_shape):
            raise ValueError(
                f"Expected equal length, but received shape={shape} of length {len(shape)} "
                f"while self.full_shape={self.full_shape} is of length {len(self.full_shape)}."
            )
        for i in range(len(shape)):
            if self.var_offset[i] + shape[i] > self.full_shape[i]:
                raise ValueError(
                    f"With self.var_offset={self.var_offset}, a partition of shape={shape} "
                    f"would exceed self.full_shape={self.full_shape} in dimension {i}."
                )
        slice_dim = None
        for i in range(len(shape)):
            if shape[i] == self.full_shape[i]:
                continue
            if slice_dim is not None:
                raise ValueError(
                    f"Cannot use single_slice_dim() with shape={shape} and "
                    f"self.full_shape={self.full_shape} since slice dim could be either "
                    f"dimension {i} or {slice_dim}."
                )
            slice_dim = i
        return slice_dim


def _fn_args(fn: Any) -> tuple[list[str], bool]:
    """(named parameters, whether it takes **kwargs) of a function, partial or callable."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return [], True
    names = [
        p.name
        for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    has_kwargs = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
    return names, has_kwargs


def _needs_no_arguments(fn: Any) -> bool:
    """Whether fn can be called without arguments (every parameter has a default)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    return all(
        p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        for p in sig.parameters.values()
    )


def _call_partitioner(partitioner: Callable[..., Any], shape: TensorShape, dtype: Any) -> list[int]:
    """The partitioner's slicing of `shape`, checked as TF checks it."""
    if not shape.is_fully_defined():
        raise ValueError(
            f"Shape of a new partitioned variable must be fully defined, but instead was {shape}."
        )
    if shape.ndims is None or shape.ndims < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1, shape: {shape}")
    slicing = partitioner(shape=shape, dtype=dtype)
    if not isinstance(slicing, (list, tuple)):
        raise ValueError(f"Partitioner must return a sequence, but saw: {slicing}")
    if len(slicing) != shape.ndims:
        raise ValueError(
            "Partitioner returned a partition list that does not match the Variable's rank: "
            f"{slicing} vs. {shape}"
        )
    if any(p < 1 for p in slicing):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {slicing}")
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError(
            f"Can only slice a variable along one dimension: shape: {shape}, partitioning: "
            f"{slicing}"
        )
    return [int(p) for p in slicing]


def _get_slice_dim_and_num_slices(slicing: Sequence[int]) -> tuple[int, int]:
    for slice_dim, num_slices in enumerate(slicing):
        if num_slices > 1:
            return slice_dim, num_slices
    return 0, 1


def _iter_slices(
    full_shape: list[int], num_slices: int, slice_dim: int
) -> Iterator[tuple[list[int], list[int]]]:
    """(offset, shape) of each shard: the first `size % num_slices` shards are one longer."""
    with_excess = full_shape[slice_dim] % num_slices
    offset = [0] * len(full_shape)
    min_slice_len = full_shape[slice_dim] // num_slices
    for i in range(num_slices):
        shape = full_shape[:]
        shape[slice_dim] = min_slice_len + int(i < with_excess)
        yield offset[:], shape
        offset[slice_dim] += shape[slice_dim]


def no_regularizer(_: Any) -> None:
    """A regularizer that regularizes nothing: turns a scope's regularizer off."""
    return None


class _VariableStore:
    """The variables get_variable made, by full name, and the partitioned ones apart."""

    def __init__(self) -> None:
        self._vars: dict[str, Variable] = {}
        self._partitioned_vars: dict[str, PartitionedVariable] = {}
        self._made_at: dict[str, list[traceback.FrameSummary]] = {}

    def get_variable(
        self,
        name: str,
        shape: Any = None,
        dtype: Any = dtypes.float32,
        initializer: Any = None,
        regularizer: Any = None,
        reuse: Any = None,
        trainable: bool | None = None,
        collections: Sequence[str] | None = None,
        caching_device: Any = None,
        partitioner: Any = None,
        validate_shape: bool = True,
        use_resource: Any = None,
        custom_getter: Any = None,
        constraint: Any = None,
        synchronization: Any = VariableSynchronization.AUTO,
        aggregation: Any = VariableAggregation.NONE,
    ) -> Any:
        if custom_getter is not None and not callable(custom_getter):
            raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
        if isinstance(dtype, dtypes.DType):
            dtype = dtype.base_dtype

        def _true_getter(
            name: str,
            shape: Any = None,
            dtype: Any = dtypes.float32,
            initializer: Any = None,
            regularizer: Any = None,
            reuse: Any = None,
            trainable: bool | None = None,
            collections: Sequence[str] | None = None,
            caching_device: Any = None,
            partitioner: Any = None,
            validate_shape: bool = True,
            use_resource: Any = None,
            constraint: Any = None,
            synchronization: Any = VariableSynchronization.AUTO,
            aggregation: Any = VariableAggregation.NONE,
        ) -> Any:
            is_scalar = shape is not None and isinstance(shape, (list, tuple)) and not shape
            common = {
                "dtype": dtype,
                "initializer": initializer,
                "regularizer": regularizer,
                "reuse": reuse,
                "trainable": trainable,
                "collections": collections,
                "caching_device": caching_device,
                "validate_shape": validate_shape,
                "use_resource": use_resource,
                "constraint": constraint,
                "synchronization": synchronization,
                "aggregation": aggregation,
            }
            if partitioner is not None and not is_scalar:
                if not callable(partitioner):
                    raise ValueError(f"Partitioner must be callable, but received: {partitioner}")
                with name_scope(None):
                    return self._get_partitioned_variable(name, partitioner, shape, **common)
            # A partitioned variable may be reused without naming its partitioner again.
            if reuse is True and partitioner is None and name in self._partitioned_vars:
                return self._get_partitioned_variable(name, None, shape, **common)
            if f"{name}/part_0" in self._vars:
                raise ValueError(
                    "No partitioner was provided, but a partitioned version of the variable was "
                    f"found: {name}/part_0. Perhaps a variable of the same name was already "
                    "created with partitioning?"
                )
            return self._get_single_variable(name, shape, **common)

        synchronization, aggregation, trainable = validate_synchronization_aggregation_trainable(
            synchronization, aggregation, trainable, name
        )
        if custom_getter is None:
            return _true_getter(
                name,
                shape=shape,
                dtype=dtype,
                initializer=initializer,
                regularizer=regularizer,
                reuse=reuse,
                trainable=trainable,
                collections=collections,
                caching_device=caching_device,
                partitioner=partitioner,
                validate_shape=validate_shape,
                use_resource=use_resource,
                constraint=constraint,
                synchronization=synchronization,
                aggregation=aggregation,
            )
        kwargs: dict[str, Any] = {
            "getter": _true_getter,
            "name": name,
            "shape": shape,
            "dtype": dtype,
            "initializer": initializer,
            "regularizer": regularizer,
            "reuse": reuse,
            "trainable": trainable,
            "collections": collections,
            "caching_device": caching_device,
            "partitioner": partitioner,
            "validate_shape": validate_shape,
            "use_resource": use_resource,
            "synchronization": synchronization,
            "aggregation": aggregation,
        }
        # Getters written before `constraint` existed do not take it (as TF).
        names, has_kwargs = _fn_args(custom_getter)
        if "constraint" in names or has_kwargs:
            kwargs["constraint"] = constraint
        return custom_getter(**kwargs)

    def _get_partitioned_variable(
        self,
        name: str,
        partitioner: Any,
        shape: Any = None,
        dtype: Any = dtypes.float32,
        initializer: Any = None,
        regularizer: Any = None,
        reuse: Any = None,
        trainable: bool | None = None,
        collections: Sequence[str] | None = None,
        caching_device: Any = None,
        validate_shape: bool = True,
        use_resource: Any = None,
        constraint: Any = None,
        synchronization: Any = VariableSynchronization.AUTO,
        aggregation: Any = VariableAggregation.NONE,
    ) -> PartitionedVariable:
        initializing_from_value = isinstance(initializer, Tensor)
        if name in self._vars:
            raise ValueError(
                "A partitioner was provided, but an unpartitioned version of the variable was "
                f"found: {name}.  Perhaps a variable of the same name was already created "
                "without partitioning?"
            )
        shape = as_shape(shape)
        if initializing_from_value:
            shape = shape.merge_with(initializer.get_shape())
        dtype = dtypes.as_dtype(dtype)
        partitions = None
        if not reuse or partitioner:
            partitions = _call_partitioner(partitioner, shape, dtype)

        if name in self._partitioned_vars:
            if reuse is False:
                raise ValueError(
                    f"Partitioned variable with name {name} already exists. Did you mean to set "
                    "reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
                )
            existing = self._partitioned_vars[name]
            if not shape.is_compatible_with(existing.get_shape()):
                raise ValueError(
                    f"Trying to reuse partitioned variable {name}, but specified shape {shape} "
                    f"and found shape {existing.get_shape()}."
                )
            if not dtype.is_compatible_with(existing.dtype):
                raise ValueError(
                    f"Trying to reuse partitioned variable {name}, but specified dtype "
                    f"{dtype.name} and found dtype {existing.dtype.name}."
                )
            if partitions is not None and existing._get_partitions() != partitions:
                raise ValueError(
                    f"Trying to reuse partitioned variable {name}, but specified partitions "
                    f"{partitions} and found partitions {existing._get_partitions()}."
                )
            return existing

        if reuse is True:
            raise ValueError(
                f"PartitionedVariable {name} does not exist, or was not created with "
                "tf.get_variable(). Did you mean to set reuse=False or reuse=tf.AUTO_REUSE in "
                "VarScope?"
            )
        assert partitions is not None
        slice_dim, num_slices = _get_slice_dim_and_num_slices(partitions)
        if f"{name}/part_0" in self._vars:
            if f"{name}/part_{num_slices - 1}" not in self._vars:
                raise ValueError(
                    "Partitioner returned a different partitioning than what was already found. "
                    f" Partitioner returned {num_slices} shards, and shard {name}/part_0 was "
                    f"found, but {name}/part_{num_slices - 1} was not."
                )
            if f"{name}/part_{num_slices}" in self._vars:
                raise ValueError(
                    "Partitioner returned a different partitioning than what was already found. "
                    f" Partitioner returned {num_slices} shards, and shard {name}/part_0 was "
                    f"found, but so was the extra shard {name}/part_{num_slices}."
                )

        full_shape = [int(d) for d in shape.as_list()]  # type: ignore[arg-type]
        shards = []
        for i, (var_offset, var_shape) in enumerate(
            _iter_slices(full_shape, num_slices, slice_dim)
        ):
            partition_info = _PartitionInfo(full_shape=full_shape, var_offset=var_offset)
            shard_name = f"{name}/part_{i}"
            init_shape: list[int] | None
            with name_scope(shard_name + "/PartitionedInitializer"):
                if initializer is None:
                    init, from_value = self._get_default_initializer(name, dtype)
                    init_shape = None if from_value else var_shape
                elif callable(initializer):
                    init = initializer
                    init_shape = var_shape
                elif isinstance(initializer, Tensor):
                    init = array_ops.slice(initializer, var_offset, var_shape)
                    dtype = init.dtype.base_dtype
                    init_shape = None
                else:
                    init = convert_to_tensor(initializer, dtype=dtype)
                    init = array_ops.slice(init, var_offset, var_shape)
                    init_shape = None
            with name_scope(None):
                var = self._get_single_variable(
                    shard_name,
                    init_shape,
                    dtype=dtype,
                    initializer=init,
                    partition_info=partition_info,
                    regularizer=regularizer,
                    reuse=reuse,
                    trainable=trainable,
                    collections=collections,
                    caching_device=caching_device,
                    validate_shape=validate_shape,
                    use_resource=use_resource,
                    constraint=constraint,
                    synchronization=synchronization,
                    aggregation=aggregation,
                )
            var._set_save_slice_info(SaveSliceInfo(name, full_shape, var_offset, var_shape))
            shards.append(var)
        partitioned = PartitionedVariable(name, shape, dtype, shards, partitions)
        self._partitioned_vars[name] = partitioned
        return partitioned

    def _get_single_variable(
        self,
        name: str,
        shape: Any = None,
        dtype: Any = dtypes.float32,
        initializer: Any = None,
        regularizer: Any = None,
        partition_info: _PartitionInfo | None = None,
        reuse: Any = None,
        trainable: bool | None = None,
        collections: Sequence[str] | None = None,
        caching_device: Any = None,
        validate_shape: bool = True,
        use_resource: Any = None,
        constraint: Any = None,
        synchronization: Any = VariableSynchronization.AUTO,
        aggregation: Any = VariableAggregation.NONE,
    ) -> Variable:
        initializing_from_value = initializer is not None and not callable(initializer)
        if shape is not None and initializing_from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        dtype = dtypes.as_dtype(dtype)
        shape = as_shape(shape)

        if name in self._vars:
            found = self._vars[name]
            if reuse is False:
                message = (
                    f"Variable {name} already exists, disallowed. Did you mean to set reuse=True "
                    "or reuse=tf.AUTO_REUSE in VarScope?"
                )
                where = _user_frames(self._made_at.get(name, []))
                raise ValueError(f"{message} Originally defined at:\n\n{where}")
            if not shape.is_compatible_with(found.get_shape()):
                raise ValueError(
                    f"Trying to share variable {name}, but specified shape {_shape_str(shape)} "
                    f"and found shape {_shape_str(found.get_shape())}."
                )
            if not dtype.is_compatible_with(found.dtype):
                raise ValueError(
                    f"Trying to share variable {name}, but specified dtype {dtype.name} and "
                    f"found dtype {found.dtype.name}."
                )
            return found

        if reuse is True:
            raise ValueError(
                f"Variable {name} does not exist, or was not created with tf.get_variable(). "
                "Did you mean to set reuse=tf.AUTO_REUSE in VarScope?"
            )
        if initializer is None:
            initializer, initializing_from_value = self._get_default_initializer(name, dtype)
        init_val: Any
        with init_scope():
            if initializing_from_value:
                init_val = initializer
                variable_dtype = None
            else:
                if inspect.isclass(initializer):
                    initializer = initializer()
                if shape.is_fully_defined():
                    init_val = functools.partial(
                        initializer, shape.as_list(), dtype=dtype, partition_info=partition_info
                    )
                    variable_dtype = dtype.base_dtype
                elif _needs_no_arguments(initializer):
                    init_val = initializer
                    variable_dtype = None
                else:
                    raise ValueError(
                        "The initializer passed is not valid. It should be a callable with no "
                        "arguments and the shape should not be provided or an instance of "
                        "`tf.keras.initializers.*' and `shape` should be fully defined."
                    )
            v = Variable(
                initial_value=init_val,
                name=name,
                trainable=trainable,
                collections=collections,
                caching_device=caching_device,
                dtype=variable_dtype,
                validate_shape=validate_shape,
                constraint=constraint,
                use_resource=use_resource,
                synchronization=synchronization,
                aggregation=aggregation,
            )
        self._vars[name] = v
        # Where it was made, for the "already exists" error (bounded: this runs per variable).
        self._made_at[name] = traceback.extract_stack(limit=40)[:-2]

        if regularizer:
            # Made at once, beside the variable, as TF 1.15 does.
            with colocate_with(v.op), name_scope(name + "/Regularizer/"), init_scope():
                loss = regularizer(v)
            if loss is not None:
                add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
        return v

    def _get_default_initializer(self, name: str, dtype: dtypes.DType) -> tuple[Any, bool]:
        """glorot_uniform for floats, zeros for integers, booleans and strings."""
        if dtype.is_floating:
            return init_ops.glorot_uniform_initializer(), False
        if dtype.is_integer or dtype.is_bool or dtype == dtypes.string:
            return init_ops.zeros_initializer(), False
        raise ValueError(
            f"An initializer for variable {name} of {_dtype_str(dtype.base_dtype)} is required"
        )


def _dtype_str(dtype: dtypes.DType) -> str:
    return f"<dtype: '{dtype.name}'>"


def _shape_str(shape: TensorShape) -> str:
    """TF 1.15's str(TensorShape): '(2, 3)', '(?, 3)', '<unknown>'."""
    if shape.ndims is None:
        return "<unknown>"
    dims = ["?" if d is None else str(d) for d in shape.as_list()]
    return f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(dims)})"


def _user_frames(frames: Sequence[traceback.FrameSummary]) -> str:
    """The innermost five frames outside tfcluster, innermost first, as TF prints them."""
    own = [f for f in reversed(frames) if "/tfcluster/" not in f.filename][:5]
    return "".join(traceback.format_list(own))


class VariableScope:
    """What get_variable takes its defaults from inside a `variable_scope`: name, reuse,
    initializer, regularizer, caching_device, partitioner, custom_getter, dtype, constraint."""

    def __init__(
        self,
        reuse: Any,
        name: str = "",
        initializer: Any = None,
        regularizer: Any = None,
        caching_device: Any = None,
        partitioner: Any = None,
        custom_getter: Any = None,
        name_scope: str = "",
        dtype: Any = dtypes.float32,
        use_resource: Any = None,
        constraint: Any = None,
    ) -> None:
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._reuse = reuse
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint

    @property
    def name(self) -> str:
        return self._name

    @property
    def original_name_scope(self) -> str:
        return self._name_scope

    @property
    def reuse(self) -> Any:
        return self._reuse

    @property
    def initializer(self) -> Any:
        return self._initializer

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def use_resource(self) -> Any:
        return self._use_resource

    @property
    def regularizer(self) -> Any:
        return self._regularizer

    @property
    def caching_device(self) -> Any:
        return self._caching_device

    @property
    def partitioner(self) -> Any:
        return self._partitioner

    @property
    def custom_getter(self) -> Any:
        return self._custom_getter

    @property
    def constraint(self) -> Any:
        return self._constraint

    def reuse_variables(self) -> None:
        """From now on get_variable in this scope reuses (reuse=True)."""
        self._reuse = True

    def set_initializer(self, initializer: Any) -> None:
        self._initializer = initializer

    def set_dtype(self, dtype: Any) -> None:
        self._dtype = dtype

    def set_use_resource(self, use_resource: Any) -> None:
        self._use_resource = use_resource

    def set_regularizer(self, regularizer: Any) -> None:
        self._regularizer = regularizer

    def set_caching_device(self, caching_device: Any) -> None:
        self._caching_device = caching_device

    def set_partitioner(self, partitioner: Any) -> None:
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter: Any) -> None:
        self._custom_getter = custom_getter

    def get_collection(self, name: str) -> list[Any]:
        scope = self._name + "/" if self._name else ""
        return get_collection(name, scope)

    def trainable_variables(self) -> list[Any]:
        return self.get_collection(GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self) -> list[Any]:
        return self.get_collection(GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self) -> list[Any]:
        return self.get_collection(GraphKeys.LOCAL_VARIABLES)

    def get_variable(
        self,
        var_store: _VariableStore,
        name: str,
        shape: Any = None,
        dtype: Any = None,
        initializer: Any = None,
        regularizer: Any = None,
        reuse: Any = None,
        trainable: bool | None = None,
        collections: Sequence[str] | None = None,
        caching_device: Any = None,
        partitioner: Any = None,
        validate_shape: bool = True,
        use_resource: Any = None,
        custom_getter: Any = None,
        constraint: Any = None,
        synchronization: Any = VariableSynchronization.AUTO,
        aggregation: Any = VariableAggregation.NONE,
    ) -> Any:
        if regularizer is None:
            regularizer = self._regularizer
        if caching_device is None:
            caching_device = self._caching_device
        if partitioner is None:
            partitioner = self._partitioner
        if custom_getter is None:
            custom_getter = self._custom_getter
        if reuse is None:
            reuse = self._reuse
        if use_resource is None:
            use_resource = self._use_resource
        full_name = self.name + "/" + name if self.name else name
        # Variable names depend on variable scopes only, not on name scopes.
        with name_scope(None):
            if dtype is not None and initializer is not None and not callable(initializer):
                init_dtype = convert_to_tensor(initializer).dtype.base_dtype
                if init_dtype != dtypes.as_dtype(dtype):
                    raise ValueError(
                        f"Initializer type '{_dtype_str(init_dtype)}' and explicit dtype "
                        f"'{_dtype_str(dtypes.as_dtype(dtype))}' don't match."
                    )
            if initializer is None:
                initializer = self._initializer
            if constraint is None:
                constraint = self._constraint
            if dtype is None:
                dtype = self._dtype
            return var_store.get_variable(
                full_name,
                shape=shape,
                dtype=dtype,
                initializer=initializer,
                regularizer=regularizer,
                reuse=reuse,
                trainable=trainable,
                collections=collections,
                caching_device=caching_device,
                partitioner=partitioner,
                validate_shape=validate_shape,
                use_resource=use_resource,
                custom_getter=custom_getter,
                constraint=constraint,
                synchronization=synchronization,
                aggregation=aggregation,
            )

    def _get_partitioned_variable(
        self,
        var_store: _VariableStore,
        name: str | None,
        shape: Any = None,
        dtype: Any = None,
        initializer: Any = None,
        regularizer: Any = None,
        trainable: bool | None = None,
        collections: Sequence[str] | None = None,
        caching_device: Any = None,
        partitioner: Any = None,
        validate_shape: bool = True,
        use_resource: Any = None,
        constraint: Any = None,
        synchronization: Any = VariableSynchronization.AUTO,
        aggregation: Any = VariableAggregation.NONE,
    ) -> PartitionedVariable:
        initializer = self._initializer if initializer is None else initializer
        regularizer = self._regularizer if regularizer is None else regularizer
        constraint = self._constraint if constraint is None else constraint
        caching_device = self._caching_device if caching_device is None else caching_device
        partitioner = self._partitioner if partitioner is None else partitioner
        dtype = self._dtype if dtype is None else dtype
        use_resource = self._use_resource if use_resource is None else use_resource
        if self._custom_getter is not None:
            raise ValueError(
                "Private access to _get_partitioned_variable is not allowed when a custom "
                f"getter is set.  Current custom getter: {self._custom_getter}.  It is likely "
                "that you're using create_partitioned_variables.  If so, consider instead using "
                "get_variable with a non-empty partitioner parameter instead."
            )
        if partitioner is None:
            raise ValueError("No partitioner was specified")
        full_name = "/".join(p for p in (self.name, name) if p)
        with name_scope(None):
            return var_store._get_partitioned_variable(
                full_name,
                partitioner,
                shape=shape,
                dtype=dtype,
                initializer=initializer,
                regularizer=regularizer,
                reuse=self.reuse,
                trainable=trainable,
                collections=collections,
                caching_device=caching_device,
                validate_shape=validate_shape,
                use_resource=use_resource,
                constraint=constraint,
                synchronization=synchronization,
                aggregation=aggregation,
            )


class _VariableScopeStore(threading.local):
    """Per thread: the current scope, and how many times each scope name is open."""

    def __init__(self) -> None:
        super().__init__()
        self.current_scope = VariableScope(False)
        self.variable_scopes_count: dict[str, int] = {}

    def open_variable_scope(self, scope_name: str) -> None:
        self.variable_scopes_count[scope_name] = self.variable_scopes_count.get(scope_name, 0) + 1

    def close_variable_subscopes(self, scope_name: str | None) -> None:
        for k in list(self.variable_scopes_count):
            if scope_name is None or k.startswith(scope_name + "/"):
                self.variable_scopes_count[k] = 0

    def variable_scope_count(self, scope_name: str) -> int:
        return self.variable_scopes_count.get(scope_name, 0)


_STORE_LOCK = threading.Lock()


def get_variable_scope_store() -> _VariableScopeStore:
    """The default graph's variable scope store (made on first use)."""
    with _STORE_LOCK:
        found = get_collection(_VARSCOPESTORE_KEY)  # type: ignore[arg-type]
        if found:
            return found[0]  # type: ignore[no-any-return]
        store = _VariableScopeStore()
        get_collection_ref(_VARSCOPESTORE_KEY).append(store)  # type: ignore[arg-type]
        return store


def get_variable_scope() -> VariableScope:
    """The current VariableScope."""
    return get_variable_scope_store().current_scope


def _get_default_variable_store() -> _VariableStore:
    with _STORE_LOCK:
        found = get_collection(_VARSTORE_KEY)  # type: ignore[arg-type]
        if found:
            return found[0]  # type: ignore[no-any-return]
        store = _VariableStore()
        get_collection_ref(_VARSTORE_KEY).append(store)  # type: ignore[arg-type]
        return store


def get_variable(
    name: str,
    shape: Any = None,
    dtype: Any = None,
    initializer: Any = None,
    regularizer: Any = None,
    trainable: bool | None = None,
    collections: Sequence[str] | None = None,
    caching_device: Any = None,
    partitioner: Any = None,
    validate_shape: bool = True,
    use_resource: Any = None,
    custom_getter: Any = None,
    constraint: Any = None,
    synchronization: Any = VariableSynchronization.AUTO,
    aggregation: Any = VariableAggregation.NONE,
) -> Any:
    """Gets the variable `<scope>/<name>` if the scope reuses, else makes it (see TF 1.15)."""
    return get_variable_scope().get_variable(
        _get_default_variable_store(),
        name,
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=trainable,
        collections=collections,
        caching_device=caching_device,
        partitioner=partitioner,
        validate_shape=validate_shape,
        use_resource=use_resource,
        custom_getter=custom_getter,
        constraint=constraint,
        synchronization=synchronization,
        aggregation=aggregation,
    )


def get_local_variable(
    name: str,
    shape: Any = None,
    dtype: Any = None,
    initializer: Any = None,
    regularizer: Any = None,
    trainable: bool = False,
    collections: Sequence[str] | None = None,
    caching_device: Any = None,
    partitioner: Any = None,
    validate_shape: bool = True,
    use_resource: Any = None,
    custom_getter: Any = None,
    constraint: Any = None,
    synchronization: Any = VariableSynchronization.AUTO,
    aggregation: Any = VariableAggregation.NONE,
) -> Any:
    """get_variable into LOCAL_VARIABLES (not GLOBAL_VARIABLES), never trainable."""
    if collections:
        collections = [*collections, GraphKeys.LOCAL_VARIABLES]
    else:
        collections = [GraphKeys.LOCAL_VARIABLES]
    return get_variable(
        name,
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=False,
        collections=collections,
        caching_device=caching_device,
        partitioner=partitioner,
        validate_shape=validate_shape,
        use_resource=use_resource,
        synchronization=synchronization,
        aggregation=aggregation,
        custom_getter=custom_getter,
        constraint=constraint,
    )


def _get_partitioned_variable(
    name: str | None,
    shape: Any = None,
    dtype: Any = None,
    initializer: Any = None,
    regularizer: Any = None,
    trainable: bool = True,
    collections: Sequence[str] | None = None,
    caching_device: Any = None,
    partitioner: Any = None,
    validate_shape: bool = True,
    use_resource: Any = None,
    constraint: Any = None,
    synchronization: Any = VariableSynchronization.AUTO,
    aggregation: Any = VariableAggregation.NONE,
) -> PartitionedVariable:
    scope = get_variable_scope()
    if scope.custom_getter is not None:
        raise ValueError(
            "Private access to _get_partitioned_variable is not allowed when a custom getter is "
            f"set.  Current custom getter: {scope.custom_getter}.  It is likely that you're "
            "using create_partitioned_variables.  If so, consider instead using get_variable "
            "with a non-empty partitioner parameter instead."
        )
    return scope._get_partitioned_variable(
        _get_default_variable_store(),
        name,
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=trainable,
        collections=collections,
        caching_device=caching_device,
        partitioner=partitioner,
        validate_shape=validate_shape,
        use_resource=use_resource,
        constraint=constraint,
        synchronization=synchronization,
        aggregation=aggregation,
    )


def _maybe_wrap_custom_getter(custom_getter: Any, old_getter: Any) -> Any:
    """A scope's getter over its parent's: the inner one is called with the outer one as its
    `getter` (so nested getters compose, the innermost first)."""
    if old_getter is None:
        return custom_getter

    def wrapped_custom_getter(getter: Any, *args: Any, **kwargs: Any) -> Any:
        return custom_getter(functools.partial(old_getter, getter), *args, **kwargs)

    return wrapped_custom_getter


class _pure_variable_scope:
    """Opens a variable scope without touching name scopes."""

    def __init__(
        self,
        name_or_scope: str | VariableScope,
        reuse: Any = None,
        initializer: Any = None,
        regularizer: Any = None,
        caching_device: Any = None,
        partitioner: Any = None,
        custom_getter: Any = None,
        old_name_scope: str | None = None,
        dtype: Any = dtypes.float32,
        use_resource: Any = None,
        constraint: Any = None,
    ) -> None:
        self._name_or_scope = name_or_scope
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._old_name_scope = old_name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint
        self._var_store = _get_default_variable_store()
        self._var_scope_store = get_variable_scope_store()
        self._last_variable_scope_object: VariableScope | None = None
        if isinstance(name_or_scope, VariableScope):
            self._new_name = name_or_scope.name
            scope = VariableScope(
                name_or_scope.reuse if not self._reuse else self._reuse,
                name=self._new_name,
                initializer=name_or_scope.initializer,
                regularizer=name_or_scope.regularizer,
                caching_device=name_or_scope.caching_device,
                partitioner=name_or_scope.partitioner,
                dtype=name_or_scope.dtype,
                custom_getter=name_or_scope.custom_getter,
                name_scope=name_or_scope.original_name_scope,
                use_resource=name_or_scope.use_resource,
                constraint=self._constraint,
            )
            self._apply_overrides(scope, name_or_scope.custom_getter)
            self._cached_variable_scope_object = scope

    def _apply_overrides(self, scope: VariableScope, old_getter: Any) -> None:
        if self._initializer is not None:
            scope.set_initializer(self._initializer)
        if self._regularizer is not None:
            scope.set_regularizer(self._regularizer)
        if self._caching_device is not None:
            scope.set_caching_device(self._caching_device)
        if self._partitioner is not None:
            scope.set_partitioner(self._partitioner)
        if self._custom_getter is not None:
            scope.set_custom_getter(_maybe_wrap_custom_getter(self._custom_getter, old_getter))
        if self._dtype is not None:
            scope.set_dtype(self._dtype)
        if self._use_resource is not None:
            scope.set_use_resource(self._use_resource)

    def __enter__(self) -> VariableScope:
        store = self._var_scope_store
        self._old = store.current_scope
        if isinstance(self._name_or_scope, VariableScope):
            store.open_variable_scope(self._new_name)
            self._old_subscopes = copy.copy(store.variable_scopes_count)
            scope = self._cached_variable_scope_object
        else:
            old = self._old
            self._new_name = (
                old.name + "/" + self._name_or_scope if old.name else self._name_or_scope
            )
            # Reuse is inherited by sub-scopes.
            self._reuse = self._reuse or old.reuse
            scope = VariableScope(
                self._reuse,
                name=self._new_name,
                initializer=old.initializer,
                regularizer=old.regularizer,
                caching_device=old.caching_device,
                partitioner=old.partitioner,
                dtype=old.dtype,
                use_resource=old.use_resource,
                custom_getter=old.custom_getter,
                name_scope=(
                    self._name_or_scope if self._old_name_scope is None else self._old_name_scope
                ),
                constraint=self._constraint,
            )
            self._apply_overrides(scope, old.custom_getter)
            store.open_variable_scope(self._new_name)
        store.current_scope = scope
        self._last_variable_scope_object = scope
        return scope

    def __exit__(self, *exc: Any) -> None:
        store = self._var_scope_store
        if store.current_scope is not self._last_variable_scope_object:
            raise RuntimeError("Improper nesting of variable_scope.")
        if isinstance(self._name_or_scope, VariableScope):
            store.variable_scopes_count = self._old_subscopes
        else:
            store.close_variable_subscopes(self._new_name)
        store.current_scope = self._old


def _get_unique_variable_scope(prefix: str) -> str:
    """prefix, or prefix_1, prefix_2, ... when the scope is already open."""
    store = get_variable_scope_store()
    current = get_variable_scope()
    name = current.name + "/" + prefix if current.name else prefix
    if store.variable_scope_count(name) == 0:
        return prefix
    idx = 1
    while store.variable_scope_count(name + f"_{idx}") > 0:
        idx += 1
    return prefix + f"_{idx}"


class variable_scope:
    """A context manager for defining ops that create variables (layers): opens the variable
    scope `name_or_scope` (a name, or a VariableScope to re-enter) and a name scope of the same
    name, or, with name_or_scope None, a unique scope from `default_name`.

    reuse: True (get_variable only finds), tf.AUTO_REUSE (finds or makes), None/False (inherit).
    """

    def __init__(
        self,
        name_or_scope: str | VariableScope | None,
        default_name: str | None = None,
        values: Any = None,
        initializer: Any = None,
        regularizer: Any = None,
        caching_device: Any = None,
        partitioner: Any = None,
        custom_getter: Any = None,
        reuse: Any = None,
        dtype: Any = None,
        use_resource: Any = None,
        constraint: Any = None,
        auxiliary_name_scope: bool = True,
    ) -> None:
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._values = values
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._reuse = reuse
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint
        if self._default_name is None and self._name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if self._reuse is False:
            # "reuse=False" means inherit, as None does.
            self._reuse = None
        if not (self._reuse is True or self._reuse is None or self._reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        if self._values is None:
            self._values = []
        self._graph: Graph = get_graph_from_inputs(self._values)
        self._cached_pure_variable_scope: _pure_variable_scope | None = None
        self._current_name_scope: Any = None
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError(
                "The auxiliary_name_scope must be `True` or `False`, while get "
                f"{auxiliary_name_scope}"
            )
        self._auxiliary_name_scope = auxiliary_name_scope
        self._graph_context_manager: Any = None

    def __enter__(self) -> VariableScope:
        self._building_function = bool(getattr(get_default_graph(), "building_function", False))
        if not self._building_function:
            self._graph_context_manager = self._graph.as_default()
            self._graph_context_manager.__enter__()
        if self._cached_pure_variable_scope is not None:
            # Re-entering this same object: the same name scope and variable scope again.
            if self._current_name_scope is not None:
                self._current_name_scope.__enter__()
            return self._cached_pure_variable_scope.__enter__()
        try:
            return self._enter_scope_uncached()
        except BaseException:
            if self._graph_context_manager is not None:
                self._graph_context_manager.__exit__(None, None, None)
            raise

    def _pure(self, name_or_scope: Any, old_name_scope: str | None, reuse: Any) -> Any:
        return _pure_variable_scope(
            name_or_scope,
            reuse=reuse,
            initializer=self._initializer,
            regularizer=self._regularizer,
            caching_device=self._caching_device,
            partitioner=self._partitioner,
            custom_getter=self._custom_getter,
            old_name_scope=old_name_scope,
            dtype=self._dtype,
            use_resource=self._use_resource,
            constraint=self._constraint,
        )

    def _enter_pure(self, pure: _pure_variable_scope) -> VariableScope:
        try:
            entered = pure.__enter__()
        except BaseException:
            pure.__exit__(None, None, None)
            raise
        self._cached_pure_variable_scope = pure
        return entered

    def _enter_scope_uncached(self) -> VariableScope:
        current_name_scope: Any
        if self._auxiliary_name_scope:
            current_name_scope = None
        else:
            # Stay in the name scope in force (re-entered as an absolute one).
            ns = get_default_graph().get_name_scope()
            current_name_scope = _NameScope(ns + "/" if ns else "")
        if self._name_or_scope is not None:
            if not isinstance(self._name_or_scope, (VariableScope, str)):
                raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
            if isinstance(self._name_or_scope, str):
                ns_name = self._name_or_scope
            else:
                ns_name = self._name_or_scope.name.split("/")[-1]
            if ns_name or current_name_scope:
                current_name_scope = current_name_scope or _NameScope(ns_name)
                entered_name = current_name_scope.__enter__()
                self._current_name_scope = current_name_scope
                if isinstance(self._name_or_scope, str):
                    old_name_scope = entered_name
                else:
                    old_name_scope = self._name_or_scope.original_name_scope
                return self._enter_pure(
                    self._pure(self._name_or_scope, old_name_scope, self._reuse)
                )
            self._current_name_scope = None
            return self._enter_pure(self._pure(self._name_or_scope, None, self._reuse))
        # name_or_scope is None: a unique scope made from default_name.
        if self._reuse:
            raise ValueError("reuse=True cannot be used without a name_or_scope")
        current_name_scope = current_name_scope or _NameScope(self._default_name)
        entered_name = current_name_scope.__enter__()
        self._current_name_scope = current_name_scope
        assert self._default_name is not None
        unique_default_name = _get_unique_variable_scope(self._default_name)
        return self._enter_pure(self._pure(unique_default_name, entered_name, None))

    def __exit__(self, *exc: Any) -> None:
        try:
            assert self._cached_pure_variable_scope is not None
            self._cached_pure_variable_scope.__exit__(*exc)
        finally:
            try:
                if self._current_name_scope is not None:
                    self._current_name_scope.__exit__(*exc)
            finally:
                if self._graph_context_manager is not None and not self._building_function:
                    self._graph_context_manager.__exit__(*exc)


class _NameScope:
    """A re-enterable tf.name_scope(name): each entry opens it again (uniquified afresh)."""

    def __init__(self, name: str | None) -> None:
        self._name = name
        self._active: list[Any] = []

    def __enter__(self) -> str:
        cm = name_scope(self._name)
        entered = cm.__enter__()
        self._active.append(cm)
        return entered

    def __exit__(self, *exc: Any) -> None:
        self._active.pop().__exit__(*exc)


class variable_op_scope(variable_scope):
    """tf.variable_op_scope(values, name_or_scope, default_name, ...): the old argument order."""

    def __init__(
        self,
        values: Any,
        name_or_scope: str | VariableScope | None,
        default_name: str | None = None,
        initializer: Any = None,
        regularizer: Any = None,
        caching_device: Any = None,
        partitioner: Any = None,
        custom_getter: Any = None,
        reuse: Any = None,
        dtype: Any = None,
        use_resource: Any = None,
        constraint: Any = None,
    ) -> None:
        # TF 1.15's own parameters, all of them variable_scope's under the same names.
        arguments = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        super().__init__(**arguments)


__all__ = [
    "AUTO_REUSE",
    "VariableAggregation",
    "VariableScope",
    "VariableSynchronization",
    "get_local_variable",
    "get_variable",
    "get_variable_scope",
    "no_regularizer",
    "variable_op_scope",
    "variable_scope",
]


# TF 1.15's variable_scope.variable, which programs' own optimizers call for their variables.
variable = Variable
