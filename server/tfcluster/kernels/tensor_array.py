"""Kernels of the TensorArrayV3 ops: the array is a Python object made afresh every step by
TensorArrayV3 and handed from op to op as the value of its resource handle (it lives as long
as the step's values do, as TF's per-step resource does).

Semantics and messages follow TF's tensor_array.h: write-once elements (gradient arrays sum
repeated writes instead), clear_after_read, dynamic growth, an element shape learned from the
first write when `identical_element_shapes`, and zeros for an unwritten element whose shape is
known (a gradient array starts with the shapes of its forward array's elements).
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.kernels.common import host_ints, invalid, scalar_int, shape_of, shape_str
from tfcluster.kernels.registry import CPU_ONLY, kernel

_counter = itertools.count()
_FLOW = np.zeros((), dtype=np.float32)


class _Element:
    __slots__ = ("cleared", "local_copy", "read", "shape", "value", "written")

    def __init__(self) -> None:
        self.value: Any = None
        self.shape: tuple[int, ...] | None = None
        self.written = False
        self.read = False
        self.cleared = False
        self.local_copy = False


class TensorArrayResource:
    """One step's TensorArray: its elements, what is known of their shape, its gradients."""

    def __init__(
        self,
        name: str,
        dtype: dtypes.DType,
        size: int,
        element_shape: TensorShape,
        dynamic_size: bool,
        clear_after_read: bool,
        identical_element_shapes: bool,
        is_grad: bool = False,
    ) -> None:
        self.name = name
        self.dtype = dtype
        self.element_shape = element_shape
        # The element shape as a tuple once it is fully known (the fast check of a write).
        self._known_shape: tuple[int, ...] | None = (
            tuple(int(d) for d in element_shape.as_list())  # type: ignore[arg-type]
            if element_shape.is_fully_defined()
            else None
        )
        self.dynamic_size = dynamic_size
        self.clear_after_read = clear_after_read
        self.identical_element_shapes = identical_element_shapes
        self.is_grad = is_grad
        self.multiple_writes_aggregate = is_grad
        self.elements = [_Element() for _ in range(size)]
        self.closed = False
        self.grads: dict[str, TensorArrayResource] = {}
        self.lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.elements)

    def set_element_shape(self, shape: TensorShape) -> None:
        self.element_shape = shape
        self._known_shape = (
            tuple(int(d) for d in shape.as_list())  # type: ignore[arg-type]
            if shape.is_fully_defined()
            else None
        )

    def check_open(self) -> None:
        if self.closed:
            raise invalid(f"TensorArray {self.name} has already been closed.")

    # ---- writes ----------------------------------------------------------------------------
    def write(self, index: int, value: Any, xp: Any) -> None:
        self.check_open()
        n = len(self.elements)
        if index < 0 or (not self.dynamic_size and index >= n):
            raise invalid(
                f"TensorArray {self.name}: Tried to write to index {index} but array is not "
                f"resizeable and size is: {n}"
            )
        if index >= n:
            self.elements.extend(_Element() for _ in range(index + 1 - n))
        shape = shape_of(value)
        if shape != self._known_shape and not self.element_shape.is_compatible_with(
            TensorShape(shape)
        ):
            raise invalid(
                f"TensorArray {self.name}: Could not write to TensorArray index {index} because "
                f"the value shape is {shape_str(shape)} which is incompatible with the "
                f"TensorArray's inferred element shape: {_partial(self.element_shape)} "
                "(consider setting infer_shape=False)."
            )
        if self.identical_element_shapes and self._known_shape is None:
            self.element_shape = TensorShape(shape)
            self._known_shape = shape
        t = self.elements[index]
        if t.read:
            raise invalid(
                f"TensorArray {self.name}: Could not write to TensorArray index {index} because "
                "it has already been read."
            )
        if t.written and not self.multiple_writes_aggregate:
            raise invalid(
                f"TensorArray {self.name}: Could not write to TensorArray index {index} because "
                "it has already been written to."
            )
        if not t.written:
            t.value, t.shape, t.written = value, shape, True
            return
        if shape != t.shape:
            raise invalid(
                f"TensorArray {self.name}: Could not aggregate to TensorArray index {index} "
                f"because the existing shape is {shape_str(t.shape or ())} but the new input "
                f"shape is {shape_str(shape)}."
            )
        if t.value is None:  # only a shape was known (zeros): the value replaces it
            t.value = value
        elif t.local_copy:
            xp.add(t.value, value, out=t.value)
        else:
            t.value = xp.add(t.value, value)
            t.local_copy = True

    # ---- reads -----------------------------------------------------------------------------
    def read(self, index: int, xp: Any) -> Any:
        self.check_open()
        n = len(self.elements)
        if index < 0 or (not self.is_grad and index >= n):
            raise invalid(f"Tried to read from index {index} but array size is: {n}")
        if index >= n or not self.elements[index].written:
            # Zeros for an element never written, when its shape is known (a gradient array
            # whose forward element got no gradient, or a partly written array).
            known = self.elements[index].shape if index < n else None
            if not (self.is_grad and known):
                if not self.element_shape.is_fully_defined():
                    raise invalid(
                        f"TensorArray {self.name}: Could not read from TensorArray index {index}."
                        "  Furthermore, the element shape is not fully defined: "
                        f"{_partial(self.element_shape)}.  It is possible you are working with a "
                        "resizeable TensorArray and stop_gradients is not allowing the gradients "
                        "to be written.  If you set the full element_shape property on the "
                        "forward TensorArray, the proper all-zeros tensor will be returned "
                        "instead of incurring this error."
                    )
                known = tuple(int(d) for d in self.element_shape.as_list())  # type: ignore[arg-type]
            if index >= n:
                self.elements.extend(_Element() for _ in range(index + 1 - n))
            t = self.elements[index]
            t.shape, t.written = known, True
        t = self.elements[index]
        if t.cleared:
            raise invalid(
                f"TensorArray {self.name}: Could not read index {index} twice because it was "
                "cleared after a previous read (perhaps try setting clear_after_read = false?)."
            )
        value = t.value
        if value is None:
            value = xp.zeros(t.shape, dtype=self.dtype.as_numpy_dtype)
            t.value = value
        if self.clear_after_read:
            t.value, t.cleared = None, True
        t.read = True
        return value

    def read_many(self, indices: list[int], xp: Any) -> list[Any]:
        return [self.read(i, xp) for i in indices]


