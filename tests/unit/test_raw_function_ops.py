"""tf.raw_ops taking functions (If, While, PartitionedCall, MapDataset, ...) accept concrete
functions as TF 1.15's raw ops do, and compute what TF 1.15 recorded
(tests/tf_reference/record_raw_function_ops.py)."""

from __future__ import annotations

from typing import Any

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.raw_function_ops_cases import CASES, unknown_function_name
from tfcluster.api import raw_ops

AREA = "raw_function_ops"


@pytest.mark.parametrize("name", sorted(CASES))
def test_raw_op_with_concrete_functions_matches_tf(name: str) -> None:
    with tf.Graph().as_default():
        got = CASES[name](tf)
    want = reference.case(AREA, name)
    assert sorted(got) == sorted(want)
    for key in want:
        reference.assert_nested_close(got[key], want[key])


def test_func_attr_naming_no_function_raises_tf_error_class() -> None:
    with tf.Graph().as_default():
        got = unknown_function_name(tf)
    assert got == reference.case(AREA, "unknown_function_name")["error_class"]


def test_func_attr_takes_a_name_added_to_the_graph() -> None:
    with tf.Graph().as_default() as g:

        @tf.function
        def double(x: Any) -> Any:
            return x * 2.0

        concrete = double.get_concrete_function(tf.TensorSpec([], tf.float32))
        concrete.add_to_graph(g)
        (y,) = tf.raw_ops.PartitionedCall(
            args=[tf.constant(3.0)], Tout=[tf.float32], f=concrete.name
        )
        with tf.Session() as sess:
            assert sess.run(y) == 6.0


def test_ops_taking_functions_count_as_implemented() -> None:
    done = raw_ops.implemented_ops()
    for op in ("If", "While", "Case", "PartitionedCall", "MapDataset", "ReduceDataset"):
        assert op in done
    # TF 1.15's CPU build has no kernel for it: it builds, and running it fails as in TF
    # (tests/unit/test_no_kernel_raw_ops.py).
    assert "TPUPartitionedCall" in done


@pytest.mark.parametrize("name", sorted(CASES))
def test_raw_op_graph_exports_for_tf(name: str) -> None:
    from support.tf115_graph_check import graph_def_problems

    with tf.Graph().as_default() as g:
        CASES[name](tf)
        gd = g.as_graph_def()
    assert graph_def_problems(gd) == []
    assert len(gd.library.function) >= 1
