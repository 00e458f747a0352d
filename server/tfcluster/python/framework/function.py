"""tensorflow.python.framework.function (`@function.Defun(tf.float32)`): TF1's graph functions.
A Defun-decorated Python function is traced once (per input types, when Defun got none) into
a graph function; each call adds one call of it to the default graph, named after the
function, whose outputs are its results (one tensor, a tuple of them, or the op when there are
none). A python_grad_func (or a grad_func Defun) is the call's gradient, as TF's gradients use
it.

Differences from TF 1.15 (graph structure only, not results): the call is a PartitionedCall op
(TF's op type is the function's name), and a function without func_name is named
`<python name>_<hash>` with a hash of tfcluster's own, not TF's."""

from __future__ import annotations

import hashlib
import inspect
import itertools
from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.framework.type_spec import TensorSpec
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.lib.function.def_function import ConcreteFunction, Function
from tfcluster.ops import function_call_ops
from tfcluster.python._private_module import module_getattr

_grad_ids = itertools.count()

_DTYPE_TO_STR = {
    dtypes.float16: "f16",
    dtypes.float32: "f32",
    dtypes.float64: "f64",
    dtypes.int32: "i32",
    dtypes.uint8: "i8",
    dtypes.uint16: "u16",
    dtypes.uint32: "u32",
    dtypes.uint64: "u64",
    dtypes.int16: "i16",
    dtypes.int8: "i8",
    dtypes.string: "s",
    dtypes.complex64: "c64",
    dtypes.complex128: "c128",
    dtypes.int64: "i64",
    dtypes.bool_: "b",
    dtypes.qint8: "qi8",
    dtypes.quint8: "qu8",
    dtypes.qint16: "qi16",
    dtypes.quint16: "qu16",
    dtypes.qint32: "qi32",
    dtypes.bfloat16: "b16",
}


def _type_list_to_str(types: Sequence[Any]) -> str:
    if any(t not in _DTYPE_TO_STR for t in types):
        raise ValueError(f"Unsupported dtypes: {types}")
    return "".join(_DTYPE_TO_STR[t] for t in types)


