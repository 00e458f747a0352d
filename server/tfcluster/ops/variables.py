"""tf.Variable (TF1 reference variables), initializers and report_uninitialized_variables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.default_session import get_default_session_or_raise
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
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, constant_op, math_ops, state_ops
from tfcluster.ops.control_flow_ops import group, no_op
from tfcluster.ops.op_util import make_op


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
        self._save_slice_info = None

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

    def count_up_to(self, limit: int) -> Tensor:
        """Increments this (int32/int64 scalar) variable until it reaches limit."""
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
        raise TypeError("Using a `tf.Variable` as a Python `bool` is not allowed.")


def _variable_conversion(
    v: Variable, dtype: Any = None, name: Any = None, as_ref: bool = False
) -> Tensor:
    return v._ref() if as_ref else v.value()


register_tensor_conversion_function(Variable, _variable_conversion)

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
