"""tf.Variable over a resource handle (TF's ResourceVariable): the VarHandleOp, its
initializer (AssignVariableOp), its read (ReadVariableOp under `Read/`), and reads/updates
by the resource ops. A MetaGraph TF wrote with resource variables (tf.keras layers,
`get_variable(use_resource=True)`) imports its variables as these.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import (
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    device,
    name_scope,
)
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, math_ops
from tfcluster.ops import resource_variable_ops as rv
from tfcluster.ops.op_util import make_op
from tfcluster.ops.resource_handles import handle_shape
from tfcluster.ops.variables import Variable
from tfcluster.protos import variable_pb2


class ResourceVariable(Variable):
    """`_variable` is the handle (a DT_RESOURCE tensor); dtype and shape are the value's."""

    _dtype: dtypes.DType
    _is_resource_variable = True

    # TF 1.15's BaseResourceVariable refuses in-place operators, with these messages.
    def __iadd__(self, other: Any) -> Any:
        raise RuntimeError(
            "Variable += value not supported. Use variable.assign_add(value) to modify the "
            "variable value and variable = variable + value to get a new Tensor object."
        )

    def __isub__(self, other: Any) -> Any:
        raise RuntimeError(
            "Variable -= value not supported. Use variable.assign_sub(value) to modify the "
            "variable value and variable = variable - value to get a new Tensor object."
        )

    def __imul__(self, other: Any) -> Any:
        raise RuntimeError(
            "Variable *= value not supported. Use `var.assign(var * value)` to modify the "
            "variable or `var = var * value` to get a new Tensor object."
        )

    def __itruediv__(self, other: Any) -> Any:
        raise RuntimeError(
            "Variable /= value not supported. Use `var.assign(var / value)` to modify the "
            "variable or `var = var / value` to get a new Tensor object."
        )

    def __ipow__(self, other: Any) -> Any:
        raise RuntimeError(
            "Variable **= value not supported. Use `var.assign(var ** value)` to modify the "
            "variable or `var = var ** value` to get a new Tensor object."
        )

    def _init_from_proto(self, variable_def: Any, import_scope: str | None) -> None:
        internal_deprecations.called_internally_with_argument(
            internal_deprecations.RESOURCE_VARIABLE_CONSTRAINT
        )
        as_ref = variable_pb2.VariableDef()
        as_ref.CopyFrom(variable_def)
        as_ref.is_resource = False
        super()._init_from_proto(as_ref, import_scope)
        self._dtype = dtypes.as_dtype(self._variable.op._get_attr("dtype"))

    def _make_ops(
        self,
        graph: Any,
        scope: str,
        initial_value: Any,
        dtype: Any,
        shape: Any,
        validate_shape: bool,
    ) -> None:
        """TF's graph: `<name>` VarHandleOp (shared_name the name), `Initializer/` the initial
        value, `IsInitialized/VarIsInitializedOp`, `Assign` and `Read/ReadVariableOp`."""
        internal_deprecations.called_internally_with_argument(
            internal_deprecations.RESOURCE_VARIABLE_CONSTRAINT
        )
        handle_name = scope[:-1] if scope.endswith("/") else scope
        # The initial value and the handle carry `loc:@<name>` (TF's _class attr): placed
        # together although the variable does not exist yet.
        with graph._attr_scope({"_class": [b"loc:@" + handle_name.encode()]}):
            with graph.name_scope("Initializer"), graph.device(None):
                self._initial_value = convert_to_tensor(
                    initial_value() if callable(initial_value) else initial_value,
                    name="initial_value",
                    dtype=dtype,
                )
            value_dtype = self._initial_value.dtype.base_dtype
            var_shape = self._shape_for(shape, validate_shape)
            self._dtype = value_dtype
            self._variable = rv.var_handle_op(
                value_dtype, var_shape, shared_name=handle_name, name=scope
            )
        with name_scope("IsInitialized"):
            self._is_initialized = rv.var_is_initialized_op(self._variable)
        with name_scope("Assign") as assign_name, self._on_handle_device():
            self._initializer_op = make_op(
                "AssignVariableOp",
                [self._variable, self._initial_value],
                {"dtype": value_dtype},
                name=assign_name,
            )
        # The first read keeps the colocation around the variable (TF clears it only for
        # the Assign), on the handle's device.
        with name_scope("Read"), self._on_handle_device(keep_colocation=True):
            self._snapshot_tensor = rv.read_variable_op(self._variable, value_dtype)
        self._snapshot = self._snapshot_tensor.op

    # ---- identity --------------------------------------------------------------------
    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return handle_shape(self._variable)

    def get_shape(self) -> TensorShape:
        return self.shape

    def _as_graph_element(self) -> Tensor:
        # A fetch of the variable is its value (TF's _graph_element), not its handle.
        return self._snapshot_tensor

    @property
    def handle(self) -> Tensor:
        return self._variable

    @property
    def create(self) -> Operation:
        """The op that initializes the variable (TF's older name for `initializer`)."""
        return self.initializer

    def numpy(self) -> Any:
        raise NotImplementedError("numpy() is only available when eager execution is enabled.")

    def to_proto(self, export_scope: str | None = None) -> variable_pb2.VariableDef | None:
        proto = super().to_proto(export_scope)
        if proto is not None:
            proto.is_resource = True
        return proto

    def _on_handle_device(self, keep_colocation: bool = False) -> Any:
        """No colocation (unless kept), the handle's device (as TF places a resource
        variable's ops)."""
        stack = ExitStack()
        if not keep_colocation:
            stack.enter_context(colocate_with(None, ignore_existing=True))
        if self._variable.device:
            stack.enter_context(device(self._variable.device))
        return stack

    # ---- reads -----------------------------------------------------------------------
    def value(self) -> Tensor:
        """A fresh read where the value is used (TF's value(): every use of a resource
        variable reads it when its op runs, after that op's control dependencies)."""
        with self._on_handle_device():
            return rv.read_variable_op(self._variable, self._dtype)

    def read_value(self) -> Tensor:
        with name_scope("Read"):
            value = rv.read_variable_op(self._variable, self._dtype)
        return make_op("Identity", [value], {"T": self._dtype}, name="Identity").outputs[0]

    def sparse_read(self, indices: Any, name: str | None = None) -> Tensor:
        with name_scope("Gather" if name is None else name) as scope:
            value = rv.resource_gather(self._variable, indices, self._dtype, name=scope)
        return make_op("Identity", [value], {"T": self._dtype}, name="Identity").outputs[0]

    def gather_nd(self, indices: Any, name: str | None = None) -> Tensor:
        with name_scope("GatherNd" if name is None else name) as scope:
            indices = convert_to_tensor(indices, name="indices")
            attrs = {"dtype": self._dtype, "Tindices": indices.dtype.base_dtype}
            value = make_op("ResourceGatherNd", [self._variable, indices], attrs, name=scope)
        return make_op("Identity", [value.outputs[0]], {"T": self._dtype}, name="Identity").outputs[
            0
        ]

    def initialized_value(self) -> Tensor:
        from tfcluster.ops import control_flow_ops

        value = control_flow_ops.cond(
            rv.var_is_initialized_op(self._variable),
            self.read_value,
            lambda: self._initial_value,
        )
        # Both branches have the variable's shape (TF's cond merges them).
        value.set_shape(self.shape)
        return value  # type: ignore[no-any-return]

    def is_initialized(self, name: str | None = None) -> Tensor:
        return rv.var_is_initialized_op(self._variable, name=name)

    def eval(self, session: Any = None) -> Any:
        return self._snapshot_tensor.eval(session=session)

    # ---- updates ---------------------------------------------------------------------
    def _update(self, op_type: str, value: Any, name: str | None, read_value: bool) -> Any:
        # TF's assign methods convert the value before the op, unnamed (`Const`).
        value = convert_to_tensor(value, dtype=self._dtype)
        op = rv.assign_op(op_type, self._variable, value, name)
        return _UnreadVariable(self, op) if read_value else op

    def assign(
        self,
        value: Any,
        use_locking: bool = False,
        name: str | None = None,
        read_value: bool = True,
    ) -> Any:
        return self._update("AssignVariableOp", value, name, read_value)

    def _strided_slice_assign(
        self, begin: Any, end: Any, strides: Any, value: Any, name: str, **masks: int
    ) -> Any:
        """`var[key].assign(value)`: ResourceStridedSliceAssign; the variable after it."""
        value = convert_to_tensor(value, dtype=self._dtype)
        attrs = {"T": self._dtype, "Index": begin.dtype.base_dtype}
        attrs.update(array_ops._mask_attrs(**masks))
        inputs = [self._variable, begin, end, strides, value]
        return _UnreadVariable(self, make_op("ResourceStridedSliceAssign", inputs, attrs, name))

    def assign_add(
        self,
        delta: Any,
        use_locking: bool = False,
        name: str | None = None,
        read_value: bool = True,
    ) -> Any:
        return self._update("AssignAddVariableOp", delta, name, read_value)

    def assign_sub(
        self,
        delta: Any,
        use_locking: bool = False,
        name: str | None = None,
        read_value: bool = True,
    ) -> Any:
        return self._update("AssignSubVariableOp", delta, name, read_value)

    def scatter_op(self, mode: str, indices: Any, updates: Any, name: str | None = None) -> Any:
        """The ResourceScatter<mode> op alone (no read after it), as TF makes it: the updates
        converted first, the indices in the op's name scope. Modes Nd<...> are the n-d
        scatters (attrs T and use_locking, TF's default True)."""
        updates = convert_to_tensor(updates, dtype=self._dtype)
        op_type = f"ResourceScatter{mode}"
        with name_scope(name, op_type) as scope:
            indices = convert_to_tensor(indices, name="indices")
            index_type = indices.dtype.base_dtype
            attrs: dict[str, Any] = (
                {"T": self._dtype, "Tindices": index_type, "use_locking": True}
                if mode.startswith("Nd")
                else {"dtype": self._dtype, "Tindices": index_type}
            )
            return make_op(op_type, [self._variable, indices, updates], attrs, name=scope)

    def _unread_after(self, op: Operation) -> Any:
        """The variable after `op` updates it (TF's _lazy_read)."""
        return _UnreadVariable(self, op)

    def scatter_nd_sub(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        return _UnreadVariable(self, self.scatter_op("NdSub", indices, updates, name))

    def scatter_nd_add(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        return _UnreadVariable(self, self.scatter_op("NdAdd", indices, updates, name))

    def scatter_nd_update(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        return _UnreadVariable(self, self.scatter_op("NdUpdate", indices, updates, name))

    def _resource_scatter(self, mode: str, sparse_delta: Any, name: str | None) -> Any:
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        op = self.scatter_op(mode, sparse_delta.indices, sparse_delta.values, name)
        return _UnreadVariable(self, op)

    def scatter_sub(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._resource_scatter("Sub", sparse_delta, name)

    def scatter_add(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._resource_scatter("Add", sparse_delta, name)

    def scatter_max(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._resource_scatter("Max", sparse_delta, name)

    def scatter_min(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._resource_scatter("Min", sparse_delta, name)

    def scatter_mul(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._resource_scatter("Mul", sparse_delta, name)

    def scatter_div(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._resource_scatter("Div", sparse_delta, name)

    def scatter_update(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._resource_scatter("Update", sparse_delta, name)

    @internal_deprecations.announces_itself
    def count_up_to(self, limit: int) -> Tensor:
        internal_deprecations.called_internally(internal_deprecations.RESOURCE_COUNT_UP_TO, 2)
        return make_op(
            "ResourceCountUpTo", [self._variable], {"limit": limit, "T": self._dtype}
        ).outputs[0]

    def load(self, value: Any, session: Any = None) -> None:
        from tfcluster.framework.default_session import get_default_session_or_raise

        sess = session or get_default_session_or_raise(self.graph)
        sess.run(self._initializer_op, {self._initial_value: value})

    def set_shape(self, shape: Any) -> None:
        self._snapshot_tensor.set_shape(shape)

    def __repr__(self) -> str:
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    def __bool__(self) -> bool:
        # TF 1.15's bool(self.read_value()): the read ops are made, then the tensor's error.
        return bool(self.read_value())


class _UnreadVariable(ResourceVariable):
    """What an update of a resource variable returns (TF's _UnreadVariable): the variable
    after that update. Its graph element is a read made after the update, and every read of
    it (a use in an op) waits for the update too."""

    def __init__(self, parent: ResourceVariable, parent_op: Operation) -> None:
        self.__dict__.update(parent.__dict__)
        # Not a copy of a distributed variable (TF's has no container): regrouping an
        # update's results keeps the update instead of returning the mirrored variable.
        self.__dict__.pop("_distributed_container", None)
        self._parent_op = parent_op
        with control_dependencies([parent_op]):
            self._snapshot_tensor = rv.read_variable_op(self._variable, self._dtype)
        self._snapshot = self._snapshot_tensor.op

    @property
    def op(self) -> Operation:
        return self._parent_op

    @property
    def name(self) -> str:
        """The update's op name (TF's _UnreadVariable in a graph)."""
        return self._parent_op.name

    def value(self) -> Tensor:
        with control_dependencies([self._parent_op]):
            return super().value()

    def read_value(self) -> Tensor:
        with control_dependencies([self._parent_op]):
            return super().read_value()

    def sparse_read(self, indices: Any, name: str | None = None) -> Tensor:
        with control_dependencies([self._parent_op]):
            return super().sparse_read(indices, name)

    def gather_nd(self, indices: Any, name: str | None = None) -> Tensor:
        with control_dependencies([self._parent_op]):
            return super().gather_nd(indices, name)


def _read_first(operator: Any) -> Any:
    def apply(self: ResourceVariable, *args: Any, **kwargs: Any) -> Any:
        return operator(self.value(), *args, **kwargs)

    return apply


# TF's operators on a resource variable read it (value()) outside the operator's scope; its
# slicing is Variable's (math_ops: the value read, then sliced, the slice assignable).
for _name in set(math_ops.OVERLOADED_OPERATORS) - {"__getitem__"}:
    setattr(ResourceVariable, _name, _read_first(getattr(Tensor, _name)))
