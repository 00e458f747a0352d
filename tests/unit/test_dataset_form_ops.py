"""TF 1.15's remaining dataset raw ops (Experimental* spellings of the transformations
taking functions, ParseExampleDataset, AssertNextDataset, GeneratorDataset,
ChooseFastestBranchDataset, FilterByLastComponentDataset) compute what TF 1.15 recorded
(tests/tf_reference/record_dataset_form_ops.py) and raise its error classes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.dataset_form_ops_cases import CASES
from tfcluster.api import raw_ops

AREA = "dataset_form_ops"
# TF 1.15 registers ExperimentalMapDataset and FilterByLastComponentDataset for GPUs only
# (its CPU graph fails with "No OpKernel"): their values are compared with TF's same
# computation through the plain ops.
_NO_CPU_KERNEL_IN_TF = "No OpKernel was registered"


def _assert_same(got: Any, want: Any) -> None:
    if isinstance(want, dict):
        assert sorted(got) == sorted(want)
        for k in want:
            _assert_same(got[k], want[k])
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), (got, want)
        for a, b in zip(got, want):
            _assert_same(a, b)
    elif isinstance(want, str):
        assert got == want
    else:
        reference.assert_close(np.asarray(got), want)


def _run(name: str) -> dict[str, Any]:
    with tf.Graph().as_default():
        return CASES[name](tf)  # type: ignore[no-any-return]


def _lacks_cpu_kernel_in_tf(result: Any) -> bool:
    return isinstance(result, list) and len(result) == 2 and _NO_CPU_KERNEL_IN_TF in str(result[1])


_DIRECT = sorted(set(CASES) - {"experimental_function_forms", "filter_by_last_component"})


@pytest.mark.parametrize("name", _DIRECT)
def test_dataset_raw_op_matches_tf(name: str) -> None:
    _assert_same(_run(name), reference.case(AREA, name))


def test_experimental_function_forms_compute_what_tf_does() -> None:
    got = _run("experimental_function_forms")
    want = reference.case(AREA, "experimental_function_forms")
    _assert_same(got["plain"], want["plain"])
    no_cpu_kernel = set()
    for key, elements in want["elements"].items():
        if _lacks_cpu_kernel_in_tf(elements):
            no_cpu_kernel.add(key.split("/")[0])
            _assert_same(got["elements"][key], want["plain"][key])
        else:
            _assert_same(got["elements"][key], elements)
    assert no_cpu_kernel == {"ExperimentalMapDataset"}


def test_filter_by_last_component_keeps_elements_whose_last_component_is_true() -> None:
    got = _run("filter_by_last_component")
    want = reference.case(AREA, "filter_by_last_component")
    assert _lacks_cpu_kernel_in_tf(want["elements"])
    _assert_same(got["elements"], want["through_filter"])
    _assert_same(got["through_filter"], want["through_filter"])


def test_filter_by_last_component_rejects_a_last_component_that_is_not_bool() -> None:
    with tf.Graph().as_default():
        values = tf.raw_ops.TensorSliceDataset(
            components=[tf.constant([1, 2], tf.int64), tf.constant([3, 4], tf.int64)],
            output_shapes=[[], []],
        )
        kept = tf.raw_ops.FilterByLastComponentDataset(
            input_dataset=values, output_types=[tf.int64], output_shapes=[[]]
        )
        it = tf.raw_ops.IteratorV2(
            shared_name="", container="", output_types=[tf.int64], output_shapes=[[]]
        )
        init = tf.raw_ops.MakeIterator(dataset=kept, iterator=it)
        nxt = tf.raw_ops.IteratorGetNext(iterator=it, output_types=[tf.int64], output_shapes=[[]])
        with tf.Session() as sess:
            sess.run(init)
            with pytest.raises(tf.errors.InvalidArgumentError, match="must be a bool"):
                sess.run(nxt)


def test_dataset_form_ops_count_as_implemented() -> None:
    done = raw_ops.implemented_ops()
    for op in (
        "ExperimentalMapDataset",
        "ExperimentalMapAndBatchDataset",
        "ExperimentalParallelInterleaveDataset",
        "ExperimentalGroupByReducerDataset",
        "ExperimentalGroupByWindowDataset",
        "ExperimentalScanDataset",
        "ExperimentalTakeWhileDataset",
        "ExperimentalParseExampleDataset",
        "ParseExampleDataset",
        "ExperimentalAssertNextDataset",
        "AssertNextDataset",
        "GeneratorDataset",
        "ChooseFastestBranchDataset",
        "FilterByLastComponentDataset",
    ):
        assert op in done, op


@pytest.mark.parametrize("name", sorted(CASES))
def test_dataset_form_graph_exports_for_tf(name: str) -> None:
    from support.tf115_graph_check import graph_def_problems

    with tf.Graph().as_default() as g:
        CASES[name](tf)
        gd = g.as_graph_def()
    assert graph_def_problems(gd) == []


def test_group_by_reducer_builds_the_op_type_tf_builds() -> None:
    # TF 1.15's tf.data.experimental.group_by_reducer makes ExperimentalGroupByReducerDataset
    # (recorded: tests/tf_reference/data/dataset_form_graphs.json, group_by_reducer).
    want = reference.case("dataset_form_graphs", "group_by_reducer")["op_types"]
    assert "ExperimentalGroupByReducerDataset" in want
    with tf.Graph().as_default() as g:
        reducer = tf.data.experimental.Reducer(
            init_func=lambda key: tf.constant(0, tf.int64),
            reduce_func=lambda state, v: state + v * v,
            finalize_func=lambda state: state * 10,
        )
        ds = tf.data.Dataset.range(10).apply(
            tf.data.experimental.group_by_reducer(lambda v: v % 3, reducer)
        )
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        assert "ExperimentalGroupByReducerDataset" in {op.type for op in g.get_operations()}
        with tf.Session() as sess:
            assert sorted(sess.run(nxt) for _ in range(3)) == [660, 930, 1260]


def test_generator_dropped_before_its_end_runs_finalize_once() -> None:
    with tf.Graph().as_default():
        counter = tf.Variable(tf.constant(0, tf.int64), use_resource=True, name="finalized")
        i64 = tf.TensorSpec([], tf.int64)

        @tf.function
        def init(x: Any) -> Any:
            return x

        @tf.function
        def next_fn(state: Any) -> Any:
            return state

        @tf.function
        def finalize(state: Any, handle: Any) -> Any:
            added = tf.raw_ops.AssignAddVariableOp(resource=handle, value=state)
            with tf.control_dependencies([added]):
                return tf.identity(state)

        made = tf.raw_ops.GeneratorDataset(
            init_func_other_args=[tf.constant(5, tf.int64)],
            next_func_other_args=[],
            finalize_func_other_args=[counter.handle],
            init_func=init.get_concrete_function(i64),
            next_func=next_fn.get_concrete_function(i64),
            finalize_func=finalize.get_concrete_function(i64, tf.TensorSpec([], tf.resource)),
            output_types=[tf.int64],
            output_shapes=[[]],
        )
        handle = tf.raw_ops.IteratorV2(
            shared_name="", container="", output_types=[tf.int64], output_shapes=[[]]
        )
        init_op = tf.raw_ops.MakeIterator(dataset=made, iterator=handle)
        (nxt,) = tf.raw_ops.IteratorGetNext(
            iterator=handle, output_types=[tf.int64], output_shapes=[[]]
        )
        with tf.Session() as sess:
            sess.run(counter.initializer)
            sess.run(init_op)
            assert sess.run(nxt) == 5
            sess.run(init_op)  # the first iterator is dropped: its finalize_func runs
            assert sess.run(counter.read_value()) == 5
