"""The TF1 graph: Graph, Operation and Tensor, with name/device/control/colocation scopes."""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from tfcluster.framework import (
    device_spec,
    dtypes,
    errors,
    op_def_protos,
    op_def_registry,
    op_traceback,
)
from tfcluster.framework.default_session import session_for
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.protos import op_def_pb2

# graph_io (GraphDef <-> Graph) imports this module: the methods that serialise import it
# when called.

_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\-/>]*$")


class GraphKeys:
    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    VARIABLES = GLOBAL_VARIABLES


class Tensor:
    """One output of an Operation: a symbolic handle to a value computed at run time."""

    # Lets numpy defer to our operator overloads (np.float32(2) * t).
    __array_priority__ = 100
    OVERLOADABLE_OPERATORS: set[str] = set()

    if TYPE_CHECKING:
        # Installed at import time by ops.math_ops (install_operator_overloads); declared here
        # so type checkers know Tensor arithmetic.
        def __add__(self, other: Any) -> Tensor: ...
        def __radd__(self, other: Any) -> Tensor: ...
        def __sub__(self, other: Any) -> Tensor: ...
        def __rsub__(self, other: Any) -> Tensor: ...
        def __mul__(self, other: Any) -> Tensor: ...
        def __rmul__(self, other: Any) -> Tensor: ...
        def __truediv__(self, other: Any) -> Tensor: ...
        def __rtruediv__(self, other: Any) -> Tensor: ...
        def __floordiv__(self, other: Any) -> Tensor: ...
        def __rfloordiv__(self, other: Any) -> Tensor: ...
        def __mod__(self, other: Any) -> Tensor: ...
        def __rmod__(self, other: Any) -> Tensor: ...
        def __pow__(self, other: Any) -> Tensor: ...
        def __rpow__(self, other: Any) -> Tensor: ...
        def __matmul__(self, other: Any) -> Tensor: ...
        def __rmatmul__(self, other: Any) -> Tensor: ...
        def __lt__(self, other: Any) -> Tensor: ...
        def __le__(self, other: Any) -> Tensor: ...
        def __gt__(self, other: Any) -> Tensor: ...
        def __ge__(self, other: Any) -> Tensor: ...
        def __and__(self, other: Any) -> Tensor: ...
        def __rand__(self, other: Any) -> Tensor: ...
        def __or__(self, other: Any) -> Tensor: ...
        def __ror__(self, other: Any) -> Tensor: ...
        def __xor__(self, other: Any) -> Tensor: ...
        def __rxor__(self, other: Any) -> Tensor: ...
        def __neg__(self) -> Tensor: ...
        def __abs__(self) -> Tensor: ...
        def __invert__(self) -> Tensor: ...
        def __getitem__(self, key: Any) -> Tensor: ...

    def __init__(self, op: Operation, value_index: int, dtype: dtypes.DType, shape: TensorShape):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = shape
        self._name = f"{op.name}:{value_index}"

    @property
    def op(self) -> Operation:
        return self._op

    @property
    def value_index(self) -> int:
        return self._value_index

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def graph(self) -> Graph:
        return self._op.graph

    @property
    def name(self) -> str:
        return self._name

    @property
    def device(self) -> str:
        return self._op.device

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape: Any) -> None:
        self._shape = self._shape.merge_with(as_shape(shape))

    def consumers(self) -> list[Operation]:
        return [op for op in self.graph.get_operations() if self in op.inputs]

    def experimental_ref(self) -> Any:
        """A hashable reference comparing by this tensor's identity."""
        from tfcluster.framework.object_identity import Reference

        return Reference(self)

    def eval(self, feed_dict: Any = None, session: Any = None) -> Any:
        sess = session_for(self.graph, session)
        return sess.run(self, feed_dict=feed_dict)

    def _as_graph_element(self) -> Tensor:
        return self

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self._name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self) -> str:
        return (
            f'Tensor("{self._name}"'
            + (f", shape={self._shape}" if self._shape.ndims is not None else "")
            + f", dtype={self._dtype.name}"
            + (f", device={self.device}" if self.device else "")
            + ")"
        )

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __bool__(self) -> bool:
        raise errors.disallowed_in_graph("using a `tf.Tensor` as a Python `bool`")

    def __iter__(self) -> Iterator[Tensor]:
        # A generator, as TF 1.15's: iter(t) succeeds and the first next() raises.
        raise errors.disallowed_in_graph("iterating over `tf.Tensor`")
        yield  # pragma: no cover  (makes this a generator function)

    def __len__(self) -> int:
        raise TypeError(
            f"len is not well defined for symbolic Tensors. ({self.name}) Use tf.shape()."
        )

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        # As TF 1.15: a symbolic tensor has no value to hand numpy, so np.asarray(t) and numpy
        # functions of it (np.reciprocal(t)) fail instead of wrapping it in an object array.
        raise NotImplementedError(
            f"Cannot convert a symbolic Tensor ({self.name}) to a numpy array."
        )