def _partial(shape: TensorShape) -> str:
    """A partial shape as TF prints it: [2,?] or <unknown>."""
    if shape.ndims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def array_of(value: Any, node_name: str) -> TensorArrayResource:
    """The array behind a handle (InvalidArgumentError naming the node otherwise)."""
    return _array(value, node_name)


def _array(value: Any, node_name: str) -> TensorArrayResource:
    if not isinstance(value, TensorArrayResource):
        raise invalid(f"{node_name}: input 0 is not a TensorArray handle")
    return value


def _check_dtype(ta: TensorArrayResource, want: dtypes.DType, writing: bool) -> None:
    if want is not ta.dtype and want != ta.dtype:
        if writing:
            raise invalid(
                f"TensorArray dtype is {_tf_name(ta.dtype)} but Op is trying to write dtype "
                f"{_tf_name(want)}."
            )
        raise invalid(
            f"TensorArray dtype is {_tf_name(ta.dtype)} but Op requested dtype {_tf_name(want)}."
        )


def _tf_name(dtype: dtypes.DType) -> str:
    """DataTypeString: 'float', 'double', 'half', 'int32', ..."""
    return dtypes.data_type_string(dtype)


def _check_same_shapes(shapes: list[tuple[int, ...]], what: str) -> None:
    first = shapes[0]
    for i, s in enumerate(shapes[1:], 1):
        if s != first:
            raise invalid(
                f"TensorArray has inconsistent shapes.  Index 0 has {what}shape: "
                f"{shape_str(first)} but index {i} has {what}shape: {shape_str(s)}"
            )


# ---- the ops ---------------------------------------------------------------------------------
# On the CPU, as the loops that write and read them in every iteration (while_loop bodies run
# on their op's CPU); values written from a GPU are copied to the host first.


