"""tf.Variable (TF1 reference variables), initializers and report_uninitialized_variables."""

from __future__ import annotations

import enum
import inspect
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.default_session import get_default_session_or_raise
from tfcluster.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    device,
    get_collection,
    get_default_graph,
    init_scope,
    name_scope,
    register_tensor_conversion_function,
)
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.framework.meta_graph import prepend_name_scope, strip_name_scope
from tfcluster.framework.proto_bool_values import bool_field_value
from tfcluster.framework.proto_functions import register_proto_function
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import (
    array_ops,
    constant_op,
    initial_value_guard,
    math_ops,
    save_slice_info,
    scatter_ops,
    state_ops,
    variable_creators,
)
from tfcluster.ops.control_flow_ops import group, no_op
from tfcluster.ops.op_util import make_op
from tfcluster.ops.save_slice_info import SaveSliceInfo, slice_info_to_proto
from tfcluster.protos import variable_pb2
from tfcluster.settings import environment


class VariableSynchronization(enum.Enum):
    """When a distributed variable is aggregated (accepted and kept; tfcluster has one copy)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How a distributed variable is aggregated (accepted and kept)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3  # TF's deprecated alias

    def __hash__(self) -> int:
        return hash(self.value)


def validate_synchronization_aggregation_trainable(
    synchronization: Any, aggregation: Any, trainable: Any, name: Any
) -> tuple[VariableSynchronization, VariableAggregation, Any]:
    """TF's checks and defaults: trainable defaults to True unless synchronization is ON_READ."""
    if aggregation is None:
        aggregation = VariableAggregation.NONE
    elif not isinstance(aggregation, VariableAggregation):
        try:
            aggregation = VariableAggregation(aggregation)
        except ValueError:
            raise ValueError(
                f"Invalid variable aggregation mode: {aggregation} for variable: {name}"
            ) from None
    if synchronization is None:
        synchronization = VariableSynchronization.AUTO
    else:
        try:
            synchronization = VariableSynchronization(synchronization)
        except ValueError:
            raise ValueError(
                f"Invalid variable synchronization mode: {synchronization} for variable: {name}"
            ) from None
    if trainable is None:
        trainable = synchronization != VariableSynchronization.ON_READ
    # The value as given, as TF keeps it: `tf.Variable(init, 'name')` passes the name as
    # `trainable` (truthy), which then fails to serialise in a VariableDef as TF's does.
    return synchronization, aggregation, trainable


class _VariableMeta(type):
    """tf.Variable(...) goes through the open variable_creator_scopes (TF's
    VariableMetaclass): with none open, it is a plain constructor call."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is not Variable:
            return super().__call__(*args, **kwargs)
        if not variable_creators.creator_stack():
            if kwargs.get("variable_def") is not None:
                return type.__call__(RefVariable, *args, **kwargs)
            use_resource = kwargs.get("use_resource", args[13] if len(args) > 13 else None)
            return type.__call__(_variable_class(use_resource), *args, **kwargs)
        bound = _SIGNATURE.bind(None, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        del arguments["self"]
        if arguments["synchronization"] is None:
            arguments["synchronization"] = VariableSynchronization.AUTO
        if arguments["aggregation"] is None:
            arguments["aggregation"] = VariableAggregation.NONE
        return variable_creators.create_through_stack(_default_creator, arguments)


# tf.enable_resource_variables(): variables not asked otherwise are resource variables.
_default_use_resource = [False]


def set_default_use_resource(value: bool) -> None:
    _default_use_resource[0] = bool(value)


def default_use_resource() -> bool:
    return _default_use_resource[0]


def _variable_class(use_resource: Any) -> type:
    """TF 1.15's default_variable_creator: the argument, else the variable scope's
    use_resource, else tf.enable_resource_variables()' default decides."""
    if use_resource is None:
        from tfcluster.ops import variable_scope  # variable_scope imports this module

        use_resource = variable_scope.get_variable_scope().use_resource
    if use_resource is None:
        use_resource = _default_use_resource[0]
    if use_resource:
        from tfcluster.ops.resource_variable import ResourceVariable  # a subclass of Variable

        return ResourceVariable
    return RefVariable


def _default_creator(**kwargs: Any) -> Any:
    if kwargs.get("variable_def") is not None:
        return type.__call__(RefVariable, **kwargs)
    return type.__call__(_variable_class(kwargs.get("use_resource")), **kwargs)