class Operation:
    """A node in the graph: an op type, inputs, attrs, a device and its output Tensors."""

    def __init__(
        self,
        graph: Graph,
        op_type: str,
        name: str,
        inputs: Sequence[Tensor],
        attrs: dict[str, Any],
        outputs: Sequence[tuple[dtypes.DType, TensorShape]],
        control_inputs: Sequence[Operation] = (),
    ) -> None:
        self._graph = graph
        self._type = op_type
        self._name = name
        self._inputs = list(inputs)
        self._attrs = attrs
        self._control_inputs = list(control_inputs)
        self._device = ""
        self._outputs = [Tensor(self, i, dt, sh) for i, (dt, sh) in enumerate(outputs)]
        self._id = graph._next_id()
        self._traceback = op_traceback.capture()

    @property
    def name(self) -> str:
        return self._name

    @property
    def type(self) -> str:
        return self._type

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def inputs(self) -> list[Tensor]:
        return self._inputs

    @property
    def outputs(self) -> list[Tensor]:
        return self._outputs

    @property
    def control_inputs(self) -> list[Operation]:
        return self._control_inputs

    @property
    def device(self) -> str:
        return self._device

    @property
    def attrs(self) -> dict[str, Any]:
        return self._attrs

    @property
    def node_def(self) -> Any:
        from tfcluster.framework import graph_io

        return graph_io.node_def_from_operation(self)

    @property
    def op_def(self) -> op_def_pb2.OpDef | None:
        """TF 1.15's OpDef proto of the op type (None for a type TF has no op for)."""
        return op_def_protos.op_def(self._type)

    @property
    def traceback(self) -> tuple[op_traceback.Frame, ...]:
        """The stack when the op was made, outermost frame first, as TF 1.15 returns it."""
        return op_traceback.convert(self._traceback)

    @property
    def traceback_with_start_lines(self) -> tuple[op_traceback.FrameWithStartLine, ...]:
        """traceback's frames, each with the first line of its function (TF 1.15's
        (filename, lineno, name, line, func_start_lineno))."""
        return op_traceback.convert_with_start_lines(self._traceback)

    def values(self) -> tuple[Tensor, ...]:
        return tuple(self._outputs)

    def _get_attr(self, name: str) -> Any:
        """The attr in tfcluster's own Python form (str, numpy array, TensorShape, ...): what
        the library's gradients and ops read."""
        if name not in self._attrs:
            raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.")
        return self._attrs[name]

    def get_attr(self, name: str) -> Any:
        """The attr as TF 1.15 returns it, decoded from its AttrValue proto: bytes, int,
        float, bool, DType, TensorShapeProto, TensorProto, NameAttrList, or a list of them."""
        from tfcluster.framework import attr_values

        return attr_values.public_value(attr_values.to_proto(self._get_attr(name)))

    def _set_attr(self, name: str, value: Any) -> None:
        self._attrs[name] = value
        self._graph._note_mutation(self)

    def _add_output(self, dtype: dtypes.DType, shape: Any) -> Tensor:
        """A new last output (a while loop whose gradient makes it return more values)."""
        t = Tensor(self, len(self._outputs), dtype, as_shape(shape))
        self._outputs.append(t)
        self._graph._note_mutation(self)
        return t

    def _set_device(self, device: Any) -> None:
        if callable(device) and not isinstance(device, str):
            device = device(self)
        if isinstance(device, device_spec.DeviceSpec):
            device = device.to_string()
        self._device = device_spec.canonical_name(device or "")

    def _add_control_input(self, op: Operation) -> None:
        if op not in self._control_inputs:
            self._control_inputs.append(op)
            self._graph._version += 1

    def _update_input(self, index: int, tensor: Tensor) -> None:
        self._inputs[index] = tensor
        self._graph._version += 1

    def colocation_groups(self) -> list[bytes]:
        groups = [g for g in self._attrs.get("_class", []) if g.startswith(b"loc:@")]
        return groups or [b"loc:@" + self._name.encode()]

    def run(self, feed_dict: Any = None, session: Any = None) -> None:
        sess = session_for(self._graph, session, operation=True)
        sess.run(self, feed_dict=feed_dict)

    def _as_graph_element(self) -> Operation:
        return self

    def __repr__(self) -> str:
        return f"<tf.Operation '{self._name}' type={self._type}>"

    def __str__(self) -> str:
        return str(self.node_def)


class _DeviceScope:
    """One entry of the device stack: a merge function, or None for `tf.device(None)`."""

    __slots__ = ("function",)

    def __init__(self, function: Callable[[Operation], str] | None) -> None:
        self.function = function