@kernel("TensorArrayV3", devices=CPU_ONLY)
def tensor_array(node: Any, xp: Any) -> Any:
    a = node.attrs
    dtype = dtypes.as_dtype(a["dtype"]).base_dtype
    element_shape = as_shape(a.get("element_shape"))
    dynamic = bool(a.get("dynamic_size", False))
    clear = bool(a.get("clear_after_read", True))
    identical = bool(a.get("identical_element_shapes", False))
    base = a.get("tensor_array_name") or node.name

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        size = scalar_int(ins[0], "size")
        if size < 0:
            raise invalid("Size should be >= 0.")
        name = f"{base}_{next(_counter)}"
        ta = TensorArrayResource(name, dtype, size, element_shape, dynamic, clear, identical)
        return (ta, _FLOW)

    return compute


@kernel("TensorArrayGradV3", devices=CPU_ONLY)
def tensor_array_grad(node: Any, xp: Any) -> Any:
    source = str(node.attrs["source"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        fwd = _array(ins[0], node.name)
        with fwd.lock:
            fwd.check_open()
            grad = fwd.grads.get(source)
            if grad is None:
                # The forward array stops growing once a gradient reads its size.
                fwd.dynamic_size = False
                grad = TensorArrayResource(
                    f"{fwd.name}@{source}",
                    fwd.dtype,
                    len(fwd),
                    fwd.element_shape,
                    False,
                    True,
                    fwd.identical_element_shapes,
                    is_grad=True,
                )
                for g, f in zip(grad.elements, fwd.elements):
                    g.shape = f.shape  # known shapes: unwritten gradients read as zeros
                fwd.grads[source] = grad
        return (grad, _FLOW)

    return compute


@kernel("TensorArrayWriteV3", devices=CPU_ONLY)
def tensor_array_write(node: Any, xp: Any) -> Any:
    dtype = dtypes.as_dtype(node.attrs["T"]).base_dtype

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ta = _array(ins[0], node.name)
        _check_dtype(ta, dtype, writing=True)
        index = scalar_int(ins[1], "index")
        with ta.lock:
            ta.write(index, ins[2], xp)
        return (_FLOW,)

    return compute


@kernel("TensorArrayReadV3", devices=CPU_ONLY)
def tensor_array_read(node: Any, xp: Any) -> Any:
    dtype = dtypes.as_dtype(node.attrs["dtype"]).base_dtype

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ta = _array(ins[0], node.name)
        _check_dtype(ta, dtype, writing=False)
        index = scalar_int(ins[1], "index")
        with ta.lock:
            return (ta.read(index, xp),)

    return compute


@kernel("TensorArrayGatherV3", devices=CPU_ONLY)
def tensor_array_gather(node: Any, xp: Any) -> Any:
    dtype = dtypes.as_dtype(node.attrs["dtype"]).base_dtype
    element_shape = as_shape(node.attrs.get("element_shape"))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ta = _array(ins[0], node.name)
        _check_dtype(ta, dtype, writing=False)
        indices = np.asarray(ins[1])
        if indices.ndim != 1:
            raise invalid(
                f"Expected indices to be a vector, but received shape: {shape_str(indices.shape)}"
            )
        with ta.lock:
            ta.check_open()
            if indices.size == 0:
                shape = ta.element_shape if ta.element_shape.is_fully_defined() else element_shape
                if not shape.is_fully_defined():
                    raise errors.UnimplementedError(
                        None,
                        None,
                        f"TensorArray has size zero, but element shape {_partial(shape)} is not "
                        "fully defined. Currently only static shapes are supported when packing "
                        "zero-size TensorArrays.",
                    )
                dims = [int(d) for d in shape.as_list()]  # type: ignore[arg-type]
                return (xp.zeros([0, *dims], dtype=ta.dtype.as_numpy_dtype),)
            values = ta.read_many(host_ints(indices), xp)
        _check_same_shapes([shape_of(v) for v in values], "")
        return (xp.stack([xp.asarray(v) for v in values]),)

    return compute


@kernel("TensorArrayScatterV3", devices=CPU_ONLY)
def tensor_array_scatter(node: Any, xp: Any) -> Any:
    dtype = dtypes.as_dtype(node.attrs["T"]).base_dtype

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ta = _array(ins[0], node.name)
        _check_dtype(ta, dtype, writing=True)
        indices = np.asarray(ins[1])
        value = ins[2]
        if indices.ndim != 1:
            raise invalid(
                f"Expected indices to be a vector, but received shape: {shape_str(indices.shape)}"
            )
        shape = shape_of(value)
        if len(shape) < 1:
            raise invalid(
                f"Expected value to be at least a vector, but received shape: {shape_str(shape)}"
            )
        if shape[0] != indices.size:
            raise invalid(
                f"Expected len(indices) == values.shape[0], but saw: {indices.size} vs. {shape[0]}"
            )
        idx = host_ints(indices)
        with ta.lock:
            ta.check_open()
            if idx and not ta.dynamic_size and max(idx) >= len(ta):
                raise invalid(f"Max scatter index must be < array size ({max(idx)} vs. {len(ta)})")
            for k, i in enumerate(idx):
                ta.write(i, value[k], xp)
        return (_FLOW,)

    return compute


@kernel("TensorArrayConcatV3", devices=CPU_ONLY)
def tensor_array_concat(node: Any, xp: Any) -> Any:
    dtype = dtypes.as_dtype(node.attrs["dtype"]).base_dtype
    rest = as_shape(node.attrs.get("element_shape_except0"))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ta = _array(ins[0], node.name)
        _check_dtype(ta, dtype, writing=False)
        with ta.lock:
            ta.check_open()
            n = len(ta)
            if n == 0:
                if not rest.is_fully_defined():
                    raise errors.UnimplementedError(
                        None,
                        None,
                        f"TensorArray has size zero, but element_shape_except0 {_partial(rest)} "
                        "is not fully defined. Currently only static shapes are supported when "
                        "concatenating zero-size TensorArrays.",
                    )
                dims = [int(d) for d in rest.as_list()]  # type: ignore[arg-type]
                empty = xp.zeros([0, *dims], dtype=ta.dtype.as_numpy_dtype)
                return (empty, np.zeros([0], dtype=np.int64))
            values = ta.read_many(list(range(n)), xp)
        shapes = [shape_of(v) for v in values]
        for i, s in enumerate(shapes):
            if not s:
                raise invalid(
                    f"Concat saw a scalar shape at index {i} but requires at least vectors.  Did "
                    "you mean to call pack?"
                )
        _check_same_shapes([s[1:] for s in shapes], "(excepting dimension 0) ")
        lengths = np.array([s[0] for s in shapes], dtype=np.int64)
        return (xp.concatenate([xp.asarray(v) for v in values]), lengths)

    return compute


@kernel("TensorArraySplitV3", devices=CPU_ONLY)
def tensor_array_split(node: Any, xp: Any) -> Any:
    dtype = dtypes.as_dtype(node.attrs["T"]).base_dtype

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ta = _array(ins[0], node.name)
        _check_dtype(ta, dtype, writing=True)
        value = ins[1]
        lengths = np.asarray(ins[2])
        if lengths.ndim != 1:
            raise invalid(
                f"Expected lengths to be a vector, received shape: {shape_str(lengths.shape)}"
            )
        shape = shape_of(value)
        if len(shape) < 1:
            raise invalid(
                f"Expected value to be at least a vector, but received shape: {shape_str(shape)}"
            )
        sizes = host_ints(lengths)
        if any(s < 0 for s in sizes):
            raise invalid("Expected lengths to be non-negative")
        if sum(sizes) != shape[0]:
            raise invalid(
                "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is "
                f"{sum(sizes)} and value's shape is: {shape_str(shape)}"
            )
        with ta.lock:
            ta.check_open()
            if not ta.dynamic_size and len(ta) != len(sizes):
                raise invalid(
                    f"TensorArray's size is not equal to the size of lengths ({len(ta)} vs. "
                    f"{len(sizes)}), and the TensorArray is not marked as dynamically resizeable"
                )
            start = 0
            for i, s in enumerate(sizes):
                ta.write(i, value[start : start + s], xp)
                start += s
        return (_FLOW,)

    return compute


@kernel("TensorArraySizeV3", devices=CPU_ONLY)
def tensor_array_size(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ta = _array(ins[0], node.name)
        with ta.lock:
            ta.check_open()
            return (np.array(len(ta), dtype=np.int32),)

    return compute


@kernel("TensorArrayCloseV3", devices=CPU_ONLY)
def tensor_array_close(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ta = _array(ins[0], node.name)
        with ta.lock:
            ta.elements = []
            ta.closed = True
        return ()

    return compute
