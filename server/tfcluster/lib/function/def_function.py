"""tf.function in graph mode, as TF 1.15 runs it in a TF1 program.

Calling a tf.function traces the Python function (converted by autograph unless
autograph=False) into a function graph, once per input signature: the dtypes and shapes of
its tensor arguments, the values of its Python arguments, the graph it is called in. Each
call then adds one call op to the calling graph (StatefulPartitionedCall when the body has
stateful ops, else PartitionedCall) whose outputs are the function's results.

Variables the function creates are made in the calling graph (TF lifts them out of the
function), on the first trace only: a later trace that creates variables raises ValueError,
as TF's does.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import op_signatures
from tfcluster.framework.converted_code import tracing_converted_function
from tfcluster.framework.func_graph import FuncGraph
from tfcluster.framework.graph import (
    Graph,
    Operation,
    Tensor,
    convert_to_tensor,
    get_default_graph,
    init_scope,
)
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.framework.type_spec import TensorSpec
from tfcluster.ops import array_ops, function_call_ops, nest
from tfcluster.ops.variable_creators import variable_creator_scope
from tfcluster.ops.variables import Variable

_uid = itertools.count(1)


class FunctionGraph(FuncGraph):
    """The graph a tf.function is traced into; variables go to the calling graph."""

    traces_a_function = True

    def __init__(self, name: str, outer_graph: Graph) -> None:
        super().__init__(name, outer_graph)
        self.structured_input_signature: Any = None
        self.structured_outputs: Any = None
        self.outputs: list[Tensor] = []
        self.variables: list[Variable] = []
        self._ref_values: dict[Tensor, Tensor] = {}

    def capture(self, tensor: Tensor) -> Tensor:
        """As TF 1.15's FuncGraph: a captured ref variable enters as its value (a function
        cannot take a reference), so an op updating it inside the function is refused at
        trace time (TypeError), as TF refuses it."""
        if tensor.graph is not self and tensor.dtype.is_ref_dtype:
            value = self._ref_values.get(tensor)
            if value is None:
                outer = self.outer_graph
                with (
                    outer.as_default(),
                    outer.control_dependencies(None),
                    outer.colocate_with(tensor.op),
                ):
                    read = array_ops.identity(tensor, name=tensor.op.name + "/captured")
                value = self._ref_values[tensor] = super().capture(read)
            return value
        return super().capture(tensor)

    def _check_inputs(self, op_type: str, inputs: Sequence[Tensor], attrs: dict[str, Any]) -> None:
        _check_ref_inputs(op_type, inputs, attrs)


def _check_ref_inputs(op_type: str, inputs: Sequence[Tensor], attrs: dict[str, Any]) -> None:
    """TF's op construction check: an input TF's op def declares a reference must be one."""
    sig = op_signatures.lookup(op_type)
    if sig is None:
        return
    want: list[bool] = []
    for arg in sig.inputs:
        count = 1
        if arg.number_attr is not None:
            count = int(attrs.get(arg.number_attr, 1))
        elif arg.type_list_attr is not None:
            count = len(attrs.get(arg.type_list_attr) or ())
        want.extend([arg.is_ref] * count)
    if len(want) != len(inputs):
        return
    if all(t.dtype.is_ref_dtype or not ref for t, ref in zip(inputs, want)):
        return
    got = ", ".join(f"tf.{t.dtype.name}" for t in inputs)
    expected = ", ".join(
        f"tf.{t.dtype.base_dtype.name}_ref" if ref else f"tf.{t.dtype.base_dtype.name}"
        for t, ref in zip(inputs, want)
    )
    raise TypeError(
        f"In op '{op_type}', input types ([{got}]) are not compatible with expected types "
        f"([{expected}])"
    )


class ConcreteFunction:
    """One trace of a function: its graph, and how to call it from the graph it was traced in."""

    def __init__(self, fg: FunctionGraph, outputs: Sequence[Tensor]) -> None:
        self.graph = fg
        self._outputs = list(outputs)
        # Built once: _Retval ops are added to the body then.
        exported = function_call_ops.exported_tensors(fg)
        self._built = function_call_ops.build_function(fg, self._outputs, exported)
        self._num_exports = len(exported)

    @property
    def name(self) -> str:
        return self.graph.name

    def add_to_graph(self, g: Graph | None = None) -> None:
        """Adds the function to `g` (the default graph) under its name, as TF does before a
        raw op names it in a func attr; its arguments are its inputs, then its captures."""
        graph = g if g is not None else get_default_graph()
        body = function_call_ops.without_exports(self._built.func, len(self._outputs))
        graph._add_function_body(self.name, body)

    @property
    def inputs(self) -> list[Tensor]:
        return [*self.graph.inputs, *(inner for _, inner in self.graph.captures)]

    @property
    def outputs(self) -> list[Tensor]:
        return list(self._outputs)

    @property
    def structured_outputs(self) -> Any:
        return self.graph.structured_outputs

    @property
    def structured_input_signature(self) -> Any:
        return self.graph.structured_input_signature

    @property
    def variables(self) -> list[Variable]:
        return list(self.graph.variables)

    @property
    def trainable_variables(self) -> list[Variable]:
        return [v for v in self.graph.variables if v.trainable]

    @property
    def captured_inputs(self) -> list[Tensor]:
        return [outer for outer, _ in self.graph.captures]

    def _call_flat(self, args: Sequence[Tensor]) -> list[Tensor]:
        graph = get_default_graph()
        if graph is not self.graph.outer_graph:
            raise ValueError(
                f"The function {self.name} was traced in another graph; call the tf.function "
                "itself (it traces again for this graph)"
            )
        if len(args) != len(self.graph.inputs):
            raise TypeError(
                f"{self.name} takes {len(self.graph.inputs)} tensor arguments, got {len(args)}"
            )
        inputs = [convert_to_tensor(a) for a in args]
        for a, p in zip(inputs, self.graph.inputs):
            if a.dtype.base_dtype != p.dtype.base_dtype:
                raise ValueError(
                    f"{self.name}: argument {p.op.name} wants {p.dtype.name}, got "
                    f"{a.dtype.base_dtype.name} ({a.name})"
                )
        op = function_call_ops.call(graph, inputs, self._built, self.graph.control_captures)
        return op.outputs[: len(op.outputs) - self._num_exports]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError("A concrete function takes its tensor arguments by position")
        flat = nest.flatten(list(args))
        return self._pack(self._call_flat(flat))

    def _pack(self, results: Sequence[Tensor]) -> Any:
        """The call's results in the traced function's output structure (Python values in it
        are returned as they were)."""
        it = iter(results)
        flat = [next(it) if isinstance(leaf, Tensor) else leaf for leaf in self._structure_leaves()]
        if self.structured_outputs is None:
            return None
        return nest.pack_sequence_as(self.structured_outputs, flat)

    def _structure_leaves(self) -> list[Any]:
        if self.structured_outputs is None:
            return []
        return nest.flatten(self.structured_outputs)


# tf.config.experimental_run_functions_eagerly: a called tf.function runs its Python body in
# the caller's graph instead of tracing it (TF 1.15 checks this on every call, graph or eager).
_RUN_EAGERLY = False


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Whether tf.functions run their Python body where they are called (no function call)."""
    global _RUN_EAGERLY
    _RUN_EAGERLY = bool(run_eagerly)


