"""tf.TensorArray: a per-step array of tensors, written and read by index (TF1's TensorArrayV3).

The array is a resource a TensorArrayV3 op makes every step (kernels/tensor_array.py); every
op on it takes its handle and a float `flow` scalar and returns a new flow, so that the graph
orders the writes before the reads. A TensorArray object is a (handle, flow) pair: `write`
and the other updates return a new object with the same handle and the new flow. As loop
variables of tf.while_loop they travel as their flow (the handle is captured by the body).

All ops on one array are colocated with its handle (their handle input is placed like a
reference input); TF additionally moves the handle next to the first written value, which
here is where the device scope at its creation puts it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.func_graph import builds_v2_control_flow
from tfcluster.framework.graph import (
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.ops import array_ops, math_ops
from tfcluster.ops.op_util import Outputs

_FLOW = (dtypes.float32, TensorShape([]))
_HANDLE = (dtypes.resource, TensorShape([2]))


def _element_shape_attr(attrs: dict[str, Any], key: str = "element_shape") -> TensorShape:
    shape = attrs.get(key)
    return TensorShape(None) if shape is None else as_shape(shape)


def _tensor_array_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    if inputs[0].shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {inputs[0].shape.ndims} (size)")
    return [_HANDLE, _FLOW]


def _read_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(attrs["dtype"], TensorShape(None))]


def _gather_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    indices = inputs[1].shape
    if indices.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {indices.ndims} (indices)")
    return [(attrs["dtype"], TensorShape([None]).concatenate(_element_shape_attr(attrs)))]


def _scatter_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    indices, value = inputs[1].shape, inputs[2].shape
    if indices.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {indices.ndims} (indices)")
    if value.ndims == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0 (value)")
    if indices.ndims == 1 and value.ndims:
        n, m = indices[0].value, value[0].value
        if n is not None and m is not None and n != m:
            raise ValueError(
                f"Dimensions must be equal, but are {m} and {n} for 'TensorArrayScatterV3' "
                f"with input shapes: [2], {_dims(indices)}, {_dims(value)}, []."
            )
    return [_FLOW]


def _dims(shape: TensorShape) -> str:
    if shape.ndims is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _concat_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    rest = _element_shape_attr(attrs, "element_shape_except0")
    return [
        (attrs["dtype"], TensorShape([None]).concatenate(rest)),
        (dtypes.int64, TensorShape([None])),
    ]


def _handle_element_shape(handle: Tensor) -> TensorShape:
    """The element shape TF's shape functions keep with an array's handle: the creating op's
    element_shape, a gradient's forward one (with shape_to_prepend in front)."""
    op = getattr(handle, "op", None)
    if op is None:
        return TensorShape(None)
    if op.type == "TensorArrayV3":
        return _element_shape_attr(op.attrs)
    if op.type == "TensorArrayGradV3":
        return _handle_element_shape(op.inputs[0])
    if op.type == "TensorArrayGradWithShape":
        prepend = tensor_util.constant_value(op.inputs[2])
        if prepend is None:
            return TensorShape(None)
        return TensorShape([int(d) for d in prepend]).concatenate(
            _handle_element_shape(op.inputs[0])
        )
    return TensorShape(None)


def _write_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    known, value = _handle_element_shape(inputs[0]), inputs[2].shape
    if known.ndims is not None and value.ndims is not None:
        if known.ndims != value.ndims:
            raise ValueError(
                f"Shapes must be equal rank, but are {known.ndims} and {value.ndims} for "
                f"'TensorArrayWriteV3' with input shapes: [2], [], {_dims(value)}, []."
            )
        if not known.is_compatible_with(value):
            raise ValueError(
                f"Shapes {_dims(known)} and {_dims(value)} are incompatible for "
                "'TensorArrayWriteV3'"
            )
    return [_FLOW]


def _grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [_HANDLE, _FLOW]