def _shape_text(shape: TensorShape) -> str:
    """A static shape as TF's shape inference errors print it: [?,256], or ? when unknown."""
    if shape.ndims is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _device_function(device: Any) -> Callable[[Operation], str] | None:
    if device is None:
        return None
    if isinstance(device, device_spec.DeviceSpec):
        device = device.to_string()
    if isinstance(device, str):
        spec = device_spec.parse(device)

        def merge(op: Operation) -> str:
            current = device_spec.parse(op.device)
            return spec.make_merged_spec(current).to_string()

        return merge
    if callable(device):

        def call(op: Operation) -> str:
            result = device(op)
            if isinstance(result, device_spec.DeviceSpec):
                return result.to_string()
            return result or ""

        return call
    raise TypeError(f"tf.device expects a string, DeviceSpec, function or None, got {device!r}")


class Graph:
    """A dataflow graph. Thread-safe for construction; `finalize()` makes it read-only."""

    # A function's graph (FuncGraph) says True.
    building_function = False

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._nodes_by_name: dict[str, Operation] = {}
        self._nodes_in_order: list[Operation] = []
        self._names_in_use: dict[str, int] = {}
        self._collections: dict[str, list[Any]] = {}
        self._finalized = False
        self._last_id = 0
        # Ops made here that TF1 would not make (see _match_tf1_op_count).
        self._ops_tf1_lacks = 0
        # Bumped on every structural change so sessions know to re-extend.
        self._version = 0
        # Ops changed after they were made, in order: a session that already has one of
        # them sends the whole graph again.
        self._mutations: list[Operation] = []
        self._seed: int | None = None
        self._local = threading.local()
        self._gradient_override_map: dict[str, str] = {}
        self._container = ""

    # ---- thread-local scope stacks -------------------------------------------------
    def _stack(self, name: str) -> list[Any]:
        stack = getattr(self._local, name, None)
        if stack is None:
            stack = []
            setattr(self._local, name, stack)
        return stack

    @property
    def _name_stack(self) -> str:
        return getattr(self._local, "name_stack", "")

    @_name_stack.setter
    def _name_stack(self, value: str) -> None:
        self._local.name_stack = value

    # ---- identity --------------------------------------------------------------------
    def _next_id(self) -> int:
        self._last_id += 1
        return self._last_id

    def _op_count(self) -> int:
        """How many ops TF1 would have made in this graph so far: op seeds derive from it."""
        return self._last_id - self._ops_tf1_lacks

    def _match_tf1_op_count(self, delta: int) -> None:
        """Moves the op count by `delta`: ops TF1 makes here and tfcluster does not (delta > 0:
        the Switch and Merge ops of a v1 cond) or the other way round (delta < 0)."""
        if delta < 0:
            self._ops_tf1_lacks -= delta
        for _ in range(delta):
            self._next_id()

    @property
    def seed(self) -> int | None:
        return self._seed

    @seed.setter
    def seed(self, value: int | None) -> None:
        self._seed = value

    @property
    def version(self) -> int:
        return self._version

    def _note_mutation(self, op: Operation) -> None:
        self._mutations.append(op)
        self._version += 1

    @property
    def finalized(self) -> bool:
        return self._finalized

    def finalize(self) -> None:
        self._finalized = True

    def _unsafe_unfinalize(self) -> None:
        self._finalized = False

    def _check_not_finalized(self) -> None:
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    @contextlib.contextmanager
    def as_default(self) -> Iterator[Graph]:
        _default_graph_stack.append(self)
        try:
            yield self
        finally:
            _default_graph_stack.pop()

    # ---- lookups ---------------------------------------------------------------------
    def get_operations(self) -> list[Operation]:
        return list(self._nodes_in_order)

    def get_operation_by_name(self, name: str) -> Operation:
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        found = self._element_named(name, allow_tensor=False, allow_operation=True)
        assert isinstance(found, Operation)
        return found

    def get_tensor_by_name(self, name: str) -> Tensor:
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        found = self._element_named(name, allow_tensor=True, allow_operation=False)
        assert isinstance(found, Tensor)
        return found

    def _element_named(
        self, name: str, allow_tensor: bool, allow_operation: bool
    ) -> Tensor | Operation:
        """TF 1.15's Graph._as_graph_element_locked for a name, with its messages ("a
        Operation" and all): 'op:i' names a Tensor (i may be negative, as a Python index),
        'op' an Operation."""
        kinds = " or ".join(
            k for k, ok in (("Tensor", allow_tensor), ("Operation", allow_operation)) if ok
        )
        form = ' Tensor names must be of the form "<op_name>:<output_index>".'
        if ":" in name:
            if not allow_tensor:
                raise ValueError(f"Name {name!r} appears to refer to a Tensor, not a {kinds}.")
            # TF's errors are raised while handling the unpacking's, int()'s and the index's
            # (a traceback shows both).
            try:
                op_name, out_n = name.split(":")
                index = int(out_n)
            except ValueError:
                raise ValueError(  # noqa: B904
                    f"The name {name!r} looks a like a Tensor name, but is not a valid one." + form
                )
            op = self._nodes_by_name.get(op_name)
            if op is None:
                raise KeyError(
                    f"The name {name!r} refers to a Tensor which does not exist. "
                    f"The operation, {op_name!r}, does not exist in the graph."
                )
            try:
                return op.outputs[index]
            except IndexError:
                raise KeyError(  # noqa: B904
                    f"The name {name!r} refers to a Tensor which does not exist. The "
                    f"operation, {op_name!r}, exists but only has {len(op.outputs)} outputs."
                )
        if allow_operation:
            try:
                return self._nodes_by_name[name]
            except KeyError:
                raise KeyError(
                    f"The name {name!r} refers to an Operation not in the graph."
                ) from None
        what = (
            "refers to an Operation"
            if name in self._nodes_by_name
            else "looks like an (invalid) Operation name"
        )
        raise ValueError(f"The name {name!r} {what}, not a {kinds}." + form)

    def as_graph_element(
        self, obj: Any, allow_tensor: bool = True, allow_operation: bool = True
    ) -> Tensor | Operation:
        if not (allow_tensor or allow_operation):
            raise ValueError("allow_tensor and allow_operation can't both be False.")
        if hasattr(obj, "_as_graph_element") and not isinstance(obj, type):
            obj = obj._as_graph_element()
        if isinstance(obj, bytes):
            obj = obj.decode()
        if isinstance(obj, str):
            return self._element_named(obj, allow_tensor, allow_operation)
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError(f"Operation {obj} is not an element of this graph.")
            return obj
        types = []
        if allow_tensor:
            types.append("Tensor")
        if allow_operation:
            types.append("Operation")
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {' or '.join(types)}.")

    # ---- naming ----------------------------------------------------------------------
    def get_name_scope(self) -> str:
        return self._name_stack

    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        if self._name_stack:
            name = self._name_stack + "/" + name
        name_key = name.lower()
        i = self._names_in_use.get(name_key, 0)
        if mark_as_used:
            self._names_in_use[name_key] = i + 1
        if i > 0:
            base_name_key = name_key
            while name_key in self._names_in_use:
                name_key = f"{base_name_key}_{i}"
                i += 1
            if mark_as_used:
                self._names_in_use[name_key] = 1
            name = f"{name}_{i - 1}"
        return name

    @contextlib.contextmanager
    def name_scope(self, name: str | None) -> Iterator[str]:
        old_stack = self._name_stack
        if name:
            if isinstance(name, str) and name.endswith("/"):
                new_stack = name[:-1]
            else:
                if old_stack:
                    ok = _VALID_SCOPE_NAME.match(name)
                else:
                    ok = _VALID_OP_NAME.match(name)
                if not ok:
                    raise ValueError(f"'{name}' is not a valid scope name")
                new_stack = self.unique_name(name)
        else:
            new_stack = ""
        self._name_stack = new_stack
        try:
            yield "" if not new_stack else new_stack + "/"
        finally:
            self._name_stack = old_stack

    # ---- devices, control deps, colocation --------------------------------------------
    @contextlib.contextmanager
    def device(self, device_name_or_function: Any) -> Iterator[None]:
        stack = self._stack("device_stack")
        stack.append(_DeviceScope(_device_function(device_name_or_function)))
        try:
            yield
        finally:
            stack.pop()

    def _apply_device_functions(self, op: Operation) -> None:
        for scope in reversed(self._stack("device_stack")):
            if scope.function is None:
                break
            op._set_device(scope.function(op))

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs: Sequence[Any] | None) -> Iterator[None]:
        stack = self._stack("control_stack")
        if control_inputs is None:
            saved = list(stack)
            stack.clear()
            stack.append(("clear", []))
            try:
                yield
            finally:
                stack.clear()
                stack.extend(saved)
            return
        ops = []
        for c in control_inputs:
            if getattr(c, "_is_resource_variable", False) and isinstance(
                getattr(c, "op", None), Operation
            ):
                # As TF: a resource variable (or the variable after an update) is waited
                # for through its op (the handle, or the update), never a read of it.
                c = c.op
            if hasattr(c, "indices") and hasattr(c, "dense_shape") and hasattr(c, "op"):
                c = c.op  # an IndexedSlices: the op of its values, as TF's
            if not getattr(self, "building_function", False):
                # TF's as_graph_element: an op's name is looked up; a tensor or op of another
                # graph is refused (ValueError "... is not an element of this graph.").
                c = self.as_graph_element(c)
            elif hasattr(c, "_as_graph_element") and not isinstance(c, (Tensor, Operation)):
                c = c._as_graph_element()
            if isinstance(c, Tensor):
                c = c.op
            if not isinstance(c, Operation):
                raise TypeError(f"Control input must be Operation or Tensor: {c!r}")
            ops.append(c)
        # The third element: the ops made while this block is open (TF's _seen_nodes).
        stack.append(("add", ops, set()))
        try:
            yield
        finally:
            stack.pop()

    def _active_controllers(self) -> list[tuple[str, list[Operation], set[Operation]]]:
        """The open control_dependencies blocks since the last control_dependencies(None)."""
        frames = self._stack("control_stack")
        start = 0
        for i, frame in enumerate(frames):
            if frame[0] == "clear":
                start = i + 1
        return frames[start:]  # type: ignore[no-any-return]

    def _current_control_dependencies(self, input_ops: Sequence[Operation] = ()) -> list[Operation]:
        """The control inputs of a new op with these input ops. As in TF, a block one of whose
        own ops feeds the new op adds nothing: the op already runs after the block's control
        inputs through that input (reads of a ref variable's Identity alias the variable, so
        they too see what ran before them)."""
        deps: list[Operation] = []
        for _, ops, seen in self._active_controllers():
            if any(op in seen for op in input_ops):
                continue
            for op in ops:
                if op not in deps:
                    deps.append(op)
        return deps

    def _record_under_controllers(self, op: Operation) -> None:
        for _, _, seen in self._active_controllers():
            seen.add(op)

    @contextlib.contextmanager
    def colocate_with(self, op: Any, ignore_existing: bool = False) -> Iterator[None]:
        if op is None:
            saved_colo = list(self._stack("colocation_stack"))
            self._stack("colocation_stack").clear()
            try:
                yield
            finally:
                self._stack("colocation_stack").extend(saved_colo)
            return
        if not isinstance(op, (Tensor, Operation)):
            # As TF's _op_to_colocate_with: a resource variable (anything with a handle
            # tensor) is colocated with through its handle's op, not a read of it.
            handle = getattr(op, "handle", None)
            if isinstance(handle, Tensor) and handle.graph is self:
                op = handle.op
        if hasattr(op, "_as_graph_element") and not isinstance(op, (Tensor, Operation)):
            op = op._as_graph_element()
        if isinstance(op, Tensor):
            op = op.op
        elif not isinstance(op, Operation) and isinstance(getattr(op, "op", None), Operation):
            op = op.op  # a composite (IndexedSlices): the op of its values, as in TF
        if not isinstance(op, Operation):
            raise TypeError(f"colocate_with expects an Operation or Tensor, got {op!r}")
        # Colocation is stronger than device scopes: hide them while it holds (as TF does).
        device_stack = self._stack("device_stack")
        saved_devices = list(device_stack)
        device_stack.clear()
        colo = self._stack("colocation_stack")
        saved = list(colo)
        if ignore_existing:
            colo.clear()
        colo.append(op)
        try:
            yield
        finally:
            colo.clear()
            colo.extend(saved)
            device_stack.extend(saved_devices)

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map: dict[str, str]) -> Iterator[None]:
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    @contextlib.contextmanager
    def _attr_scope(self, attr_map: dict[str, Any]) -> Iterator[None]:
        """Attrs every op made inside gets (None removes one), as TF's Graph._attr_scope: how a
        variable's initializer ops get `_class: loc:@<variable>` before the variable exists."""
        saved = dict(self._attr_scope_map)
        self._attr_scope_map.update(attr_map)
        try:
            yield
        finally:
            self._local.attr_scope_map = saved

    @property
    def _attr_scope_map(self) -> dict[str, Any]:
        scope = getattr(self._local, "attr_scope_map", None)
        if scope is None:
            scope = self._local.attr_scope_map = {}
        return scope  # type: ignore[no-any-return]

    @contextlib.contextmanager
    def container(self, container_name: str) -> Iterator[str]:
        original = self._container
        self._container = container_name
        try:
            yield container_name
        finally:
            self._container = original

    # ---- op creation -----------------------------------------------------------------
    def create_op(
        self,
        op_type: str,
        inputs: Sequence[Tensor],
        attrs: dict[str, Any] | None = None,
        name: str | None = None,
        control_inputs: Sequence[Operation] = (),
    ) -> Operation:
        """Adds an op whose outputs come from the op registry's inference function."""
        self._check_not_finalized()
        op_def = op_def_registry.lookup(op_type)
        if op_def is None:
            raise ValueError(f"No op named {op_type} in defined operations.")
        attrs = dict(attrs or {})
        for key, value in self._attr_scope_map.items():
            if value is None:
                attrs.pop(key, None)
            else:
                attrs[key] = list(value) if isinstance(value, list) else value
        for t in inputs:
            if not isinstance(t, Tensor):
                raise TypeError(f"Inputs of {op_type} must be Tensors, got {t!r}")
            if t.graph is not self:
                # TF names the input against the first input of the graph the op goes to.
                first = next((i for i in inputs if i.graph is self), inputs[0])
                raise ValueError(f"{t} must be from the same graph as {first}.")
        try:
            outputs = op_def.infer(inputs, attrs)
        except op_def_registry.NodeShapeError as e:
            # TF names the node (its name taken, as TF's create_op takes it before the shape
            # function runs), the op type and the input shapes.
            node = name[:-1] if name and name.endswith("/") else self.unique_name(name or op_type)
            shapes = ", ".join(_shape_text(t.shape) for t in inputs)
            raise ValueError(
                f"{e} for '{node}' (op: '{op_type}') with input shapes: {shapes}."
            ) from None
        with self._lock:
            if name and name.endswith("/"):
                # A scope name used as an op name (TF's variable ops): taken verbatim.
                full_name = name[:-1]
            else:
                full_name = self.unique_name(name or op_type)
            if not _VALID_OP_NAME.match(full_name):
                raise ValueError(f"'{full_name}' is not a valid node name")
            input_ops = {t.op for t in inputs}
            deps = self._current_control_dependencies(list(input_ops))
            deps = [d for d in deps if d not in input_ops]
            for c in control_inputs:
                if c not in deps:
                    deps.append(c)
            op = Operation(self, op_type, full_name, inputs, attrs, outputs, deps)
            override = self._gradient_override_map.get(op_type)
            if override is not None:
                # As TF: the op remembers which gradient function the map chose for it.
                attrs["_gradient_op_type"] = override
            if self._container and op_def.stateful and attrs.get("container") == "":
                attrs["container"] = self._container
            self._apply_device_functions(op)
            colo = self._stack("colocation_stack")
            if colo:
                groups: list[bytes] = []
                for c_op in colo:
                    for g in c_op.colocation_groups():
                        if g not in groups:
                            groups.append(g)
                    if c_op.device:
                        op._set_device(c_op.device)
                attrs["_class"] = groups
            self._add_op(op)
            self._record_under_controllers(op)
        return op

    def _add_op(self, op: Operation) -> None:
        if op.name in self._nodes_by_name:
            raise ValueError(f"Duplicate node name in graph: '{op.name}'")
        self._nodes_by_name[op.name] = op
        self._nodes_in_order.append(op)
        self._version += 1

    def _reserve_name(self, name: str) -> None:
        """Marks an imported node's name as used so later ops get fresh names."""
        key = name.lower()
        self._names_in_use[key] = max(self._names_in_use.get(key, 0), 1)
        parts = key.split("/")
        for i in range(1, len(parts)):
            scope = "/".join(parts[:i])
            self._names_in_use[scope] = max(self._names_in_use.get(scope, 0), 1)

    # ---- collections -----------------------------------------------------------------
    def add_to_collection(self, name: str, value: Any) -> None:
        self._check_not_finalized()
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names: Any, value: Any) -> None:
        names = (names,) if isinstance(names, str) else set(names)
        for n in names:
            self.add_to_collection(n, value)

    def get_collection_ref(self, name: str) -> list[Any]:
        return self._collections.setdefault(name, [])

    def get_collection(self, name: str, scope: str | None = None) -> list[Any]:
        items = self._collections.get(name, [])
        if scope is None:
            return list(items)
        pattern = re.compile(scope)
        return [
            item
            for item in items
            if hasattr(item, "name") and isinstance(item.name, str) and pattern.match(item.name)
        ]

    def get_all_collection_keys(self) -> list[str]:
        return [k for k in self._collections if isinstance(k, str)]

    @property
    def collections(self) -> list[Any]:
        """Every collection's key, in the order the collections were made (TF's list)."""
        return list(self._collections)

    # ---- functions added by name (tf.raw_ops func attrs, ConcreteFunction.add_to_graph) -----
    def _add_function_body(self, name: str, func: Any) -> None:
        """Registers a function body (a func attr value) under `name` in this graph."""
        self.__dict__.setdefault("_function_bodies", {})[name] = func

    def _function_body(self, name: str) -> Any:
        """The body added under `name` here or in an enclosing graph, or None."""
        graph: Any = self
        while graph is not None:
            found = graph.__dict__.get("_function_bodies", {}).get(name)
            if found is not None:
                return found
            graph = getattr(graph, "outer_graph", None)
        return None

    def _keep_library_functions(self, library: Any) -> None:
        """Library functions an imported GraphDef had that no node calls (FunctionDefs as TF
        wrote them): the graph keeps them and writes them out again, as TF does."""
        kept = self.__dict__.get("_kept_library")
        if kept is None:
            kept = self.__dict__["_kept_library"] = type(library)()
        have = {f.signature.name for f in kept.function}
        kept.function.extend(f for f in library.function if f.signature.name not in have)
        pairs = {(g.function_name, g.gradient_func) for g in kept.gradient}
        kept.gradient.extend(
            g for g in library.gradient if (g.function_name, g.gradient_func) not in pairs
        )

    def clear_collection(self, name: str) -> None:
        self._collections.pop(name, None)

    # ---- serialisation ---------------------------------------------------------------
    def as_graph_def(self, from_version: int | None = None, add_shapes: bool = False) -> Any:
        from tfcluster.framework import function_library, graph_io

        # As TF writes it: function bodies in the library, attrs TF lacks under "_tfcluster_".
        return function_library.to_library_form(
            graph_io.graph_to_graph_def(self, add_shapes=add_shapes),
            in_place=True,
            bodies=self.__dict__.get("_function_bodies"),
            kept=self.__dict__.get("_kept_library"),
            v1_loops=True,
        )

    @property
    def graph_def_versions(self) -> Any:
        return self.as_graph_def().versions

    # Tensors and ops a session refuses to feed or fetch (TF's prevent_feeding/fetching):
    # kept in the instance dict, made on first use, empty for nearly every graph.
    def prevent_feeding(self, tensor: Any) -> None:
        self.__dict__.setdefault("_unfeedable_tensors", set()).add(tensor)

    def prevent_fetching(self, op: Any) -> None:
        self.__dict__.setdefault("_unfetchable_ops", set()).add(op)

    def is_fetchable(self, tensor_or_op: Any) -> bool:
        op = tensor_or_op.op if isinstance(tensor_or_op, Tensor) else tensor_or_op
        return op not in self.__dict__.get("_unfetchable_ops", ())

    def is_feedable(self, tensor: Any) -> bool:
        return tensor not in self.__dict__.get("_unfeedable_tensors", ())