class Function:
    """A tf.function: a Python function traced into a graph function per input signature."""

    def __init__(
        self,
        python_function: Callable[..., Any],
        name: str | None = None,
        input_signature: Sequence[Any] | None = None,
        autograph: bool = True,
        experimental_autograph_options: Any = None,
        experimental_relax_shapes: bool = False,
    ) -> None:
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self._input_signature = None if input_signature is None else list(input_signature)
        if self._input_signature is not None:
            for spec in nest.flatten(self._input_signature):
                if not isinstance(spec, TensorSpec):
                    raise TypeError(f"input_signature must be a nest of TensorSpec, got {spec!r}")
        self._autograph = autograph
        self._autograph_options = experimental_autograph_options
        self._cache: dict[Any, ConcreteFunction] = {}
        self._relax_shapes = experimental_relax_shapes
        # With experimental_relax_shapes: per signature without shapes, the shapes traced last.
        self._relaxed: dict[Any, list[list[TensorShape]]] = {}
        self._traced_once = False
        self._descriptor_cache: weakref.WeakKeyDictionary[Any, Function] = (
            weakref.WeakKeyDictionary()
        )
        functools.update_wrapper(self, python_function)

    @property
    def python_function(self) -> Callable[..., Any]:
        return self._python_function

    @property
    def input_signature(self) -> Any:
        return self._input_signature

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        """A tf.function on a method: one Function (own traces) per instance."""
        if instance is None:
            return self
        bound = self._descriptor_cache.get(instance)
        if bound is None:
            bound = Function(
                functools.partial(self._python_function, instance),
                self._name,
                self._input_signature,
                self._autograph,
                self._autograph_options,
            )
            self._descriptor_cache[instance] = bound
        return bound

    # ---- calling ---------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _RUN_EAGERLY:
            return self._python_function(*args, **kwargs)
        concrete, tensors = self._concrete_for(args, kwargs)
        return concrete._pack(concrete._call_flat(tensors))

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        if not args and not kwargs and self._input_signature is not None:
            args = tuple(self._input_signature)
        concrete, _ = self._concrete_for(args, kwargs)
        return concrete

    def _concrete_for(
        self, args: Sequence[Any], kwargs: dict[str, Any]
    ) -> tuple[ConcreteFunction, list[Tensor]]:
        graph = get_default_graph()
        structure, leaves = self._canonical_inputs(args, kwargs)
        key_parts: list[Any] = [id(graph)]
        tensors: list[Tensor] = []
        specs: list[TensorSpec | None] = []
        signature = (
            nest.flatten(list(self._input_signature)) if self._input_signature is not None else None
        )
        for i, leaf in enumerate(leaves):
            if isinstance(leaf, Tensor) and signature is not None:
                # The trace sees the signature's shapes, however specific a call's tensors are.
                spec = signature[i]
                key_parts.append(("spec", spec.dtype, _shape_key(spec.shape)))
                tensors.append(leaf)
                specs.append(spec)
            elif isinstance(leaf, TensorSpec):
                key_parts.append(("spec", leaf.dtype, _shape_key(leaf.shape)))
                specs.append(leaf)
            elif isinstance(leaf, Tensor):
                key_parts.append(("tensor", leaf.dtype.base_dtype, _shape_key(leaf.shape)))
                tensors.append(leaf)
                specs.append(TensorSpec(leaf.shape, leaf.dtype.base_dtype))
            else:
                key_parts.append(("python", _python_key(leaf)))
                specs.append(None)
        if self._relax_shapes and signature is None:
            specs, key_parts = self._relax(structure, specs, key_parts)
        key = (repr(_outline(structure)), tuple(key_parts))
        concrete = self._cache.get(key)
        if concrete is None:
            concrete = self._trace(graph, structure, leaves, specs)
            if concrete.variables and len(self._cache) == 0:
                # As TF 1.15: a first trace that made variables is traced again, and that
                # trace must make none (it uses the ones made).
                made = concrete.variables
                concrete = self._trace(graph, structure, leaves, specs)
                concrete.graph.variables = made
            self._cache[key] = concrete
        return concrete, tensors

    def _relax(
        self, structure: Any, specs: list[TensorSpec | None], key_parts: list[Any]
    ) -> tuple[list[TensorSpec | None], list[Any]]:
        """TF's experimental_relax_shapes: a call whose tensor shapes differ from the last
        trace's (same ranks) is traced once with the dimensions that differ unknown, and calls
        that fit those shapes reuse that trace."""
        shapeless = (
            repr(_outline(structure)),
            key_parts[0],
            tuple(
                (p[0], p[1], None if p[2] is None else len(p[2])) if p[0] == "tensor" else p
                for p in key_parts[1:]
            ),
        )
        tensor_specs = [s for s in specs if s is not None]
        exact = [s.shape for s in tensor_specs]
        history = self._relaxed.setdefault(shapeless, [])
        relaxed: list[TensorShape] | None = None
        if any(_same_shapes(h, exact) for h in history):
            return specs, key_parts
        for h in history:
            if _fits(exact, h):  # a relaxed trace takes this call
                relaxed = h
                break
        if relaxed is None:
            if len(history) < 2:
                # As TF 1.15 (whose first trace is its initialization trace): the first two
                # shapes are traced as they are; relaxing starts with the third.
                history.append(exact)
                return specs, key_parts
            relaxed = exact
            for h in history:
                relaxed = [_common_shape(a, b) for a, b in zip(h, relaxed)]
            history.append(relaxed)
        it = iter(relaxed)
        new_specs: list[TensorSpec | None] = [
            None if s is None else TensorSpec(next(it), s.dtype) for s in specs
        ]
        it = iter(relaxed)
        new_parts = [key_parts[0]] + [
            ("tensor", p[1], _shape_key(next(it))) if p[0] == "tensor" else p for p in key_parts[1:]
        ]
        return new_specs, new_parts

    def _canonical_inputs(
        self, args: Sequence[Any], kwargs: dict[str, Any]
    ) -> tuple[Any, list[Any]]:
        """The arguments as [positional, keywords] (defaults applied) and its leaves; with an
        input_signature, [the arguments by the signature's order, {}], tensors converted and
        checked against it."""
        if self._input_signature is not None:
            if kwargs:
                args = tuple(args) + tuple(self._kwargs_in_order(len(args), kwargs))
            if len(args) != len(self._input_signature):
                raise TypeError(
                    f"{self._name} takes {len(self._input_signature)} arguments with its "
                    f"input_signature, got {len(args)}"
                )
            try:
                nest.assert_same_structure(list(self._input_signature), list(args))
            except (ValueError, TypeError) as e:
                raise ValueError(
                    f"Structure of Python function inputs does not match input_signature: {e}"
                ) from None
            leaves: list[Any] = []
            for spec, value in zip(
                nest.flatten(list(self._input_signature)), nest.flatten(list(args))
            ):
                if isinstance(value, TensorSpec):
                    leaves.append(value)
                    continue
                t = convert_to_tensor(value, dtype=spec.dtype)
                if not spec.shape.is_compatible_with(t.shape):
                    raise ValueError(
                        f"Python inputs incompatible with input_signature:\n  inputs: "
                        f"({t}).\n  input_signature: ({spec})"
                    )
                leaves.append(t)
            return [list(self._input_signature), {}], leaves
        try:
            bound = inspect.signature(self._python_function).bind(*args, **kwargs)
        except (TypeError, ValueError) as e:
            if isinstance(e, ValueError):  # no signature (a builtin): positional only
                return [list(args), kwargs], nest.flatten([list(args), kwargs])
            raise TypeError(f"{self._name}(): {e}") from None
        bound.apply_defaults()
        structure = [list(bound.args), dict(bound.kwargs)]
        flat = [_as_input_leaf(x) for x in nest.flatten(structure)]
        return structure, flat

    def _kwargs_in_order(self, start: int, kwargs: dict[str, Any]) -> list[Any]:
        params = list(inspect.signature(self._python_function).parameters)
        out = []
        for name in params[start:]:
            if name in kwargs:
                out.append(kwargs.pop(name))
        if kwargs:
            raise TypeError(f"{self._name}() got unexpected keyword arguments {sorted(kwargs)}")
        return out

    # ---- tracing ---------------------------------------------------------------------------
    def _trace(
        self,
        graph: Graph,
        structure: Any,
        leaves: list[Any],
        specs: list[TensorSpec | None],
    ) -> ConcreteFunction:
        fg = FunctionGraph(f"__inference_{self._name}_{next(_uid)}", graph)
        created: list[Variable] = []
        first = not self._traced_once

        def lift_variable(next_creator: Callable[..., Any], **kw: Any) -> Any:
            if not first:
                raise ValueError(
                    "tf.function-decorated function tried to create variables on non-first call."
                )
            initial = kw.get("initial_value")
            if isinstance(initial, Tensor) and initial.graph is fg:
                kw["initial_value"] = _lift_to_outer(initial, fg)
            with init_scope():
                v = next_creator(**kw)
            created.append(v)
            return v

        names = self._argument_names(structure, leaves)
        python_fn = self._python_function
        if self._autograph:
            from tfcluster.lib.autograph import conversion

            python_fn = conversion.convert(python_fn, recursive=True)
        with fg.as_default(), variable_creator_scope(lift_variable):
            args_leaves = []
            for leaf, spec, name in zip(leaves, specs, names):
                if spec is None:
                    args_leaves.append(leaf)
                else:
                    args_leaves.append(fg.add_arg(spec.dtype, spec.shape, name))
            pos, kw = nest.pack_sequence_as(structure, args_leaves)
            with tracing_converted_function() if self._autograph else contextlib.nullcontext():
                result = python_fn(*pos, **kw)
            flat_out: list[Tensor] = []
            out_leaves = [] if result is None else nest.flatten(result)
            fixed_leaves: list[Any] = []
            for leaf in out_leaves:
                if isinstance(leaf, Variable):
                    leaf = leaf.value()
                if isinstance(leaf, Operation):
                    fg.capture_control(leaf) if leaf.graph is not fg else None
                    fixed_leaves.append(None)
                    continue
                if leaf is None:
                    fixed_leaves.append(None)
                    continue
                # Every other value is returned as a tensor (TF's func_graph converts each).
                try:
                    t = fg.capture(convert_to_tensor(leaf))
                except (ValueError, TypeError):
                    raise TypeError(
                        "To be compatible with tf.contrib.eager.defun, Python functions must "
                        f"return zero or more Tensors; in compilation of {python_fn}, found "
                        f"return value of type {type(leaf)}, which is not a Tensor."
                    ) from None
                flat_out.append(t)
                fixed_leaves.append(t)
            fg.structured_outputs = (
                None if result is None else nest.pack_sequence_as(result, fixed_leaves)
            )
        fg.structured_input_signature = structure
        fg.outputs = flat_out
        fg.variables = created
        self._traced_once = True
        return ConcreteFunction(fg, flat_out)

    def _argument_names(self, structure: Any, leaves: list[Any]) -> list[str]:
        """Names of the function's placeholders: the parameter names (TF's), with _1, _2 ...
        for the parts of a nested argument."""
        try:
            params = list(inspect.signature(self._python_function).parameters)
        except (TypeError, ValueError):
            params = []
        names: list[str] = []
        pos, kw = structure
        parts = [(params[i] if i < len(params) else f"args_{i}", a) for i, a in enumerate(pos)]
        parts += sorted(kw.items())
        for pname, value in parts:
            n = len(nest.flatten(value))
            names += [pname] if n == 1 else [f"{pname}_{k}" for k in range(n)]
        return names if len(names) == len(leaves) else [f"args_{i}" for i in range(len(leaves))]

    def concrete_functions_in(self, graph: Graph) -> list[ConcreteFunction]:
        """The traces made for calls in `graph`, oldest first (what tf.saved_model.save
        writes of the function)."""
        return [c for c in self._cache.values() if c.graph.outer_graph is graph]

    def experimental_get_tracing_count(self) -> int:
        return len(self._cache)

    def _get_tracing_count(self) -> int:
        return len(self._cache)