op_def_registry.register("TensorArrayV3", _tensor_array_infer, stateful=True)
# The handle is input 0 of every op below: placed with the array like a reference input.
_ON_HANDLE = [0]
op_def_registry.register("TensorArrayGradV3", _grad_infer, ref_inputs=_ON_HANDLE, stateful=True)
op_def_registry.register("TensorArrayWriteV3", _write_infer, ref_inputs=_ON_HANDLE, stateful=True)
op_def_registry.register("TensorArrayReadV3", _read_infer, ref_inputs=_ON_HANDLE, stateful=True)
op_def_registry.register("TensorArrayGatherV3", _gather_infer, ref_inputs=_ON_HANDLE, stateful=True)
op_def_registry.register(
    "TensorArrayScatterV3", _scatter_infer, ref_inputs=_ON_HANDLE, stateful=True
)
op_def_registry.register("TensorArrayConcatV3", _concat_infer, ref_inputs=_ON_HANDLE, stateful=True)
op_def_registry.register(
    "TensorArraySplitV3", lambda i, a: [_FLOW], ref_inputs=_ON_HANDLE, stateful=True
)
op_def_registry.register(
    "TensorArraySizeV3",
    lambda i, a: [(dtypes.int32, TensorShape([]))],
    ref_inputs=_ON_HANDLE,
    stateful=True,
)
op_def_registry.register(
    "TensorArrayCloseV3", op_def_registry.no_outputs, ref_inputs=_ON_HANDLE, stateful=True
)
# TensorArrayGradWithShape: a gradient array whose elements have shape_to_prepend in front.
op_def_registry.register(
    "TensorArrayGradWithShape", _grad_infer, ref_inputs=_ON_HANDLE, stateful=True
)

# The first two versions, as graphs written before GraphDef versions 16 and 26 have them:
# a string handle (a ref in the first), no flow out of the array's creation or its gradient.
# TensorArrayPack / Unpack are the first Gather / Scatter of every index.
_FIRST_HANDLE = (dtypes.string._as_ref, TensorShape(None))
_SECOND_HANDLE = (dtypes.string, TensorShape([2]))
_SAME_AS_V3 = ("Write", "Read", "Gather", "Scatter", "Concat", "Split", "Size", "Close")


def _pack_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(attrs["dtype"], TensorShape([None]).concatenate(_element_shape_attr(attrs)))]


LEGACY_OP_TYPES: list[str] = []
for _suffix, _handle in (("", _FIRST_HANDLE), ("V2", _SECOND_HANDLE)):

    def _make_infer(inputs: Sequence[Tensor], attrs: dict[str, Any], h: Any = _handle) -> Outputs:
        return [h]

    op_def_registry.register(f"TensorArray{_suffix}", _make_infer, stateful=True)
    op_def_registry.register(
        f"TensorArrayGrad{_suffix}", _make_infer, ref_inputs=_ON_HANDLE, stateful=True
    )
    LEGACY_OP_TYPES += [f"TensorArray{_suffix}", f"TensorArrayGrad{_suffix}"]
    for _op in _SAME_AS_V3:
        _v3 = op_def_registry.lookup(f"TensorArray{_op}V3")
        assert _v3 is not None
        op_def_registry.register(
            f"TensorArray{_op}{_suffix}", _v3.infer, ref_inputs=_ON_HANDLE, stateful=True
        )
        LEGACY_OP_TYPES.append(f"TensorArray{_op}{_suffix}")
op_def_registry.register("TensorArrayPack", _pack_infer, ref_inputs=_ON_HANDLE, stateful=True)
op_def_registry.register(
    "TensorArrayUnpack", lambda i, a: [_FLOW], ref_inputs=_ON_HANDLE, stateful=True
)
LEGACY_OP_TYPES += ["TensorArrayPack", "TensorArrayUnpack"]

OP_TYPES = (
    *LEGACY_OP_TYPES,
    "TensorArrayGradWithShape",
    "TensorArrayV3",
    "TensorArrayGradV3",
    "TensorArrayWriteV3",
    "TensorArrayReadV3",
    "TensorArrayGatherV3",
    "TensorArrayScatterV3",
    "TensorArrayConcatV3",
    "TensorArraySplitV3",
    "TensorArraySizeV3",
    "TensorArrayCloseV3",
)


def _create(op_type: str, inputs: Sequence[Tensor], attrs: dict[str, Any], name: str) -> Operation:
    graph = get_default_graph()
    return graph.create_op(op_type, list(inputs), attrs, name=name)