class _DefaultGraphStack(threading.local):
    """Per thread, as in TF: `with g.as_default()` in one thread leaves the others alone
    (between-graph replicas may build their graphs in threads of one process)."""

    def __init__(self) -> None:
        self.stack: list[Graph] = []

    def append(self, graph: Graph) -> None:
        self.stack.append(graph)

    def pop(self) -> Graph:
        return self.stack.pop()

    def __getitem__(self, index: int) -> Graph:
        return self.stack[index]

    def __bool__(self) -> bool:
        return bool(self.stack)


_default_graph_stack = _DefaultGraphStack()
_global_default_graph: Graph | None = None


def get_default_graph() -> Graph:
    global _global_default_graph
    if _default_graph_stack:
        return _default_graph_stack[-1]
    if _global_default_graph is None:
        _global_default_graph = Graph()
    return _global_default_graph


def reset_default_graph() -> None:
    global _global_default_graph
    if _default_graph_stack:
        raise AssertionError(
            "Do not use tf.reset_default_graph() to clear nested graphs. If you need a "
            "cleared graph, exit the nesting and create a new graph."
        )
    _global_default_graph = Graph()


# Conversion of Python values and objects (Variables) to Tensors --------------------------
_conversion_functions: list[tuple[type, Callable[..., Tensor]]] = []
# The fallback for values no registered type claims: ops.constant_op installs tf.constant
# here (TF registers it for `object` at the lowest priority), so the floor needs no ops.
_default_conversion: Callable[..., Tensor] | None = None


