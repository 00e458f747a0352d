"""tf.raw_ops that TF 1.15's CPU build defines without any kernel (the TPU ops, the MKL-only
fused quantized ops) build as in TF 1.15 (output dtypes and static shapes from TF's shape
functions, attrs after defaults, the shape functions' errors) and running one fails as in TF
1.15: InvalidArgumentError, "No OpKernel was registered to support Op ...", for every step of
the graph (tests/tf_reference/record_no_kernel_ops.py)."""

from __future__ import annotations

from typing import Any

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.no_kernel_op_cases import CASES, describe

AREA = "no_kernel_ops"

# TF 1.15's shape function makes a negative dimension (-1 * split_count for an unknown concat
# dimension) that TF's Python only refuses when the shape is read; tfcluster's shapes cannot
# hold one, so building the op raises TF's ValueError at once.
NEGATIVE_DIMENSION = {"AllToAll_unknown_dims"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_without_kernels_builds_and_fails_to_run_as_tf(name: str) -> None:
    got = describe(tf, CASES[name])
    want: dict[str, Any] = reference.case(AREA, name)
    if name in NEGATIVE_DIMENSION:
        (shape_error,) = [shape for _, shape in want["outputs"]]
        assert got == {"build_error": shape_error}
        return
    assert got == want


def test_no_kernel_error_names_the_node_and_its_line() -> None:
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.quint8, [2])
        relu = tf.raw_ops.QuantizedReluX(
            features=x, max_value=6.0, min_features=0.0, max_features=1.0, name="my/relu"
        )
        with tf.compat.v1.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(relu[0])
    message = info.value.message
    first = message.split("\n")[0]
    assert first.startswith(
        "No OpKernel was registered to support Op 'QuantizedReluX' used by node my/relu "
        "(defined at "
    )
    assert "test_no_kernel_raw_ops.py:" in first
    assert first.endswith(") with these attrs: [Tinput=DT_QUINT8, out_type=DT_QUINT8]")
    assert message.endswith(
        "Registered devices: [CPU, XLA_CPU]\nRegistered kernels:\n  <no registered kernels>\n"
        "\n\t [[my/relu]]"
    )
    assert info.value.op is None and info.value.node_def is None


def test_a_graph_without_the_op_still_runs() -> None:
    with tf.Graph().as_default():
        tf.raw_ops.ShutdownDistributedTPU()
    with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
        assert sess.run(tf.constant(2)) == 2
