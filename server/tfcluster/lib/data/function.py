"""The functions tf.data transformations take (map_func, predicate, ...), traced into
function graphs (framework/func_graph.py) with one argument per tensor of an input element.

Tensors of the enclosing graph that a function uses are captured: they become inputs of the
dataset op (evaluated when the dataset is made, e.g. when the iterator is initialised), as in
TF 1.x. A tf.Variable used in a function is read then, through its snapshot.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.converted_code import tracing_converted_function
from tfcluster.framework.func_graph import FuncGraph
from tfcluster.framework.graph import Operation, Tensor, get_default_graph
from tfcluster.framework.python37_lines import warn_from_program
from tfcluster.lib.data import structure as st


def _name_of(func: Callable[..., Any]) -> str:
    name = getattr(func, "__name__", type(func).__name__)
    return "".join(c if c.isalnum() or c in "_." else "_" for c in name) or "fn"


def _tf_function_name(func: Any) -> str:
    """TF 1.15's function_utils.get_func_name: a function's name, a bound method's
    Class.method, else str() of the type (a functools.partial's too)."""
    if inspect.isfunction(func):
        return str(func.__name__)
    if inspect.ismethod(func):
        return f"{type(func.__self__).__name__}.{func.__func__.__name__}"
    return str(type(func))


class StructuredFunction:
    """A Python function traced for the elements of `input_structure`.

    Attributes: `function` (the func attr), `captured_inputs` (outer tensors the dataset op
    takes after its own inputs), `control_inputs` (outer ops it must wait for),
    `output_structure` (the Specs of what it returns).
    """

    def __init__(
        self,
        func: Callable[..., Any],
        transformation_name: str,
        input_structure: Any = None,
        input_tensors: Sequence[tuple[dtypes.DType, Any]] | None = None,
        unpack_tuples: bool = True,
    ) -> None:
        if not callable(func):
            # TF 1.15's class and words (its autograph conversion checks the argument).
            raise ValueError("Argument must be callable")
        outer = get_default_graph()
        name = f"{transformation_name.replace('.', '_')}_{_name_of(func)}"
        fg = FuncGraph(name, outer)
        fg.traces_a_function = True
        with fg.as_default():
            if input_tensors is not None:
                # Explicit arguments (e.g. a reduce state) before the element's.
                args = [
                    fg.add_arg(dt, shape, f"args_{i}")
                    for i, (dt, shape) in enumerate(input_tensors)
                ]
                nested: Any = tuple(args)
            else:
                args = [
                    fg.add_arg(dt, shape, f"args_{i}")
                    for i, (dt, shape) in enumerate(st.tensor_list_specs(input_structure))
                ]
                nested = st.from_tensor_list(input_structure, args)
            with tracing_converted_function():
                if unpack_tuples and type(nested) is tuple:
                    ret = func(*nested)
                else:
                    ret = func(nested)
            if ret is None:
                raise ValueError(
                    f"The function passed to {transformation_name} returned None: it must "
                    "return a tensor, a tuple or a dict of them."
                )
            if isinstance(ret, list):
                # A list of tensors is a tuple here, not one stacked tensor (as TF does).
                ret = tuple(ret)
            ret = st.normalize_element(ret)
            flat = [fg.capture(t) if t.graph is not fg else t for t in st.to_tensor_list(ret)]
        self.output_structure = st.structure_of(ret)
        self.input_structure = input_structure if input_tensors is None else None
        self.outer_graph = outer
        refs = [t for t, _ in fg.captures if t.dtype.is_ref_dtype]
        if refs:
            raise ValueError(
                f"The function passed to {transformation_name} uses the variable reference "
                f"{refs[0].name} (e.g. an assign): tf.data functions may read variables but not "
                "update them in tfcluster."
            )
        self.captured_inputs: list[Tensor] = [t for t, _ in fg.captures]
        self.control_inputs: list[Operation] = list(fg.control_captures)
        self.args = list(args)
        self.captured_args = [inner for _, inner in fg.captures]
        self.outputs = flat
        self.function = fg.to_function([*self.args, *self.captured_args], flat)
        self.func_graph = fg
        if outer.seed and fg.seed == outer.seed and fg._seed_used:
            readable = transformation_name.replace(".", "_")[:-2]
            warn_from_program(
                f"Seed {outer.seed} from outer graph might be getting used by function "
                f"{readable}_{_tf_function_name(func)}, if the random op has not been provided "
                "any seed. Explicitly set the seed in the function if this is not the "
                "intended behavior."
            )

    def vectorized(self) -> Any:
        """The func attr of this function's batched form (None: it has none); see
        vectorize.py."""
        from tfcluster.lib.data import vectorize

        if (
            self.input_structure is None
            or self.control_inputs
            or any(s.kind != st.DENSE for s in st.flatten(self.input_structure))
        ):
            return None
        return vectorize.vectorize(self.func_graph, self.args, self.outputs, self.captured_args)

    @property
    def captured_types(self) -> list[dtypes.DType]:
        return [t.dtype.base_dtype for t in self.captured_inputs]