def is_resource_variable(x: Any) -> bool:
    return bool(getattr(x, "_is_resource_variable", False))


class Variable(metaclass=_VariableMeta):
    """A mutable tensor that lives in a worker's resource manager across steps."""

    SaveSliceInfo = SaveSliceInfo

    def __init__(
        self,
        initial_value: Any = None,
        trainable: bool | None = None,
        collections: Sequence[str] | None = None,
        validate_shape: bool = True,
        caching_device: Any = None,
        name: str | None = None,
        variable_def: Any = None,
        dtype: Any = None,
        expected_shape: Any = None,
        import_scope: str | None = None,
        constraint: Any = None,
        use_resource: Any = None,
        synchronization: Any = VariableSynchronization.AUTO,
        aggregation: Any = VariableAggregation.NONE,
        shape: Any = None,
    ) -> None:
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope)
            return
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        init_from_fn = callable(initial_value)
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        if not isinstance(collections, (list, tuple, set)):
            raise ValueError(
                "collections argument to Variable constructor must be a list, tuple, or set. "
                f"Got {collections} of type {type(collections)}"
            )
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable.")
        synchronization, aggregation, trainable = validate_synchronization_aggregation_trainable(
            synchronization, aggregation, trainable, name
        )
        self._synchronization = synchronization
        self._aggregation = aggregation
        self._trainable = trainable
        collections = list(collections)
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(GraphKeys.TRAINABLE_VARIABLES)
        self._constraint = constraint
        self._caching_device = caching_device
        with init_scope():
            graph = get_default_graph()
            with name_scope(name, "Variable", [] if init_from_fn else [initial_value]) as scope:
                self._make_ops(graph, scope, initial_value, dtype, shape, validate_shape)
            graph.add_to_collections(collections, self)
        self._save_slice_info: save_slice_info.SaveSliceInfo | None = None

    def _make_ops(
        self,
        graph: Any,
        scope: str,
        initial_value: Any,
        dtype: Any,
        shape: Any,
        validate_shape: bool,
    ) -> None:
        """The initial value, the VariableV2 op, its initializer (Assign) and its read."""
        if callable(initial_value):
            # The initializer and the variable carry `loc:@<variable>` (TF's _class attr): they
            # are placed together although the variable does not exist yet.
            true_name = scope[:-1] if scope.endswith("/") else scope
            with graph._attr_scope({"_class": [b"loc:@" + true_name.encode()]}):
                with graph.name_scope("Initializer"), graph.device(None):
                    self._initial_value = convert_to_tensor(
                        initial_value(), name="initial_value", dtype=dtype
                    )
                self._variable = state_ops.variable_op_v2(
                    self._shape_for(shape, validate_shape),
                    self._initial_value.dtype.base_dtype,
                    name=scope,
                )
        else:
            self._initial_value = convert_to_tensor(
                initial_value, name="initial_value", dtype=dtype
            )
            self._variable = state_ops.variable_op_v2(
                self._shape_for(shape, validate_shape),
                self._initial_value.dtype.base_dtype,
                name=scope,
            )
        if validate_shape and not self._initial_value.shape.is_fully_defined():
            raise ValueError(f"initial_value must have a shape specified: {self._initial_value}")
        with colocate_with(self._variable.op):
            # As TF: the variables the initial value reads are guarded (their initialized
            # values), so the initializers may run in any order.
            value = initial_value_guard.guarded(scope, self._initial_value, graph)
            self._initializer_op = state_ops.assign(
                self._variable, value, validate_shape=validate_shape
            ).op
        attrs = {"T": self.dtype.base_dtype}
        if self._caching_device is not None:
            # The cached read lives where the readers are (TF: a copy on that device).
            with graph.device(self._caching_device):
                self._snapshot = make_op("Identity", [self._variable], attrs, name="read")
        else:
            with colocate_with(self._variable.op):
                self._snapshot = make_op("Identity", [self._variable], attrs, name="read")
        self._snapshot_tensor = self._snapshot.outputs[0]

    def _shape_for(self, shape: Any, validate_shape: bool) -> TensorShape:
        if shape is not None:
            return TensorShape(shape)
        return self._initial_value.shape if validate_shape else TensorShape(None)

    # ---- partitioning ----------------------------------------------------------------
    def _set_save_slice_info(self, info: save_slice_info.SaveSliceInfo) -> None:
        self._save_slice_info = info

    def _get_save_slice_info(self) -> save_slice_info.SaveSliceInfo | None:
        return self._save_slice_info

    # ---- MetaGraphDef ------------------------------------------------------------------
    def _init_from_proto(self, variable_def: Any, import_scope: str | None) -> None:
        """The Variable over nodes already in the graph (an imported MetaGraphDef)."""
        graph = get_default_graph()

        def element(name: str) -> Any:
            return graph.as_graph_element(prepend_name_scope(name, import_scope))

        self._variable = element(variable_def.variable_name)
        self._initializer_op = element(variable_def.initializer_name)
        self._initial_value = (
            element(variable_def.initial_value_name) if variable_def.initial_value_name else None  # type: ignore[assignment]
        )
        self._snapshot_tensor = element(variable_def.snapshot_name)
        self._snapshot = self._snapshot_tensor.op
        self._trainable = bool(variable_def.trainable)
        self._synchronization, self._aggregation, _ = (
            validate_synchronization_aggregation_trainable(
                variable_def.synchronization,
                variable_def.aggregation,
                self._trainable,
                variable_def.variable_name,
            )
        )
        self._constraint = None
        self._caching_device = None
        self._save_slice_info = (
            SaveSliceInfo(
                save_slice_info_def=variable_def.save_slice_info_def, import_scope=import_scope
            )
            if variable_def.HasField("save_slice_info_def")
            else None
        )

    def to_proto(self, export_scope: str | None = None) -> variable_pb2.VariableDef | None:
        if export_scope is not None and not self._variable.name.startswith(export_scope):
            return None
        proto = variable_pb2.VariableDef()
        proto.variable_name = strip_name_scope(self._variable.name, export_scope)
        if self._initial_value is not None:
            proto.initial_value_name = strip_name_scope(self._initial_value.name, export_scope)
        proto.trainable = bool_field_value(self._trainable)
        proto.initializer_name = strip_name_scope(self._initializer_op.name, export_scope)
        proto.snapshot_name = strip_name_scope(self._snapshot_tensor.name, export_scope)
        if self._save_slice_info is not None:
            proto.save_slice_info_def.MergeFrom(
                slice_info_to_proto(self._save_slice_info, export_scope)
            )
        return proto

    @staticmethod
    def from_proto(variable_def: Any, import_scope: str | None = None) -> Variable:
        if variable_def.is_resource:
            # A resource variable (TF's ResourceVariable.from_proto).
            from tfcluster.ops.resource_variable import ResourceVariable

            return ResourceVariable(variable_def=variable_def, import_scope=import_scope)
        return RefVariable(variable_def=variable_def, import_scope=import_scope)

    # ---- identity --------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._variable.name

    @property
    def op(self) -> Operation:
        return self._variable.op

    @property
    def graph(self) -> Any:
        return self._variable.graph

    @property
    def device(self) -> str:
        return self._variable.device

    @property
    def dtype(self) -> dtypes.DType:
        return self._variable.dtype

    @property
    def shape(self) -> TensorShape:
        return self._variable.shape

    def get_shape(self) -> TensorShape:
        return self._variable.shape

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def constraint(self) -> Any:
        return self._constraint

    @property
    def synchronization(self) -> VariableSynchronization:
        return self._synchronization

    @property
    def aggregation(self) -> VariableAggregation:
        return self._aggregation

    @property
    def initializer(self) -> Operation:
        return self._initializer_op

    @property
    def initial_value(self) -> Tensor:
        return self._initial_value

    def _ref(self) -> Tensor:
        return self._variable

    def _as_graph_element(self) -> Tensor:
        return self._variable

    def value(self) -> Tensor:
        return self._snapshot_tensor

    @property
    def _graph_element(self) -> Tensor:
        """The variable's own read (its snapshot), made with it: no new op (a resource
        variable's value() makes a fresh read)."""
        return self._snapshot_tensor

    def read_value(self) -> Tensor:
        return make_op(
            "Identity", [self._variable], {"T": self.dtype.base_dtype}, name="read"
        ).outputs[0]

    def initialized_value(self) -> Tensor:
        """The current value once initialized, else the initial value (for chained inits)."""
        # TF 1.15 builds this as cond(IsVariableInitialized, read_value, initial_value): nine
        # ops where tfcluster makes one; the eight more count towards later op seeds.
        graph = self._variable.graph
        graph._match_tf1_op_count(8)
        with colocate_with(self._variable.op):
            # TF's names: its IsVariableInitialized, then the cond's Merge (`cond/Merge`).
            graph.unique_name("IsVariableInitialized")
            with name_scope("cond"):
                return make_op(
                    "_InitializedValue",
                    [self._variable, self._initial_value],
                    {"T": self.dtype.base_dtype},
                    name="Merge",
                ).outputs[0]

    # ---- updates ---------------------------------------------------------------------
    def assign(
        self,
        value: Any,
        use_locking: bool = False,
        name: str | None = None,
        read_value: bool = True,
    ) -> Any:
        t = state_ops.assign(self._variable, value, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def _strided_slice_assign(
        self, begin: Any, end: Any, strides: Any, value: Any, name: str, **masks: int
    ) -> Any:
        """`var[key].assign(value)`: StridedSliceAssign on the variable's ref; the variable's
        ref after it."""
        attrs = {"T": self.dtype.base_dtype, "Index": begin.dtype.base_dtype}
        attrs.update(array_ops._mask_attrs(**masks))
        # The value converted in the op's own scope (`<name>/value`), as a generated op's.
        with name_scope(name) as scope:
            value = convert_to_tensor(value, dtype=self.dtype.base_dtype, name="value")
            inputs = [self._variable, begin, end, strides, value]
            return make_op("StridedSliceAssign", inputs, attrs, scope).outputs[0]

    def assign_add(
        self,
        delta: Any,
        use_locking: bool = False,
        name: str | None = None,
        read_value: bool = True,
    ) -> Any:
        t = state_ops.assign_add(self._variable, delta, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def assign_sub(
        self,
        delta: Any,
        use_locking: bool = False,
        name: str | None = None,
        read_value: bool = True,
    ) -> Any:
        t = state_ops.assign_sub(self._variable, delta, use_locking=use_locking, name=name)
        return t if read_value else t.op

    # ---- row updates (TF's RefVariable.scatter_*): an IndexedSlices of rows to apply ----
    def _scatter(self, fn: Any, sparse_delta: Any, use_locking: bool, name: str | None) -> Tensor:
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        return fn(  # type: ignore[no-any-return]
            self._variable,
            sparse_delta.indices,
            sparse_delta.values,
            use_locking=use_locking,
            name=name,
        )

    def scatter_sub(
        self, sparse_delta: Any, use_locking: bool = False, name: str | None = None
    ) -> Tensor:
        """Subtracts the IndexedSlices' rows from the variable's rows at its indices."""
        return self._scatter(scatter_ops.scatter_sub, sparse_delta, use_locking, name)

    def scatter_add(
        self, sparse_delta: Any, use_locking: bool = False, name: str | None = None
    ) -> Tensor:
        return self._scatter(scatter_ops.scatter_add, sparse_delta, use_locking, name)

    def scatter_max(
        self, sparse_delta: Any, use_locking: bool = False, name: str | None = None
    ) -> Tensor:
        return self._scatter(scatter_ops.scatter_max, sparse_delta, use_locking, name)

    def scatter_min(
        self, sparse_delta: Any, use_locking: bool = False, name: str | None = None
    ) -> Tensor:
        return self._scatter(scatter_ops.scatter_min, sparse_delta, use_locking, name)

    def scatter_mul(
        self, sparse_delta: Any, use_locking: bool = False, name: str | None = None
    ) -> Tensor:
        return self._scatter(scatter_ops.scatter_mul, sparse_delta, use_locking, name)

    def scatter_div(
        self, sparse_delta: Any, use_locking: bool = False, name: str | None = None
    ) -> Tensor:
        return self._scatter(scatter_ops.scatter_div, sparse_delta, use_locking, name)

    def scatter_update(
        self, sparse_delta: Any, use_locking: bool = False, name: str | None = None
    ) -> Tensor:
        return self._scatter(scatter_ops.scatter_update, sparse_delta, use_locking, name)

    def batch_scatter_update(
        self, sparse_delta: Any, use_locking: bool = False, name: str | None = None
    ) -> Tensor:
        """tf.batch_scatter_update of the IndexedSlices' values at their batch indices."""
        from tfcluster.ops.batch_scatter_ops import batch_scatter_update

        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        return batch_scatter_update(
            self, sparse_delta.indices, sparse_delta.values, use_locking=use_locking, name=name
        )

    # A reference variable (TF 1.15's RefVariable) has no sparse reads: TF's base class raises
    # AttributeError there; resource variables read sparsely (resource_variable.py).
    def sparse_read(self, indices: Any, name: str | None = None) -> Tensor:
        raise AttributeError

    def gather_nd(self, indices: Any, name: str | None = None) -> Tensor:
        raise AttributeError

    def experimental_ref(self) -> Any:
        """A hashable reference comparing by this variable's identity."""
        from tfcluster.framework.object_identity import Reference

        return Reference(self)

    def scatter_nd_sub(self, indices: Any, updates: Any, name: str | None = None) -> Tensor:
        return scatter_ops.scatter_nd_sub(self._variable, indices, updates, True, name)

    def scatter_nd_add(self, indices: Any, updates: Any, name: str | None = None) -> Tensor:
        return scatter_ops.scatter_nd_add(self._variable, indices, updates, True, name)

    def scatter_nd_update(self, indices: Any, updates: Any, name: str | None = None) -> Tensor:
        return scatter_ops.scatter_nd_update(self._variable, indices, updates, True, name)

    @internal_deprecations.announces_itself
    def count_up_to(self, limit: int) -> Tensor:
        """Increments this (int32/int64 scalar) variable until it reaches limit."""
        internal_deprecations.called_internally(internal_deprecations.REF_COUNT_UP_TO, 2)
        return state_ops.count_up_to(self._variable, limit=limit)

    def eval(self, session: Any = None) -> Any:
        return self._variable.eval(session=session)

    def load(self, value: Any, session: Any = None) -> None:
        sess = session or get_default_session_or_raise(self.graph)
        sess.run(self._initializer_op, {self._initial_value: value})

    def set_shape(self, shape: Any) -> None:
        self._variable.set_shape(shape)
        self._snapshot_tensor.set_shape(shape)

    def __repr__(self) -> str:
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __iter__(self) -> Any:
        raise TypeError("'Variable' object is not iterable.")

    def __bool__(self) -> bool:
        # TF 1.15's RefVariable defines no __bool__: every variable is true (`if v:`).
        return True

    # In-place operators: TF 1.15's RefVariable gives a new Tensor (the variable unchanged);
    # ResourceVariable refuses them.
    def __iadd__(self, other: Any) -> Any:
        return self + other

    def __isub__(self, other: Any) -> Any:
        return self - other

    def __imul__(self, other: Any) -> Any:
        return self * other

    def __itruediv__(self, other: Any) -> Any:
        return self / other

    def __ipow__(self, other: Any) -> Any:
        return self**other


class RefVariable(Variable):
    """A reference variable, the class of what tf.Variable and tf.get_variable make unless a
    resource variable is asked for (TF 1.15's RefVariable: `type(v)` shows its name)."""


def _variable_conversion(
    v: Variable, dtype: Any = None, name: Any = None, as_ref: bool = False
) -> Tensor:
    return v._ref() if as_ref else v.value()


register_tensor_conversion_function(Variable, _variable_conversion)


def _variable_to_proto(v: Any, export_scope: str | None = None) -> Any:
    # As TF's: anything else in a variables collection (a Supervisor puts the tensor
    # "global_step:0" in GLOBAL_STEP) fails here, and the export leaves the collection out
    # with a warning.
    return v.to_proto(export_scope=export_scope)


for _key in (
    GraphKeys.GLOBAL_VARIABLES,
    GraphKeys.TRAINABLE_VARIABLES,
    GraphKeys.MOVING_AVERAGE_VARIABLES,
    GraphKeys.LOCAL_VARIABLES,
    GraphKeys.MODEL_VARIABLES,
    GraphKeys.GLOBAL_STEP,
    "metric_variables",
):
    register_proto_function(_key, variable_pb2.VariableDef, _variable_to_proto, Variable.from_proto)

VariableV1 = Variable


# The keyword arguments a variable creator is given: the constructor's, defaults filled in.
_SIGNATURE = inspect.signature(Variable.__init__)


def global_variables(scope: str | None = None) -> list[Variable]:
    return get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def all_variables() -> list[Variable]:
    """TF 1.15's deprecated global_variables(), without a scope."""
    return global_variables()


def local_variables(scope: str | None = None) -> list[Variable]:
    return get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope: str | None = None) -> list[Variable]:
    return get_collection(GraphKeys.MODEL_VARIABLES, scope)


def trainable_variables(scope: str | None = None) -> list[Variable]:
    return get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def variables_initializer(var_list: Sequence[Variable], name: str = "init") -> Operation:
    if var_list:
        return group(*[v.initializer for v in var_list], name=name)
    return no_op(name=name)


def global_variables_initializer() -> Operation:
    return variables_initializer(global_variables())


def initialize_all_variables() -> Operation:
    # TF's deprecated name: a function of its own, so that its announcement (the public
    # namespace wraps it) is not global_variables_initializer's.
    return global_variables_initializer()


def local_variables_initializer() -> Operation:
    return variables_initializer(local_variables(), name="init")


def is_variable_initialized(variable: Variable) -> Tensor:
    return state_ops.is_variable_initialized(variable)


def assert_variables_initialized(var_list: Sequence[Variable] | None = None) -> Tensor | None:
    """TF 1.15's check: the Rank of every variable (colocated with it, never folded to a
    constant), stacked when there are several, so running it fails as reading an
    uninitialized variable does; None when there is no variable at all."""
    checked: list[Variable | Tensor] = list(
        var_list if var_list is not None else global_variables() + local_variables()
    )
    if not checked:
        checked = [
            op.outputs[0]
            for op in get_default_graph().get_operations()
            if op.type in ("Variable", "VariableV2", "AutoReloadVariable")
        ]
    if not checked:
        return None
    ranks = []
    for v in checked:
        with colocate_with(v.op), name_scope(None, "Rank", [v]) as scope:
            t = convert_to_tensor(v)
            ranks.append(make_op("Rank", [t], {"T": t.dtype.base_dtype}, name=scope).outputs[0])
    return ranks[0] if len(ranks) == 1 else array_ops.stack(ranks)


def report_uninitialized_variables(
    var_list: Sequence[Variable | Tensor] | None = None,
    name: str = "report_uninitialized_variables",
) -> Tensor:
    """A 1-D string tensor with the names of the variables that are not initialized yet.

    Each check is colocated with its variable, so this works across the tasks of a cluster;
    the rest runs on the device TF_DEVICE_FOR_UNINITIALIZED_VARIABLE_REPORTING names ("/cpu:0"
    by default), as in TF 1.15.
    """
    if var_list is None:
        var_list = [*global_variables(), *local_variables()]
        if not var_list:
            # Variables made without tf.Variable (raw VariableV2 ops) count too, as in TF.
            var_list = [
                op.outputs[0]
                for op in get_default_graph().get_operations()
                if op.type in ("Variable", "VariableV2", "AutoReloadVariable")
            ]
    var_list = list(var_list)
    with name_scope(name):
        flags = []
        for v in var_list:
            with colocate_with(v.op):
                flags.append(state_ops.is_variable_initialized(v))
        with device(environment.uninitialized_reporting_device()):
            if not var_list:
                return constant_op.constant([], dtype=dtypes.string)
            not_initialized = math_ops.logical_not(array_ops.stack(flags))
            names = constant_op.constant([v.op.name for v in var_list])
            return array_ops.boolean_mask(names, not_initialized)


class PartitionedVariable:
    """A variable made of shards (tf.get_variable with a partitioner): each shard is its own
    Variable named '<name>/part_<i>', so replica_device_setter spreads them over the ps
    tasks. Iterating gives the shards in order; used as a Tensor it is their concatenation."""

    def __init__(
        self,
        name: str,
        shape: Any,
        dtype: Any,
        variable_list: Sequence[Variable],
        partitions: Sequence[int],
    ) -> None:
        if not isinstance(variable_list, (list, tuple)):
            raise TypeError(f"variable_list is not a list or tuple: {variable_list}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"partitions is not a list or tuple: {partitions}")
        if not all(p >= 1 for p in partitions):
            raise ValueError(f"partition values must be positive: {partitions}")
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        shape_list = TensorShape(shape).as_list()
        for v in variable_list:
            info = v._get_save_slice_info()
            if info is None:
                raise ValueError(
                    "All variables must have a save_slice_info available: "
                    f"{[v.name for v in variable_list]}"
                )
            if len(shape_list) != len(partitions):
                raise ValueError(f"len(shape) != len(partitions): {shape} vs. {partitions}")
            if info.full_shape != shape_list:
                raise ValueError(
                    f"All variables' full shapes must match shape: {shape}; but full shapes "
                    f"were: {[info.full_shape]}"
                )
        self._variable_list = sorted(
            variable_list,
            key=lambda v: v._get_save_slice_info().var_offset,  # type: ignore[union-attr]
        )
        self._name = name
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._partitions = list(partitions)

    def __iter__(self) -> Any:
        return iter(self._variable_list)

    def __len__(self) -> int:
        axes = self._partition_axes()
        if len(axes) > 1:
            raise ValueError(f"Cannot get a length for {len(axes)} > 1 partition axes")
        return len(self._variable_list)

    def _partition_axes(self) -> list[int]:
        if all(p == 1 for p in self._partitions):
            return [0]
        return [i for i, p in enumerate(self._partitions) if p > 1]

    def _concat(self) -> Tensor:
        if len(self._variable_list) == 1:
            with name_scope(None):
                return array_ops.identity(self._variable_list[0], name=self._name)
        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError(
                f"Cannot concatenate along more than one dimension: {axes}.  Multi-axis "
                "partition concat is not supported"
            )
        with name_scope(self._name + "/ConcatPartitions/"):
            concatenated = array_ops.concat(self._variable_list, axes[0])
        with name_scope(None):
            return array_ops.identity(concatenated, name=self._name)

    def as_tensor(self) -> Tensor:
        """The shards concatenated (made afresh, free of the control dependencies in force)."""
        with control_dependencies(None):
            return self._concat()

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    @property
    def graph(self) -> Any:
        return self._variable_list[0].graph

    def _get_variable_list(self) -> list[Variable]:
        return self._variable_list

    def _get_partitions(self) -> list[int]:
        return self._partitions

    def _apply_assign_fn(self, assign_fn: Any, value: Any) -> list[Any]:
        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError(
                f"Cannot do assign action along more than one dimension: {axes}.  Multi-axis "
                "partition assign action is not supported "
            )
        if isinstance(value, list):
            if len(value) != len(self._variable_list):
                raise ValueError(
                    f"{len(value)} values for the {len(self._variable_list)} shards of {self._name}"
                )
            values = value
        elif isinstance(value, PartitionedVariable):
            values = list(value)
        else:
            sizes = [v.shape.as_list()[axes[0]] for v in self._variable_list]
            values = array_ops.split(value, sizes, axis=axes[0])
        return [assign_fn(v, values[i]) for i, v in enumerate(self._variable_list)]

    def assign(
        self,
        value: Any,
        use_locking: bool = False,
        name: str | None = None,
        read_value: bool = True,
    ) -> list[Any]:
        return self._apply_assign_fn(
            lambda v, x: v.assign(x, use_locking=use_locking, name=name, read_value=read_value),
            value,
        )

    def assign_add(
        self,
        value: Any,
        use_locking: bool = False,
        name: str | None = None,
        read_value: bool = True,
    ) -> list[Any]:
        return self._apply_assign_fn(
            lambda v, x: v.assign_add(x, use_locking=use_locking, name=name, read_value=read_value),
            value,
        )

    def assign_sub(
        self,
        value: Any,
        use_locking: bool = False,
        name: str | None = None,
        read_value: bool = True,
    ) -> list[Any]:
        return self._apply_assign_fn(
            lambda v, x: v.assign_sub(x, use_locking=use_locking, name=name, read_value=read_value),
            value,
        )

    def __repr__(self) -> str:
        return (
            f"<tf.PartitionedVariable '{self._name}' shape={self._shape} "
            f"dtype={self._dtype.name} partitions={self._partitions}>"
        )


def _partitioned_conversion(
    v: PartitionedVariable, dtype: Any = None, name: Any = None, as_ref: bool = False
) -> Tensor:
    if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(v.dtype):
        raise ValueError(
            f"Incompatible type conversion requested to type '{dtypes.as_dtype(dtype).name}' for "
            f"variable of type '{v.dtype.name}'"
        )
    if as_ref:
        raise NotImplementedError("PartitionedVariable doesn't support being used as a reference.")
    return v.as_tensor()


register_tensor_conversion_function(PartitionedVariable, _partitioned_conversion)


def moving_average_variables(scope: str | None = None) -> list[Any]:
    return get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


# TF's deprecated names (functions of their own, as initialize_all_variables).
def initialize_variables(var_list: Sequence[Variable], name: str = "init") -> Operation:
    return variables_initializer(var_list, name=name)


def initialize_local_variables() -> Operation:
    return local_variables_initializer()