class _DefinedFunction:
    """A Python function traced for fixed input types; calling it adds a call op."""

    def __init__(
        self,
        func: Callable[..., Any],
        argnames: Sequence[str],
        input_types: Sequence[Any],
        func_name: str | None = None,
        grad_func: Any = None,
        python_grad_func: Callable[..., Any] | None = None,
        out_names: Sequence[str] | None = None,
        shape_func: Callable[[Operation], Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self._func = func
        self._argnames = list(argnames)
        self._input_types = [dtypes.as_dtype(t) for t in input_types]
        self._func_name = func_name
        self._grad_func = grad_func
        self._python_grad_func = python_grad_func
        self._out_names = out_names
        self._shape_func = shape_func
        self._extra_kwargs = kwargs
        self._concrete: dict[int, ConcreteFunction] = {}
        self._grad_op_type: str | None = None

    @property
    def python_grad_func(self) -> Callable[..., Any] | None:
        return self._python_grad_func

    @property
    def grad_func_name(self) -> str | None:
        return self._grad_func.name if self._grad_func is not None else None

    @property
    def declared_input_types(self) -> tuple[Any, ...]:
        return tuple(self._input_types)

    @property
    def name(self) -> str:
        return self._call_name(self._traced())

    def _traced(self) -> ConcreteFunction:
        graph = get_default_graph()
        concrete = self._concrete.get(id(graph))
        if concrete is None:
            specs = [
                TensorSpec(None, dtype, name=arg)
                for dtype, arg in zip(self._input_types, self._arg_names())
            ]
            fn = Function(
                self._body,
                name=self._func_name or self._func.__name__,
                input_signature=specs,
                autograph=False,
            )
            concrete = fn.get_concrete_function()
            self._concrete[id(graph)] = concrete
        return concrete

    def _arg_names(self) -> list[str]:
        names = list(self._argnames)
        while len(names) < len(self._input_types):
            names.append(f"arg{len(names)}")
        return names[: len(self._input_types)]

    def _body(self, *args: Any) -> Any:
        result = self._func(*args)
        if result is None:
            return []
        if isinstance(result, (list, tuple)):
            return [convert_to_tensor(r) for r in result]
        return [convert_to_tensor(result)]

    def _call_name(self, concrete: ConcreteFunction) -> str:
        if self._func_name is not None:
            return self._func_name
        digest = hashlib.sha1(concrete.graph.as_graph_def().SerializeToString()).hexdigest()
        return f"{self._func.__name__}_{digest[:11]}"

    def _gradient_op_type(self) -> str | None:
        if self._python_grad_func is None and self._grad_func is None:
            return None
        if self._grad_op_type is None:
            self._grad_op_type = f"_DefunGradient_{next(_grad_ids)}"
            python_grad = self._python_grad_func
            grad_defun = self._grad_func

            def gradient(op: Operation, *grads: Any) -> Any:
                if python_grad is not None:
                    return python_grad(op, *grads)
                result = grad_defun(*op.inputs, *grads)
                return result if isinstance(result, tuple) else [result]

            RegisterGradient(self._grad_op_type)(gradient)
        return self._grad_op_type

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = kwargs.pop("name", None)
        if kwargs:
            raise ValueError(f"Unknown keyword arguments: {sorted(kwargs)}")
        concrete = self._traced()
        if len(args) != len(self._input_types):
            raise ValueError(
                f"Expected number of arguments: {len(self._input_types)}, received: {len(args)}"
            )
        inputs = [convert_to_tensor(a) for a in args]
        graph = get_default_graph()
        call_name = name or self._call_name(concrete)
        grad_type = self._gradient_op_type()
        override: dict[str, str] = {}
        if grad_type is not None:
            override = {"PartitionedCall": grad_type, "StatefulPartitionedCall": grad_type}
        with graph.gradient_override_map(override):
            op = function_call_ops.call(
                graph, inputs, concrete._built, concrete.graph.control_captures, name=call_name
            )
        outputs = op.outputs[: len(op.outputs) - concrete._num_exports]
        # TF infers nothing through a Defun's call: its outputs' shapes are unknown, unless
        # shape_func gives them.
        for t in outputs:
            t._shape = TensorShape(None)
        if self._shape_func is not None:
            shapes = self._shape_func(op)
            if len(shapes) != len(outputs):
                raise ValueError(
                    f"shape_func produced {len(shapes)} shapes for {len(outputs)} outputs"
                )
            for t, shape in zip(outputs, shapes):
                t.set_shape(shape)
        if not outputs:
            return op
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


class _OverloadedFunction:
    """A Defun given no input types: traced once per the dtypes it is called with."""

    def __init__(self, func: Callable[..., Any], argnames: Sequence[str], **kwargs: Any) -> None:
        self._func = func
        self._argnames = list(argnames)
        self._kwargs = kwargs
        self._overload: dict[tuple[Any, ...], _DefinedFunction] = {}

    def instantiate(self, input_types: Sequence[Any]) -> _DefinedFunction:
        key = tuple(dtypes.as_dtype(t) for t in input_types)
        defined = self._overload.get(key)
        if defined is None:
            kwargs = dict(self._kwargs)
            func_name = kwargs.pop("func_name", None)
            if func_name is not None:
                func_name = "_".join([func_name, _type_list_to_str(key)])
            defined = _DefinedFunction(
                self._func, self._argnames, key, func_name=func_name, **kwargs
            )
            self._overload[key] = defined
        return defined

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        tensors = []
        for x in args:
            t = convert_to_tensor(x)
            if not isinstance(t, Tensor):
                raise ValueError("Expect a Tensor but get ", t)
            tensors.append(t)
        return self.instantiate([t.dtype for t in tensors])(*tensors, **kwargs)


class Defun:
    """Decorator: `@Defun(*input_types, func_name=, grad_func=, python_grad_func=,
    out_names=, shape_func=)` makes a Python function a graph function."""

    def __init__(self, *input_types: Any, **kwargs: Any) -> None:
        self._input_types = input_types
        self._func_name = kwargs.pop("func_name", None)
        self._grad_func = kwargs.pop("grad_func", None)
        self._python_grad_func = kwargs.pop("python_grad_func", None)
        self._out_names = kwargs.pop("out_names", None)
        self._extra_kwargs = kwargs

    def __call__(self, func: Callable[..., Any]) -> Any:
        if not callable(func):
            raise ValueError(f"function {func} must be callable")
        spec = inspect.getfullargspec(func)
        if spec.varkw or spec.defaults:
            raise ValueError(
                "function with argument defaults or keywords arguments are not"
                f" supported. {func} has defaults {spec.defaults} and keywords {spec.varkw}."
            )
        min_args = len(spec.args)
        max_args = 1000000 if spec.varargs else min_args
        argnames = spec.args
        if inspect.ismethod(func):
            min_args -= 1
            argnames = argnames[1:]
        kwargs = dict(
            func_name=self._func_name,
            grad_func=self._grad_func,
            python_grad_func=self._python_grad_func,
            out_names=self._out_names,
            **self._extra_kwargs,
        )
        if self._input_types:
            num = len(self._input_types)
            if num < min_args or num > max_args:
                raise ValueError(
                    "The function has fewer arguments than the number of specified input types."
                )
            return _DefinedFunction(func, argnames, self._input_types, **kwargs)
        if min_args == 0 and max_args == 0:
            return _DefinedFunction(func, [], [], **kwargs)
        return _OverloadedFunction(func, argnames, **kwargs)


__getattr__ = module_getattr("python.framework.function")

__all__ = ["Defun", "_DefinedFunction", "_OverloadedFunction", "_type_list_to_str"]