def _as_input_leaf(x: Any) -> Any:
    """A numpy array is a tensor argument (TF converts it); Python scalars stay Python."""
    if isinstance(x, np.ndarray):
        return convert_to_tensor(x)
    if isinstance(x, Variable):
        return x  # read (or assigned) through a capture: keyed by identity
    return x


def _fits(shapes: list[TensorShape], traced: list[TensorShape]) -> bool:
    return all(t.is_compatible_with(s) for s, t in zip(shapes, traced))


def _same_shapes(a: list[TensorShape], b: list[TensorShape]) -> bool:
    return [_shape_key(x) for x in a] == [_shape_key(x) for x in b]


def _common_shape(a: TensorShape, b: TensorShape) -> TensorShape:
    """The most specific shape both fit (dimensions that differ unknown)."""
    if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])


def _shape_key(shape: TensorShape) -> Any:
    return None if shape.ndims is None else tuple(shape.as_list())


def _python_key(x: Any) -> Any:
    try:
        hash(x)
        return (type(x).__name__, x)
    except TypeError:
        return ("id", id(x))


def _outline(structure: Any) -> Any:
    return nest.map_structure(lambda _: 0, structure)


def _lift_to_outer(t: Tensor, fg: FuncGraph) -> Tensor:
    """Re-creates in the calling graph the ops that make a variable's initial value inside the
    function (it must not read the function's arguments)."""
    made: dict[Tensor, Tensor] = {}

    def lift(x: Tensor) -> Tensor:
        if x.graph is not fg:
            return x
        if x in made:
            return made[x]
        op = x.op
        if op.type in ("_Arg", "_RefArg"):
            for outer, inner in fg.captures:
                if inner is x:
                    made[x] = outer
                    return outer
            raise ValueError(
                f"A variable's initial value in a tf.function must not depend on the "
                f"function's arguments ({x.name})"
            )
        inputs = [lift(i) for i in op.inputs]
        outer_graph = fg.outer_graph
        new = Graph.create_op(outer_graph, op.type, inputs, dict(op.attrs), name=op.name)
        for a, b in zip(op.outputs, new.outputs):
            made[a] = b
        return made[x]

    with init_scope():
        return lift(t)


def function(
    func: Callable[..., Any] | None = None,
    input_signature: Sequence[Any] | None = None,
    autograph: bool = True,
    experimental_autograph_options: Any = None,
    experimental_relax_shapes: bool = False,
    experimental_compile: Any = None,
) -> Any:
    """tf.function: as a decorator (with or without arguments) or called on a function."""

    def decorate(fn: Callable[..., Any]) -> Function:
        return Function(
            fn,
            input_signature=input_signature,
            autograph=autograph,
            experimental_autograph_options=experimental_autograph_options,
            experimental_relax_shapes=experimental_relax_shapes,
        )

    if func is None:
        return decorate
    return decorate(func)


def wrap_function(fn: Callable[..., Any], signature: Sequence[Any], name: str | None = None) -> Any:
    """tf.compat.v1.wrap_function: traces `fn` once for `signature` (TensorSpecs), without
    autograph; calling the result adds a call op to the current graph."""
    f = Function(fn, name=name, input_signature=signature, autograph=False)
    return f.get_concrete_function()


__all__ = ["ConcreteFunction", "Function", "FunctionGraph", "function", "wrap_function"]
