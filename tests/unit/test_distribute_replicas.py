"""What TF's recorded programs do not reach: replica threads that fail or disagree, the
default strategy outside every scope, and names that say they are not implemented."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import tfcluster as tf


def _two() -> object:
    return tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def test_an_error_in_one_replica_is_raised_and_no_replica_thread_is_left() -> None:
    # Threads other tests left may end meanwhile: only new threads count.
    before = set(threading.enumerate())
    s = _two()

    def fn() -> object:
        ctx = tf.distribute.get_replica_context()
        if ctx._local_index == 1:
            raise KeyError("replica one fails")
        return ctx.merge_call(lambda strategy: 1.0)

    with pytest.raises(KeyError, match="replica one fails"):
        s.experimental_run_v2(fn)
    assert [t for t in threading.enumerate() if t not in before] == []


def test_replicas_calling_merge_call_a_different_number_of_times_are_refused() -> None:
    s = _two()

    def fn() -> object:
        ctx = tf.distribute.get_replica_context()
        if ctx._local_index == 0:
            ctx.merge_call(lambda strategy: None)
        return tf.constant(1.0)

    with pytest.raises(RuntimeError, match="different number of replica_context"):
        s.experimental_run_v2(fn)


def test_replica_threads_build_under_their_own_name_scope_and_device() -> None:
    s = _two()
    with tf.name_scope("outer"):
        out = s.experimental_run_v2(lambda: tf.identity(tf.constant(1.0), name="x"))
    names = [t.name for t in s.experimental_local_results(out)]
    devices = [t.device for t in s.experimental_local_results(out)]
    assert names == ["outer/x:0", "outer/replica_1/x:0"]
    assert devices == [
        "/replica:0/task:0/device:CPU:0",
        "/replica:0/task:0/device:CPU:1",
    ]


def test_the_default_strategy_runs_the_function_once_and_reduces_to_the_value_itself() -> None:
    strategy = tf.distribute.get_strategy()
    assert not tf.distribute.has_strategy()
    assert strategy.num_replicas_in_sync == 1
    x = tf.constant([1.0, 2.0])
    assert strategy.experimental_run_v2(lambda v: v * 2.0, args=(x,)).op.type == "Mul"
    assert strategy.reduce("SUM", x) is x
    with pytest.raises(RuntimeError, match="worker_devices"):
        _ = strategy.extended.worker_devices
    ctx = tf.distribute.get_replica_context()
    assert ctx.merge_call(lambda st, a: a + 1, args=(1,)) == 2


def test_mirrored_variables_are_updated_on_every_copy_by_extended_update() -> None:
    s = _two()
    with s.scope():
        v = tf.Variable([1.0, 2.0], name="v")
        update = s.extended.update(
            v, lambda var, d: tf.assign_add(var, d), args=(tf.constant([1.0, 1.0]),)
        )
    config = tf.ConfigProto(allow_soft_placement=True)
    with tf.Session(config=config) as sess:
        sess.run(v.initializer)
        sess.run(s.experimental_local_results(update))
        copies = sess.run(list(s.experimental_local_results(v)))
    np.testing.assert_array_equal(copies, [[2.0, 3.0], [2.0, 3.0]])


def test_steps_on_iterator_say_they_are_not_implemented() -> None:
    s = _two()
    with pytest.raises(tf.errors.UnimplementedError, match="experimental_run_steps_on_iterator"):
        s.extended.experimental_run_steps_on_iterator(lambda ctx, x: x, None)
    with pytest.raises(tf.errors.UnimplementedError, match="TPUStrategy"):
        tf.distribute.experimental.TPUStrategy()


def test_input_context_and_replication_mode() -> None:
    ctx = tf.distribute.InputContext(2, 1, 4)
    assert (ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync) == (2, 1, 4)
    assert ctx.get_per_replica_batch_size(8) == 2
    with pytest.raises(ValueError, match="not divisible"):
        ctx.get_per_replica_batch_size(6)
    s = _two()
    with pytest.raises(ValueError, match="replication mode"):
        s.make_input_fn_iterator(lambda c: None, replication_mode="PER_REPLICA")


def test_keras_compile_under_several_replicas_says_it_is_not_implemented() -> None:
    s = _two()
    with s.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
        with pytest.raises(tf.errors.UnimplementedError, match="several replicas"):
            model.compile("sgd", "mse")
