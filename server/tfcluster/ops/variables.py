"""tf.Variable (TF1 reference variables), initializers and report_uninitialized_variables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, errors
from tfcluster.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    colocate_with,
    convert_to_tensor,
    get_collection,
    get_default_graph,
    name_scope,
    register_tensor_conversion_function,
)
from tfcluster.framework.meta_graph import prepend_name_scope, strip_name_scope
from tfcluster.framework.proto_functions import register_proto_function
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import state_ops
from tfcluster.ops.op_util import make_op
from tfcluster.ops.save_slice_info import SaveSliceInfo, slice_info_to_proto
from tfcluster.protos import variable_pb2


class Variable:
    """A mutable tensor that lives in a worker's resource manager across steps."""

    def __init__(
        self,
        initial_value: Any = None,
        trainable: bool = True,
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
        synchronization: Any = None,
        aggregation: Any = None,
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
        collections = list(collections) if collections is not None else [GraphKeys.GLOBAL_VARIABLES]
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(GraphKeys.TRAINABLE_VARIABLES)
        self._trainable = trainable
        self._constraint = constraint
        graph = get_default_graph()
        with name_scope(name, "Variable", [] if init_from_fn else [initial_value]) as scope:
            if init_from_fn:
                with graph.name_scope("Initializer"), graph.device(None):
                    self._initial_value = convert_to_tensor(
                        initial_value(), name="initial_value", dtype=dtype
                    )
            else:
                self._initial_value = convert_to_tensor(
                    initial_value, name="initial_value", dtype=dtype
                )
            init_shape = self._initial_value.shape
            if shape is not None:
                var_shape = TensorShape(shape)
            elif validate_shape:
                if not init_shape.is_fully_defined():
                    raise ValueError(
                        f"initial_value must have a shape specified: {self._initial_value}"
                    )
                var_shape = init_shape
            else:
                var_shape = TensorShape(None)
            self._variable = state_ops.variable_op_v2(
                var_shape, self._initial_value.dtype.base_dtype, name=scope
            )
            with colocate_with(self._variable.op):
                self._initializer_op = state_ops.assign(
                    self._variable, self._initial_value, validate_shape=validate_shape
                ).op
            with colocate_with(self._variable.op):
                self._snapshot = make_op(
                    "Identity", [self._variable], {"T": self.dtype.base_dtype}, name="read"
                )
        self._snapshot_tensor = self._snapshot.outputs[0]
        graph.add_to_collections(collections, self)
        self._save_slice_info: Any = None

    # ---- MetaGraphDef ------------------------------------------------------------------
    def _init_from_proto(self, variable_def: Any, import_scope: str | None) -> None:
        """The Variable over nodes already in the graph (an imported MetaGraphDef)."""
        if variable_def.is_resource:
            raise errors.UnimplementedError(
                None,
                None,
                f"Variable {variable_def.variable_name} is a resource variable, which tfcluster "
                "does not implement",
            )
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
        proto.trainable = self._trainable
        proto.initializer_name = strip_name_scope(self._initializer_op.name, export_scope)
        proto.snapshot_name = strip_name_scope(self._snapshot_tensor.name, export_scope)
        if self._save_slice_info is not None:
            proto.save_slice_info_def.MergeFrom(
                slice_info_to_proto(self._save_slice_info, export_scope)
            )
        return proto

    @staticmethod
    def from_proto(variable_def: Any, import_scope: str | None = None) -> Variable:
        return Variable(variable_def=variable_def, import_scope=import_scope)

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

    def read_value(self) -> Tensor:
        return make_op(
            "Identity", [self._variable], {"T": self.dtype.base_dtype}, name="read"
        ).outputs[0]

    def initialized_value(self) -> Tensor:
        """The current value once initialized, else the initial value (for chained inits)."""
        with colocate_with(self._variable.op):
            return make_op(
                "_InitializedValue",
                [self._variable, self._initial_value],
                {"T": self.dtype.base_dtype},
                name=self.op.name + "/initialized_value",
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

    def eval(self, session: Any = None) -> Any:
        return self._variable.eval(session=session)

    def load(self, value: Any, session: Any = None) -> None:
        from tfcluster.client.session import get_default_session_or_raise

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
        raise TypeError("Using a `tf.Variable` as a Python `bool` is not allowed.")


def _variable_conversion(
    v: Variable, dtype: Any = None, name: Any = None, as_ref: bool = False
) -> Tensor:
    return v._ref() if as_ref else v.value()


register_tensor_conversion_function(Variable, _variable_conversion)


def _variable_to_proto(v: Any, export_scope: str | None = None) -> Any:
    return v.to_proto(export_scope=export_scope) if hasattr(v, "to_proto") else None


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


def global_variables(scope: str | None = None) -> list[Variable]:
    return get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


all_variables = global_variables


def local_variables(scope: str | None = None) -> list[Variable]:
    return get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope: str | None = None) -> list[Variable]:
    return get_collection(GraphKeys.MODEL_VARIABLES, scope)


def trainable_variables(scope: str | None = None) -> list[Variable]:
    return get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def variables_initializer(var_list: Sequence[Variable], name: str = "init") -> Operation:
    from tfcluster.ops.control_flow_ops import group, no_op

    if var_list:
        return group(*[v.initializer for v in var_list], name=name)
    return no_op(name=name)


def global_variables_initializer() -> Operation:
    return variables_initializer(global_variables())


initialize_all_variables = global_variables_initializer


def local_variables_initializer() -> Operation:
    return variables_initializer(local_variables(), name="init")


def is_variable_initialized(variable: Variable) -> Tensor:
    return state_ops.is_variable_initialized(variable)


def assert_variables_initialized(var_list: Sequence[Variable] | None = None) -> Operation:
    from tfcluster.ops import array_ops

    var_list = list(var_list) if var_list is not None else global_variables() + local_variables()
    with name_scope(None, "assert_variables_initialized"):
        ready = report_uninitialized_variables(var_list)
        return array_ops.identity(ready).op


def report_uninitialized_variables(
    var_list: Sequence[Variable] | None = None, name: str = "report_uninitialized_variables"
) -> Tensor:
    """A 1-D string tensor with the names of the variables that are not initialized yet.

    Each check is colocated with its variable, so this works across the tasks of a cluster.
    """
    from tfcluster.ops import array_ops, constant_op, math_ops

    if var_list is None:
        var_list = global_variables() + local_variables()
    var_list = list(var_list)
    with name_scope(name):
        if not var_list:
            return constant_op.constant([], dtype=dtypes.string)
        flags = []
        for v in var_list:
            with colocate_with(v.op):
                flags.append(state_ops.is_variable_initialized(v))
        names = constant_op.constant([v.op.name for v in var_list])
        return array_ops.boolean_mask(names, math_ops.logical_not(array_ops.stack(flags)))