def _scoped_op(
    op_type: str,
    inputs: Sequence[Any],
    input_names: Sequence[str],
    attrs: dict[str, Any],
    name: str | None,
    dtypes_: Sequence[Any] = (),
) -> Operation:
    """An op named `name` (or its type) whose Python inputs become constants inside its scope,
    as TF's generated op wrappers name them ('TensorArrayReadV3/index')."""
    with name_scope(name, op_type) as scope:
        wanted = list(dtypes_) + [None] * (len(inputs) - len(dtypes_))
        ts = [
            x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=dt, name=n)
            for x, n, dt in zip(inputs, input_names, wanted)
        ]
        return _create(op_type, ts, attrs, scope)


def _int32(x: Any, name: str) -> Any:
    if isinstance(x, Tensor):
        if x.dtype.base_dtype != dtypes.int32:
            raise TypeError(
                f"Input '{name}' of TensorArray op has type {x.dtype.base_dtype.name} that does "
                "not match expected type of int32."
            )
        return x
    return convert_to_tensor(x, dtype=dtypes.int32, name=name)


@contextlib.contextmanager
def _v2_ops(made_by_tf: int | None = None, extra: int = 0) -> Iterator[None]:
    """In a function's graph TF 1.15's TensorArray is a TensorList, whose methods make other
    ops than TensorArrayV3's: there the block counts as `made_by_tf` ops (or as its own plus
    `extra`), so that later op seeds are TF's."""
    graph = get_default_graph()
    if not builds_v2_control_flow(graph):
        yield
        return
    start = graph._op_count()
    yield
    made = graph._op_count() - start
    graph._match_tf1_op_count((made_by_tf if made_by_tf is not None else made + extra) - made)