def register_tensor_conversion_function(
    base_type: type, conversion_func: Callable[..., Tensor], priority: int = 100
) -> None:
    _conversion_functions.append((base_type, conversion_func))


def register_default_conversion_function(conversion_func: Callable[..., Tensor]) -> None:
    """Sets `conversion_func(value, dtype=, name=)` as what makes Python/numpy values Tensors."""
    global _default_conversion
    _default_conversion = conversion_func


def convert_to_tensor(
    value: Any,
    dtype: Any = None,
    name: str | None = None,
    preferred_dtype: Any = None,
    dtype_hint: Any = None,
    *,
    as_ref: bool = False,
) -> Tensor:
    """Returns `value` as a Tensor of `dtype`, making a Const for Python and numpy values.
    TF 1.15's parameters (dtype_hint the newer name of preferred_dtype); as_ref is internal."""
    if dtype_hint is not None:
        if preferred_dtype is not None:
            raise ValueError("Cannot specify both 'dtype_hint' and 'preferred_dtype'")
        preferred_dtype = dtype_hint
    want = dtypes.as_dtype(dtype) if dtype is not None else None
    if isinstance(value, Tensor):
        if want is not None and not want.is_compatible_with(value.dtype):
            raise ValueError(
                f"Tensor conversion requested dtype {want.name} for Tensor with dtype "
                f"{value.dtype.name}: {value!r}"
            )
        return value
    for base_type, func in _conversion_functions:
        if isinstance(value, base_type):
            result = None
            if want is None and preferred_dtype is not None:
                # As TF: the preferred dtype first, the function's own choice if it refuses.
                try:
                    result = func(value, dtype=preferred_dtype, name=name, as_ref=as_ref)
                except (TypeError, ValueError):
                    result = None
            if result is None:
                result = func(value, dtype=want, name=name, as_ref=as_ref)
            if result is NotImplemented:  # e.g. a list without tensors: a plain constant
                continue
            if want is not None and not want.is_compatible_with(result.dtype):
                raise ValueError(
                    f"Tensor conversion requested dtype {want.name} for Tensor with dtype "
                    f"{result.dtype.name}: {result!r}"
                )
            return result
    if isinstance(value, Operation):
        raise TypeError(f"Can't convert Operation '{value.name}' to Tensor (target dtype={want})")
    if _default_conversion is None:
        raise RuntimeError(
            "No conversion of Python values to Tensors is registered yet: "
            "tfcluster.ops.constant_op registers tf.constant when it is imported."
        )
    if want is None and preferred_dtype is not None:
        try:
            return _default_conversion(value, dtype=preferred_dtype, name=name or "Const")
        except (TypeError, ValueError):
            pass
    return _default_conversion(value, dtype=want, name=name or "Const")


