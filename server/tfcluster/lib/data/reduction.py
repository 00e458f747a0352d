"""Dataset.reduce and tf.data.experimental.get_single_element: a whole dataset read in one
step, by one op."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.framework.graph import name_scope
from tfcluster.lib.data import structure as st
from tfcluster.lib.data.dataset import Dataset
from tfcluster.lib.data.function import StructuredFunction
from tfcluster.ops import dataset_ops


def reduce(dataset: Dataset, initial_state: Any, reduce_func: Callable[..., Any]) -> Any:
    if not callable(reduce_func):
        raise ValueError("Argument must be callable")  # TF 1.15's words, before anything is made
    with name_scope("initial_state"):
        state = st.normalize_element(initial_state)
    state_structure = st.structure_of(state)
    if any(s.kind != st.DENSE for s in st.flatten(state_structure)):
        raise TypeError("Dataset.reduce: the state must be made of dense tensors")
    state_specs = st.tensor_list_specs(state_structure)
    # reduce_func(state, element): the state's tensors, then the element's.
    n_state = len(state_specs)
    element_specs = st.tensor_list_specs(dataset._structure)

    def body(*args: Any) -> Any:
        s = st.from_tensor_list(state_structure, args[:n_state])
        e = st.from_tensor_list(dataset._structure, args[n_state:])
        return reduce_func(s, e)

    fn = StructuredFunction(body, "Dataset.reduce()", input_tensors=[*state_specs, *element_specs])
    out = fn.output_structure
    if not st.same_structure(out, state_structure):
        raise TypeError(
            "The element types for the new state must match the initial state. Expected "
            f"{st.output_types(state_structure)}; got {st.output_types(out)}."
        )
    for a, b in zip(st.flatten(out), st.flatten(state_structure)):
        if a.dtype != b.dtype:
            raise TypeError(
                "The element types for the new state must match the initial state. Expected "
                f"{st.output_types(state_structure)}; got {st.output_types(out)}."
            )
    result_structure = st.pack_as(
        state_structure,
        [
            st.Spec(a.kind, a.dtype, st.most_specific_compatible(a.shape, b.shape))
            for a, b in zip(st.flatten(out), st.flatten(state_structure))
        ],
    )
    attrs = {
        **st.op_attrs(result_structure),
        "f": fn.function,
        "Tstate": [dt for dt, _ in state_specs],
        "Targuments": fn.captured_types,
        "use_inter_op_parallelism": True,
    }
    inputs = [dataset._variant_tensor, *st.to_tensor_list(state), *fn.captured_inputs]
    op = dataset_ops.create("ReduceDataset", inputs, attrs, control_inputs=fn.control_inputs)
    return st.from_tensor_list(result_structure, list(op.outputs))


def get_single_element(dataset: Dataset) -> Any:
    """The only element of `dataset` (InvalidArgumentError if it has none or several)."""
    if not isinstance(dataset, Dataset):
        raise TypeError("`dataset` must be a `tf.data.Dataset` object.")
    op = dataset_ops.create(
        "DatasetToSingleElement", [dataset._variant_tensor], st.op_attrs(dataset._structure)
    )
    return st.from_tensor_list(dataset._structure, list(op.outputs))