class TensorArray:
    """Class wrapping dynamic-sized, per-time-step, write-once Tensor arrays (TF1 graph mode)."""

    def __init__(
        self,
        dtype: Any,
        size: Any = None,
        dynamic_size: bool | None = None,
        clear_after_read: bool | None = None,
        tensor_array_name: str | None = None,
        handle: Any = None,
        flow: Any = None,
        infer_shape: bool = True,
        element_shape: Any = None,
        colocate_with_first_write_call: bool = True,
        name: str | None = None,
    ) -> None:
        if handle is not None and tensor_array_name:
            raise ValueError("Cannot construct with both handle and tensor_array_name")
        if handle is not None and not isinstance(handle, Tensor):
            raise TypeError("Handle must be a Tensor")
        if handle is None and size is None:
            raise ValueError("Size must be provided if handle is not provided")
        if handle is not None and size is not None:
            raise ValueError("Cannot provide both a handle and size at the same time")
        if handle is not None and element_shape is not None:
            raise ValueError("Cannot provide both a handle and element_shape at the same time")
        if handle is not None and dynamic_size is not None:
            raise ValueError("Cannot provide both a handle and dynamic_size at the same time")
        if handle is not None and clear_after_read is not None:
            raise ValueError("Cannot provide both a handle and clear_after_read at the same time")
        if clear_after_read is None:
            clear_after_read = True
        self._dynamic_size = bool(dynamic_size)
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._colocate_with_first_write_call = colocate_with_first_write_call
        self._colocate_with: list[Tensor] | None = [] if colocate_with_first_write_call else None
        # Shared (one list) by every TensorArray made from this one, as in TF: a write in a
        # loop body refines the element shape the arrays outside the loop see.
        self._element_shape = [as_shape(element_shape)]
        self._infer_shape = infer_shape
        self._size = size
        with name_scope(
            name, "TensorArray", [x for x in (handle, size, flow) if x is not None]
        ) as scope:
            if handle is not None:
                if flow is None:
                    raise ValueError("flow must not be None if handle is not None.")
                self._handle = handle
                self._flow = flow
                return
            size_t = _int32(size, "size")
            attrs = {
                "dtype": self._dtype,
                "element_shape": self._element_shape[0],
                "dynamic_size": self._dynamic_size,
                "clear_after_read": bool(clear_after_read),
                "identical_element_shapes": bool(infer_shape),
                "tensor_array_name": tensor_array_name or "",
            }
            graph = get_default_graph()
            if builds_v2_control_flow(graph):
                # TF's TensorList: its reserve takes an element shape constant too, and its
                # elements may be read again (no clear_after_read).
                graph._match_tf1_op_count(1)
                attrs["clear_after_read"] = False
            if colocate_with_first_write_call:
                # No device of its own: it joins its first written value (TF's placement).
                with graph.device(None), graph.colocate_with(None, ignore_existing=True):
                    op = _create("TensorArrayV3", [size_t], attrs, scope)
            else:
                op = _create("TensorArrayV3", [size_t], attrs, scope)
            self._handle, self._flow = op.outputs

    # ---- properties -----------------------------------------------------------------------
    @property
    def flow(self) -> Tensor:
        return self._flow

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def handle(self) -> Tensor:
        return self._handle

    @property
    def element_shape(self) -> TensorShape:
        return self._element_shape[0]

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic_size

    def _check_element_shape(self, shape: TensorShape) -> None:
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {self.element_shape} ")
        if self._infer_shape:
            self._element_shape[0] = self.element_shape.merge_with(shape)

    @contextlib.contextmanager
    def _maybe_colocate_with(self, value: Tensor) -> Iterator[None]:
        """Ops writing the array go where its first written value is (TF's placement)."""
        if self._colocate_with is None:
            yield
            return
        if not self._colocate_with:
            self._colocate_with.append(value)
        with colocate_with(self._colocate_with[0]):
            yield

    def _with_flow(self, flow: Tensor) -> TensorArray:
        return build_ta_with_new_flow(self, flow)

    # ---- ops --------------------------------------------------------------------------------
    def identity(self) -> TensorArray:
        return self._with_flow(array_ops.identity(self._flow))

    def grad(self, source: str, flow: Any = None, name: str | None = None) -> TensorArray:
        if flow is None:
            flow = self.flow
        with name_scope(name, "TensorArrayGrad", [self._handle]), colocate_with(self._handle):
            op = _scoped_op(
                "TensorArrayGradV3",
                [self._handle, flow],
                ["handle", "flow_in"],
                {"source": source},
                name,
            )
            g_handle = op.outputs[0]
            with control_dependencies([g_handle]):
                g_flow = array_ops.identity(flow, name="gradient_flow")
            g = TensorArray(
                dtype=self._dtype,
                handle=g_handle,
                flow=g_flow,
                infer_shape=self._infer_shape,
                colocate_with_first_write_call=False,
            )
            g._element_shape = self._element_shape
            return g

    def read(self, index: Any, name: str | None = None) -> Tensor:
        with _v2_ops(extra=1):  # TensorListGetItem's element shape constant
            return self._read(index, name)

    def _read(self, index: Any, name: str | None) -> Tensor:
        op = _scoped_op(
            "TensorArrayReadV3",
            [self._handle, index, self._flow],
            ["handle", "index", "flow_in"],
            {"dtype": self._dtype},
            name,
            [None, dtypes.int32],
        )
        value = op.outputs[0]
        if self._element_shape:
            value.set_shape(self._element_shape[0])
        return value

    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        with name_scope(name, "TensorArrayWrite", [self._handle, index, value]):
            value_t = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            self._check_element_shape(value_t.shape)
            with self._maybe_colocate_with(value_t):
                op = _scoped_op(
                    "TensorArrayWriteV3",
                    [self._handle, index, value_t, self._flow],
                    ["handle", "index", "value", "flow_in"],
                    {"T": value_t.dtype.base_dtype},
                    name,
                    [None, dtypes.int32],
                )
            return self._with_flow(op.outputs[0])

    def stack(self, name: str | None = None) -> Tensor:
        with (
            _v2_ops(made_by_tf=2),  # TensorListStack and its element shape constant
            colocate_with(self._handle),
            name_scope(name, "TensorArrayStack", [self._handle]),
        ):
            return self._gather(math_ops.range(0, self.size()), name=name)

    def gather(self, indices: Any, name: str | None = None) -> Tensor:
        with _v2_ops(extra=1):  # TensorListGather's element shape constant
            return self._gather(indices, name)

    def _gather(self, indices: Any, name: str | None = None) -> Tensor:
        element_shape = self._element_shape[0] if self._element_shape else TensorShape(None)
        op = _scoped_op(
            "TensorArrayGatherV3",
            [self._handle, indices, self._flow],
            ["handle", "indices", "flow_in"],
            {"dtype": self._dtype, "element_shape": element_shape},
            name,
            [None, dtypes.int32],
        )
        value = op.outputs[0]
        if self.element_shape:
            value.set_shape(TensorShape([None]).concatenate(self.element_shape))
        return value

    def concat(self, name: str | None = None) -> Tensor:
        with _v2_ops(extra=2):  # TensorListConcatV2's element shape and leading dims
            return self._concat(name)

    def _concat(self, name: str | None) -> Tensor:
        shape = self.element_shape
        rest = shape[1:] if shape.ndims else TensorShape(None)
        op = _scoped_op(
            "TensorArrayConcatV3",
            [self._handle, self._flow],
            ["handle", "flow_in"],
            {"dtype": self._dtype, "element_shape_except0": rest},
            name,
        )
        value = op.outputs[0]
        if shape:
            value.set_shape(TensorShape([None]).concatenate(shape[1:]))
        return value

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        # TensorListFromTensor and its element shape constant (a converted value aside).
        tf_ops = 2 if isinstance(value, Tensor) or hasattr(value, "_as_graph_element") else 3
        with (
            _v2_ops(made_by_tf=tf_ops),
            name_scope(name, "TensorArrayUnstack", [self._handle, value]),
        ):
            num_elements = array_ops.shape(value)[0]
            return self.scatter(math_ops.range(0, num_elements), value, name=name)

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        with name_scope(name, "TensorArrayScatter", [self._handle, value, indices]):
            value_t = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            if value_t.shape.ndims:
                self._check_element_shape(value_t.shape[1:])
            with self._maybe_colocate_with(value_t):
                op = _scoped_op(
                    "TensorArrayScatterV3",
                    [self._handle, indices, value_t, self._flow],
                    ["handle", "indices", "value", "flow_in"],
                    {"T": value_t.dtype.base_dtype},
                    name,
                    [None, dtypes.int32],
                )
            return self._with_flow(op.outputs[0])

    def split(self, value: Any, lengths: Any, name: str | None = None) -> TensorArray:
        with name_scope(name, "TensorArraySplit", [self._handle, value, lengths]):
            value_t = convert_to_tensor(value, dtype=self._dtype, name="value")
            lengths_64 = math_ops.cast(lengths, dtypes.int64)
            clengths = tensor_util.constant_value(lengths_64)
            if value_t.shape.ndims is not None and clengths is not None:
                c = np.asarray(clengths)
                if c.shape and c.size and c.max() == c.min():
                    self._check_element_shape(
                        TensorShape([int(c[0])]).concatenate(value_t.shape[1:])
                    )
            with self._maybe_colocate_with(value_t):
                op = _scoped_op(
                    "TensorArraySplitV3",
                    [self._handle, value_t, lengths_64, self._flow],
                    ["handle", "value", "lengths", "flow_in"],
                    {"T": self._dtype},
                    name,
                )
            return self._with_flow(op.outputs[0])

    def size(self, name: str | None = None) -> Tensor:
        op = _scoped_op(
            "TensorArraySizeV3", [self._handle, self.flow], ["handle", "flow_in"], {}, name
        )
        return op.outputs[0]

    def close(self, name: str | None = None) -> Operation:
        return _scoped_op("TensorArrayCloseV3", [self._handle], ["handle"], {}, name)

    def __repr__(self) -> str:
        return f"<tf.TensorArray dtype={self._dtype.name} handle={self._handle.name}>"


def build_ta_with_new_flow(old_ta: TensorArray, flow: Tensor) -> TensorArray:
    """The same array (handle, dtype, shape knowledge) at a new point of its flow."""
    new_ta = TensorArray(
        dtype=old_ta.dtype,
        handle=old_ta.handle,
        flow=flow,
        infer_shape=old_ta._infer_shape,
        colocate_with_first_write_call=old_ta._colocate_with_first_write_call,
    )
    new_ta._dynamic_size = old_ta._dynamic_size
    new_ta._colocate_with = old_ta._colocate_with
    new_ta._element_shape = old_ta._element_shape
    return new_ta


__all__ = ["TensorArray"]