def convert_n_to_tensor(values: Sequence[Any], dtype: Any = None) -> list[Tensor]:
    return [convert_to_tensor(v, dtype=dtype) for v in values]


def is_tensor_like(value: Any) -> bool:
    if isinstance(value, (list, tuple)):  # convertible by autopacking, but not tensors
        return False
    return isinstance(value, Tensor) or any(isinstance(value, t) for t, _ in _conversion_functions)


@contextlib.contextmanager
def name_scope(
    name: str | None, default_name: str | None = None, values: Any = None
) -> Iterator[str]:
    """tf.name_scope: picks the graph from `values` when given, else the default graph."""
    g = _building_function_graph()
    for v in () if g is not None else values or ():
        if isinstance(v, (Tensor, Operation)):
            g = v.graph
            break
        if hasattr(v, "graph") and isinstance(getattr(v, "graph", None), Graph):
            g = v.graph
            break
    g = g or get_default_graph()
    n = name if name is not None else default_name
    # As TF: the values' graph becomes the default inside, so constants made there join it.
    default = g.as_default() if g is not get_default_graph() else contextlib.nullcontext()
    with default, g.name_scope(n) as scope:
        yield scope


@contextlib.contextmanager
def op_scope(values: Any, name: str | None, default_name: str | None = None) -> Iterator[str]:
    """TF1's deprecated tf.op_scope: name_scope with the arguments in another order."""
    logging.getLogger("tensorflow").warning(
        "tf.op_scope(values, name, default_name) is deprecated, use "
        "tf.name_scope(name, default_name, values)"
    )
    with name_scope(name, default_name=default_name, values=values) as scope:
        yield scope


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """tf.init_scope: where variables and their initializers are made. Control dependencies are
    cleared, a function body being built (tf.cond/tf.while_loop) is left for the graph it
    belongs to, and the current name scope is kept."""
    g = get_default_graph()
    scope = g.get_name_scope()
    outer = g
    while getattr(outer, "building_function", False):
        parent = getattr(outer, "outer_graph", None)
        if not isinstance(parent, Graph):
            break
        outer = parent
    default = outer.as_default() if outer is not g else contextlib.nullcontext()
    with (
        default,
        outer.name_scope(scope + "/" if scope else None),
        outer.control_dependencies(None),
    ):
        yield


