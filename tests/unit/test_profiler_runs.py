"""tf.profiler beyond the static counts: a step's RunMetadata (time view), the Profiler
class over steps, op logs written for the tfprof tool, advice, file output, and the views
it does not have."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tfcluster as tf


def _model() -> tuple[object, object]:
    x = tf.placeholder(tf.float32, [16, 8], name="x")
    with tf.variable_scope("dense"):
        w = tf.get_variable("w", [8, 4])
        y = tf.matmul(x, w)
    return x, tf.reduce_sum(y)


def test_run_metadata_gives_run_counts_and_times() -> None:
    with tf.Graph().as_default() as g:
        x, loss = _model()
        meta = tf.RunMetadata()
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(
                loss,
                {x: np.ones((16, 8), np.float32)},
                options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                run_metadata=meta,
            )
        opts = (
            tf.profiler.ProfileOptionBuilder(tf.profiler.ProfileOptionBuilder.time_and_memory(0, 0))
            .select(["micros", "occurrence"])
            .with_empty_output()
            .build()
        )
        prof = tf.profiler.Profiler(g)
        prof.add_step(1, meta)
        res = prof.profile_name_scope(opts)
        assert res.total_run_count >= 2  # MatMul and Sum at least
        by_op = prof.profile_operations(
            tf.profiler.ProfileOptionBuilder(tf.profiler.ProfileOptionBuilder.float_operation())
            .with_empty_output()
            .build()
        )
        # MatMul, Sum, and the initializer's random_uniform (mul, sub, add).
        assert by_op.total_float_ops == 16 * 4 * 8 * 2 + (16 * 4 - 1) + (32 + 1 + 32)
        with pytest.raises(tf.errors.InvalidArgumentError):
            prof.profile_name_scope(dict(opts, step=7))
        advice = prof.advise({"ExpensiveOperationChecker": {}})  # TF 1.15 requires options
        assert "ExpensiveOperationChecker" in advice.checkers


def test_op_log_and_file_output(tmp_path: object) -> None:
    with tf.Graph().as_default() as g:
        _model()
        tf.profiler.write_op_log(g, str(tmp_path))
        with open(os.path.join(str(tmp_path), "tfprof_log"), "rb") as f:
            log = tf.profiler.OpLogProto.FromString(f.read())
        entries = {e.name: e for e in log.log_entries}
        assert list(entries["dense/w"].types) == ["_trainable_variables"]
        assert entries["dense/MatMul"].float_ops == 16 * 4 * 8 * 2
        out = os.path.join(str(tmp_path), "report.txt")
        opts = (
            tf.profiler.ProfileOptionBuilder(
                tf.profiler.ProfileOptionBuilder.trainable_variables_parameter()
            )
            .with_file_output(out)
            .build()
        )
        tf.profiler.profile(g, options=opts)
        with open(out) as f:
            assert "dense/w (8x4, 32/32 params)" in f.read()


def test_the_code_view_says_it_is_not_there() -> None:
    with tf.Graph().as_default() as g:
        _model()
        with pytest.raises(tf.errors.UnimplementedError, match="code view"):
            tf.profiler.profile(g, cmd="code")
