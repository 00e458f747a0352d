"""Kernels of the resource variables (TF's resource_variable_ops.cc) over xp.

A VarHandleOp yields a `VarHandle`: the variable's container and shared name in its task's
resource manager, not the variable itself, so the variable exists only once assigned
(AssignVariableOp creates it) and every op taking the handle looks it up, as TF does. The
variable kept there is a VariableRef, the very buffer the ref variables use: reads, in-place
updates, locks and the optimizers' update bodies are shared with them (`on_resources` runs a
ref kernel on the variables a handle names). Ops taking a handle are placed with its
VarHandleOp (op_def ref_inputs), so a worker's read of a ps variable runs on the ps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.kernels import array as array_kernels
from tfcluster.kernels import count_up_to, in_place, scatter_ops
from tfcluster.kernels.common import Compute, frozen, invalid, shape_of, shape_str
from tfcluster.kernels.registry import kernel
from tfcluster.kernels.state import locked
from tfcluster.runtime.resources import ResourceMgr, VariableRef

XpFactory = Callable[[Any, Any], Compute]
# TF's type name of a resource variable: the key suffix in its resource manager, so that a
# VariableV2 and a VarHandleOp of one shared name are two variables, as in TF.
VAR_TYPE = "N10tensorflow3VarE"


class VarHandle:
    """The value of a DT_RESOURCE tensor naming a variable."""

    __slots__ = ("container", "dtype", "key", "mgr", "name", "shape")

    def __init__(self, mgr: ResourceMgr, container: str, name: str, dtype: Any, shape: Any):
        self.mgr = mgr
        self.container = container
        self.name = name
        self.dtype = dtype
        self.shape = shape
        # The name the resource manager keeps the variable under (made once: a step reads
        # a handle's variable several times).
        self.key = f"{name}/{VAR_TYPE}"

    def _where(self) -> str:
        return f"{self.container or 'localhost'}/{self.name}/{VAR_TYPE}"

    def lookup(self) -> VariableRef:
        """The variable; NotFoundError when it was never assigned (TF's LookupResource)."""
        ref = self.mgr.get(self.container, self.key)
        if ref is None:
            raise errors.NotFoundError(None, None, f"Resource {self._where()} does not exist.")
        return ref  # type: ignore[no-any-return]

    def read_lookup(self) -> VariableRef:
        """The variable for a read: FailedPreconditionError naming it when it does not exist."""
        try:
            return self.lookup()
        except errors.NotFoundError as e:
            raise errors.FailedPreconditionError(
                None,
                None,
                f"Error while reading resource variable {self.name} from Container: "
                f"{self.container or 'localhost'}. This could mean that the variable was "
                f"uninitialized. Not found: {e.message}",
            ) from None

    def lookup_or_create(self, dtype: Any) -> VariableRef:
        return self.mgr.lookup_or_create(  # type: ignore[no-any-return]
            self.container, self.key, lambda: VariableRef(self.name, dtype, self.shape)
        )

    def delete(self) -> bool:
        ref = self.mgr.get(self.container, self.key)
        return ref is not None and self.mgr.remove(self.container, self.key, ref)

    def __repr__(self) -> str:
        return f"<VarHandle {self._where()} {getattr(self.dtype, 'name', self.dtype)}>"


def handle_of(value: Any) -> VarHandle:
    if type(value) is VarHandle:  # the usual case, first
        return value
    if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0:
        value = value.item()
    if not isinstance(value, VarHandle):
        raise invalid(f"Expected a resource variable handle, got {type(value).__name__}")
    return value


def _dtype_name(dtype: Any) -> str:
    return str(dtypes.as_dtype(dtype).name)


def _check_read_dtype(
    ref: VariableRef, want: Any, node_name: str, want_np: np.dtype[Any] | None = None
) -> Any:
    """want_np: want's numpy dtype, where the caller has it at hand."""
    value = ref.read(node_name)
    if want_np is None:
        want_np = np.dtype(want.as_numpy_dtype)
    if value.dtype is not want_np and np.dtype(value.dtype) != want_np:
        raise invalid(
            f"Trying to read variable with wrong dtype. Expected {want.name} got "
            f"{_dtype_name(value.dtype)}"
        )
    return value


# ---- handles, reads, assignments -----------------------------------------------------------
@kernel("VarHandleOp", keep_inputs=True)
def var_handle(node: Any, xp: Any) -> Compute:
    a = node.attrs
    container = a.get("container", "") or ""
    name = a.get("shared_name") or node.name
    dtype, shape = a["dtype"], a["shape"]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (VarHandle(ctx.resources, container, name, dtype, shape),)

    return compute


@kernel("ReadVariableOp", keep_inputs=True)
def read_variable(node: Any, xp: Any) -> Compute:
    dtype = node.attrs["dtype"]
    want_np = np.dtype(dtype.as_numpy_dtype)
    name = node.name

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ref = handle_of(ins[0]).read_lookup()
        return (_check_read_dtype(ref, dtype, name, want_np),)

    return compute


@kernel("AssignVariableOp")
def assign_variable(node: Any, xp: Any) -> Compute:
    dtype = node.attrs["dtype"]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        handle, value = handle_of(ins[0]), ins[1]
        got = np.dtype(value.dtype if hasattr(value, "dtype") else np.asarray(value).dtype)
        if got != np.dtype(dtype.as_numpy_dtype):
            raise invalid(
                f"Variable and value dtypes don't match; respectively, {dtype.name} and "
                f"{_dtype_name(got)}"
            )
        ref = handle.lookup_or_create(dtype)
        if ref.dtype != dtype:
            raise invalid(
                f"Trying to assign variable with wrong dtype. Expected {_dtype_name(ref.dtype)} "
                f"got {dtype.name}"
            )
        # A private copy, as Assign makes: no feed or fetched value aliases the variable.
        new = frozen(xp.array(value, dtype=dtype.as_numpy_dtype))
        with ref.lock:
            ref.value = new
            ref.generation += 1
        return ()

    return compute


def _assign_update(fn: Callable[[Any, Any, Any, Any], Any]) -> XpFactory:
    def factory(node: Any, xp: Any) -> Compute:
        name = node.name

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            ref = handle_of(ins[0]).lookup()
            delta = xp.asarray(ins[1])
            with locked([ref]):
                shape = tuple(shape_of(ref.read(name)))
                if tuple(delta.shape) != shape:
                    raise invalid(
                        f"Cannot update variable with shape {shape_str(shape)} using a Tensor "
                        f"with shape {shape_str(delta.shape)}, shapes must be equal."
                    )
                target = in_place.writable_value(xp, ref, name)
                try:
                    fn(xp, target, delta.astype(target.dtype, copy=False), target)
                finally:
                    in_place.done(ref, target)
                    del target
            return ()

        return compute

    return factory


kernel("AssignAddVariableOp")(_assign_update(lambda xp, a, b, out: xp.add(a, b, out=out)))
kernel("AssignSubVariableOp")(_assign_update(lambda xp, a, b, out: xp.subtract(a, b, out=out)))


@kernel("VarIsInitializedOp", keep_inputs=True)
def var_is_initialized(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        try:
            ref = handle_of(ins[0]).lookup()
        except errors.NotFoundError:
            return (np.bool_(False),)
        return (np.bool_(ref.initialized),)

    return compute


# On a GPU too, its output in host memory (TF's HostMemory("output")), as Shape's.
@kernel("VariableShape", keep_inputs=True)
def variable_shape(node: Any, xp: Any) -> Compute:
    out_type = node.attrs.get("out_type", dtypes.int32).as_numpy_dtype
    name = node.name

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ref = handle_of(ins[0]).lookup()
        return (np.asarray(shape_of(ref.read(name)), dtype=out_type),)

    return compute


@kernel("DestroyResourceOp", keep_inputs=True)
def destroy_resource(node: Any, xp: Any) -> Compute:
    ignore = bool(node.attrs.get("ignore_lookup_error", True))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        handle = handle_of(ins[0])
        if not handle.delete() and not ignore:
            handle.lookup()  # raises NotFoundError naming it
        return ()

    return compute


# ---- ref kernels run on the variables handles name -----------------------------------------
def _lookup_for_update(handle: VarHandle) -> VariableRef:
    """TF's optimizer kernels lock their variables first, and a variable that does not exist
    surfaces as an InternalError there."""
    try:
        return handle.lookup()
    except errors.NotFoundError:
        raise errors.InternalError(None, None, "Invalid variable reference.") from None


def on_resources(
    base: XpFactory, num: int, outputs: bool = False, update: bool = False
) -> XpFactory:
    """The resource twin of a ref kernel: its first `num` inputs are handles, looked up and
    passed on as the variables; no outputs unless `outputs` (the ref op's output is the
    variable, which a resource op does not return). update: an optimizer's update (TF's
    error for a missing variable differs)."""
    lookup = _lookup_for_update if update else VarHandle.lookup

    def factory(node: Any, xp: Any) -> Compute:
        inner = base(node, xp)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            refs = [lookup(handle_of(h)) for h in ins[:num]]
            out = inner(ctx, [*refs, *ins[num:]])
            return tuple(out) if outputs else ()

        return compute

    return factory


def _on_value(base: XpFactory) -> XpFactory:
    """A kernel reading the variable's value and running a value kernel on it (gathers)."""

    def factory(node: Any, xp: Any) -> Compute:
        inner = base(node, xp)
        dtype = node.attrs["dtype"]
        name = node.name

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            ref = handle_of(ins[0]).lookup()
            value = _check_read_dtype(ref, dtype, name)
            return tuple(inner(ctx, [value, *ins[1:]]))

        return compute

    return factory


def _gather(node: Any, xp: Any) -> Compute:
    """GatherV2 along the axis after the batch dims (TF's ResourceGather)."""
    inner = array_kernels.gather(node, xp)
    axis = np.int32(int(node.attrs.get("batch_dims", 0)))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return tuple(inner(ctx, [ins[0], ins[1], axis]))

    return compute


kernel("ResourceGather", host=[1])(_on_value(_gather))
kernel("ResourceGatherNd", host=[1])(_on_value(array_kernels.gather_nd))

for _mode in ("update", "add", "sub", "mul", "div", "max", "min"):
    kernel(f"ResourceScatter{_mode.capitalize()}")(
        on_resources(scatter_ops.variable_scatter(_mode, nd=False), 1)
    )
for _mode in ("update", "add", "sub"):
    kernel(f"ResourceScatterNd{_mode.capitalize()}")(
        on_resources(scatter_ops.variable_scatter(_mode, nd=True), 1)
    )
kernel("ResourceCountUpTo", devices=("CPU",))(on_resources(count_up_to.count_up_to, 1, True))


@kernel("ResourceStridedSliceAssign", host=[1, 2, 3])
def resource_strided_slice_assign(node: Any, xp: Any) -> Compute:
    masks = array_kernels.Masks(node.attrs)
    name = node.name

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ref = handle_of(ins[0]).lookup()
        value = xp.asarray(ins[4])
        with locked([ref]):
            shape = tuple(shape_of(ref.read(name)))
            index = array_kernels.strided_index(shape, ins[1], ins[2], ins[3], masks)
            target = in_place.writable_value(xp, ref, name)
            try:
                want = tuple(target[index].shape)
                if want != tuple(value.shape):
                    raise errors.UnimplementedError(
                        None,
                        None,
                        f"sliced l-value shape {shape_str(want)} does not match r-value shape "
                        f"{shape_str(value.shape)}. Automatic broadcasting not yet implemented.",
                    )
                target[index] = value.astype(target.dtype, copy=False)
            finally:
                in_place.done(ref, target)
                del target
        return ()

    return compute


__all__ = ["VAR_TYPE", "VarHandle", "handle_of", "on_resources"]