def device(device_name_or_function: Any) -> Any:
    return get_default_graph().device(device_name_or_function)


def control_dependencies(control_inputs: Sequence[Any] | None) -> Any:
    return get_default_graph().control_dependencies(control_inputs)


def colocate_with(op: Any, ignore_existing: bool = False) -> Any:
    return get_default_graph().colocate_with(op, ignore_existing)


def container(container_name: str) -> Any:
    return get_default_graph().container(container_name)


def add_to_collection(name: str, value: Any) -> None:
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names: Any, value: Any) -> None:
    get_default_graph().add_to_collections(names, value)


def get_collection(key: str, scope: str | None = None) -> list[Any]:
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key: str) -> list[Any]:
    return get_default_graph().get_collection_ref(key)


def _building_function_graph() -> Graph | None:
    """The default graph when it is a function body (tf.cond/tf.while_loop): ops go there."""
    g = get_default_graph()
    return g if getattr(g, "building_function", False) else None


def get_graph_from_inputs(values: Sequence[Any]) -> Graph:
    fg = _building_function_graph()
    if fg is not None:
        return fg
    for v in values:
        if isinstance(v, (Tensor, Operation)):
            return v.graph
        g = getattr(v, "graph", None)
        if isinstance(g, Graph):
            return g
    return get_default_graph()


def set_random_seed(seed: int | None) -> None:
    get_default_graph().seed = seed


DEFAULT_GRAPH_SEED = 87654321


_MAXINT32 = 2**31 - 1


def get_seed(op_seed: int | None) -> tuple[int | None, int | None]:
    """TF1's seed rules: a graph seed alone derives op seeds from the op count; seeds are
    taken modulo 2**31 - 1, and (0, 0) (which would mean "nondeterministic") is moved."""
    graph = get_default_graph()
    graph_seed = graph.seed
    seeds: tuple[int | None, int | None]
    if graph_seed is not None:
        if op_seed is None:
            if hasattr(graph, "_seed_used"):
                graph._seed_used = True
            op_seed = graph._op_count()
        seeds = int(graph_seed) % _MAXINT32, int(op_seed) % _MAXINT32
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32
    else:
        seeds = None, None
    if seeds == (0, 0):
        return 0, _MAXINT32
    return seeds
