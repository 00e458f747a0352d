"""Sparse updates at work: a step on a big embedding writes its touched rows in place (no copy
of the variable), readers that hold the variable's array never see it change, use_locking
serialises concurrent row updates, and an IndexedSlices behaves as TF's (its parts, fetching
and feeding, conversion, errors)."""

from __future__ import annotations

import threading
import time
import warnings

import numpy as np
import pytest
import tfcluster as tf
from support.traced_memory import traced_peak
from tfcluster.kernels import in_place
from tfcluster.ops import training_ops
from tfcluster.runtime.resources import VariableRef

ROWS, DIM, LOOKED_UP = 100000, 64, 128
VARIABLE_BYTES = ROWS * DIM * 4


def _embedding_step(optimizer: tf.train.Optimizer) -> tuple[tf.Session, tf.Operation, dict]:
    emb = tf.Variable(tf.zeros([ROWS, DIM]), name="emb")
    ids = tf.placeholder(tf.int32, [LOOKED_UP])
    rows = tf.nn.embedding_lookup(emb, ids)
    train = optimizer.minimize(tf.reduce_sum(rows * rows + rows))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    feed = {ids: np.random.default_rng(0).integers(0, ROWS, LOOKED_UP)}
    return sess, train, feed


@pytest.mark.parametrize(
    "make",
    [
        lambda: tf.train.GradientDescentOptimizer(0.1),
        lambda: tf.train.AdagradOptimizer(0.1),
        lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
        lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01),
        lambda: tf.train.RMSPropOptimizer(0.01, centered=True),
    ],
    ids=["gradient_descent", "adagrad", "momentum", "ftrl", "rmsprop"],
)
def test_a_step_on_a_big_embedding_allocates_for_its_rows_not_the_variable(make) -> None:
    sess, train, feed = _embedding_step(make())
    sess.run(train, feed)  # the first step may copy a value assigned by the initializer
    with traced_peak() as peak:
        for _ in range(3):
            sess.run(train, feed)
    assert peak.bytes < VARIABLE_BYTES // 10, f"a step allocated {peak.bytes} bytes at its peak"


def test_the_touched_rows_change_and_the_others_stay() -> None:
    emb = tf.Variable(np.ones((6, 2), np.float32))
    rows = tf.gather(emb, [4, 1, 4])
    train = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(rows))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(emb)
        sess.run(train)
        after = sess.run(emb)
    expected = np.ones((6, 2), np.float32)
    expected[4] -= 1.0  # twice looked up: its two rows add up
    expected[1] -= 0.5
    np.testing.assert_array_equal(after, expected)
    np.testing.assert_array_equal(before, np.ones((6, 2), np.float32))  # still what was fetched


def test_an_array_a_reader_holds_is_never_written() -> None:
    emb = tf.Variable(np.zeros((5, 3), np.float32))
    update = training_ops.sparse_apply_proximal_gradient_descent(
        emb, 1.0, 0.0, 0.0, tf.constant(np.ones((2, 3), np.float32)), tf.constant([0, 3])
    )
    with tf.Session() as sess:
        sess.run(emb.initializer)
        held = sess.run(emb)
        sess.run(update)
        held_again = sess.run(emb)
        sess.run(update)
        final = sess.run(emb)
    np.testing.assert_array_equal(held, np.zeros((5, 3)))
    np.testing.assert_array_equal(held_again[[0, 3]], -np.ones((2, 3)))
    np.testing.assert_array_equal(final[[0, 3]], -2 * np.ones((2, 3)))


def test_a_fetched_array_is_the_callers_own_after_in_place_updates() -> None:
    emb = tf.Variable(np.zeros((4, 2), np.float32))
    accum = tf.Variable(np.ones((4, 2), np.float32))
    grad = tf.constant(np.ones((1, 2), np.float32))
    update = training_ops.sparse_apply_adagrad(emb, accum, 1.0, grad, [2])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(update)  # the variable's array now written in place
        mine = sess.run(emb)
        mine[0, 0] = 7.0
        sess.run(update)
        again = sess.run(emb)
    assert again[0, 0] == 0.0
    assert mine[2, 0] == pytest.approx(-(0.5**0.5)) and again[2, 0] < mine[2, 0]


def test_use_locking_serialises_concurrent_row_updates() -> None:
    emb = tf.Variable(np.zeros((3, 1000), np.float64))
    ones = tf.constant(np.ones((2, 1000), np.float64))
    updates = [
        training_ops.sparse_apply_proximal_gradient_descent(
            emb, -1.0, 0.0, 0.0, ones, [0, 2], use_locking=True
        )
        for _ in range(4)
    ]
    with tf.Session() as sess:
        sess.run(emb.initializer)

        def work(update: tf.Tensor) -> None:
            for _ in range(50):
                sess.run(update.op)

        threads = [threading.Thread(target=work, args=(u,)) for u in updates]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        final = sess.run(emb)
    np.testing.assert_array_equal(final[0], np.full(1000, 200.0))
    np.testing.assert_array_equal(final[1], np.zeros(1000))
    np.testing.assert_array_equal(final[2], np.full(1000, 200.0))


def test_indexed_slices_parts_and_their_session_round_trip() -> None:
    values = tf.placeholder(tf.float32, [None, 2], name="values")
    indices = tf.placeholder(tf.int32, [None], name="indices")
    slices = tf.IndexedSlices(values, indices, tf.constant([3, 2]))
    assert slices.name == "values:0" and slices.op is values.op
    assert slices.dtype == tf.float32 and slices.graph is values.graph
    assert slices.device == values.device
    dense = tf.convert_to_tensor(slices)
    assert dense.op in slices.consumers() and dense.shape.as_list() == [3, 2]
    assert tf.convert_to_tensor_or_indexed_slices(slices) is slices
    with pytest.raises(ValueError, match="requested dtype int32 for Tensor with dtype float32"):
        tf.convert_to_tensor_or_indexed_slices(slices, dtype=tf.int32)
    feed = {values: [[1, 2], [3, 4]], indices: [2, 2]}
    with tf.Session() as sess:
        got = sess.run(slices, feed)
        np.testing.assert_array_equal(sess.run(dense, feed), [[0, 0], [0, 0], [4, 6]])
        fed = sess.run(dense, {slices: ([[5.0, 5.0]], [0], [3, 2])})
        np.testing.assert_array_equal(slices.eval(feed, session=sess).indices, [2, 2])
    assert type(got).__name__ == "IndexedSlicesValue"
    np.testing.assert_array_equal(got.dense_shape, [3, 2])
    np.testing.assert_array_equal(fed, [[5, 5], [0, 0], [0, 0]])


def test_converting_big_or_unknown_indexed_slices_warns_as_tf_does() -> None:
    values = tf.zeros([2, 3])
    big = tf.IndexedSlices(values, tf.constant([0, 1]), tf.constant([10**8, 3]))
    unknown = tf.IndexedSlices(values, tf.constant([0, 1]), tf.placeholder(tf.int32, [2]))
    small = tf.IndexedSlices(values, tf.constant([0, 1]), tf.constant([4, 3]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tf.convert_to_tensor(big)
        tf.convert_to_tensor(unknown)
        tf.convert_to_tensor(small)
    messages = [str(w.message) for w in caught]
    assert messages == [
        "Converting sparse IndexedSlices to a dense Tensor with 300000000 elements. This may "
        "consume a large amount of memory.",
        "Converting sparse IndexedSlices to a dense Tensor of unknown shape. This may consume "
        "a large amount of memory.",
    ]


def test_a_bad_row_number_is_an_invalid_argument_and_changes_nothing() -> None:
    emb = tf.Variable(np.zeros((4, 2), np.float32))
    rows = tf.placeholder(tf.int64, [None])
    update = emb.scatter_sub(tf.IndexedSlices(tf.ones([2, 2]), rows, tf.constant([4, 2])))
    with tf.Session() as sess:
        sess.run(emb.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 4 is not in"):
            sess.run(update, {rows: [0, 4]})
        np.testing.assert_array_equal(sess.run(emb), np.zeros((4, 2)))
        sess.run(update, {rows: [3, 3]})
        np.testing.assert_array_equal(sess.run(emb)[3], [-2.0, -2.0])
    with pytest.raises(TypeError, match="sparse_delta is not IndexedSlices"):
        emb.scatter_add(tf.ones([2, 2]))


def test_gradients_of_embedding_lookups_stay_sparse_through_identity_and_cast() -> None:
    emb = tf.Variable(np.ones((5, 2), np.float64))
    looked = tf.nn.embedding_lookup(tf.cast(tf.identity(emb), tf.float32), [1, 3])
    (grad,) = tf.gradients(tf.reduce_sum(looked), emb)
    assert isinstance(grad, tf.IndexedSlices)
    assert grad.dtype == tf.float64
    with tf.Session() as sess:
        sess.run(emb.initializer)
        value = sess.run(grad)
    np.testing.assert_array_equal(value.indices, [1, 3])
    np.testing.assert_array_equal(value.values, np.ones((2, 2)))


def test_a_fetched_array_is_the_callers_own_after_dense_updates_too() -> None:
    v = tf.Variable(np.zeros(3, np.float32))
    train = tf.train.AdadeltaOptimizer(1.0).minimize(tf.reduce_sum(v * v + v))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        mine = sess.run(v)
        mine[0] = 99.0
        assert sess.run(v)[0] != 99.0


def test_updates_writing_one_array_together_join_it_and_it_freezes_after_the_last() -> None:
    ref = VariableRef("emb", None, None)
    ref.value = np.zeros((4, 2), np.float32)
    ref.value.flags.writeable = False
    first = in_place.writable_value(np, ref, "first")
    second = in_place.writable_value(np, ref, "second")  # first still writing: no copy
    assert second is first and ref.value is first
    first[0] += 1.0
    in_place.done(ref, first)
    second[1] += 1.0  # still writable: the second update is not done yet
    in_place.done(ref, second)
    assert not ref.value.flags.writeable
    np.testing.assert_array_equal(ref.value[:2], np.ones((2, 2)))
    held = ref.value
    third = in_place.writable_value(np, ref, "third")  # a reader holds it now: a copy
    assert third is not held and ref.value is third
    in_place.done(ref, third)


def test_an_update_while_another_steps_lookup_waits_for_its_ids_does_not_copy() -> None:
    """Two workers on one ps, asynchronous: worker 0's step has started on the ps and waits
    for its ids (a py_func on worker 0 holds them back) while worker 1's step updates the
    embedding; the waiting lookup does not hold the embedding's array, so the update writes
    it in place."""
    workers, _ = tf.test.create_local_cluster(2, 1)
    entered, release = threading.Event(), threading.Event()

    def held_back(x: np.ndarray) -> np.ndarray:
        entered.set()
        release.wait(30)
        return x

    sessions, steps, inits = [], [], []
    for i, server in enumerate(workers):
        graph = tf.Graph()
        with (
            graph.as_default(),
            tf.device(
                tf.train.replica_device_setter(ps_tasks=1, worker_device=f"/job:worker/task:{i}")
            ),
        ):
            emb = tf.get_variable("emb", [ROWS, DIM], initializer=tf.zeros_initializer())
            ids = tf.placeholder(tf.int32, [LOOKED_UP])
            looked_up = tf.py_func(held_back, [ids], tf.int32) if i == 0 else ids
            rows = tf.nn.embedding_lookup(emb, tf.reshape(looked_up, [LOOKED_UP]))
            train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(rows * rows))
            inits.append(tf.global_variables_initializer())
        sessions.append(tf.Session(server.target, graph=graph))
        steps.append((train, {ids: np.random.default_rng(i).integers(0, ROWS, LOOKED_UP)}))
    try:
        sessions[0].run(inits[0])
        sessions[1].run(*steps[1])  # the first update may copy the initializer's array
        waiting = threading.Thread(target=sessions[0].run, args=steps[0])
        waiting.start()
        assert entered.wait(30)
        time.sleep(0.2)  # worker 0's step is under way on the ps too
        try:
            with traced_peak() as peak:
                sessions[1].run(*steps[1])
        finally:
            release.set()
            waiting.join(30)
    finally:
        for sess in sessions:
            sess.close()
    assert peak.bytes < VARIABLE_BYTES // 10, f"the update allocated {peak.bytes} bytes at its peak"


def test_an_update_waits_for_a_passing_reader_of_a_big_array_instead_of_copying_it() -> None:
    """Another step's gather holds an embedding's array for a moment: the update waits for it
    to let go (a fraction of what a copy would cost) and writes in place; a reader that keeps
    the array longer gets its snapshot kept, the update copying after the wait."""
    ref = VariableRef("emb", None, None)
    ref.value = np.zeros((1 << 16, 64), np.float32)  # 16 MiB
    ref.value.flags.writeable = False
    passing = [ref.value]
    let_go = threading.Timer(0.002, passing.clear)
    with traced_peak() as peak:
        let_go.start()
        written = in_place.writable_value(np, ref, "update")
    let_go.join()
    assert ref.value is written and peak.bytes < written.nbytes // 10  # in place, no copy
    written[0] += 1.0
    in_place.done(ref, written)

    kept = ref.value
    started = time.monotonic()
    copied = in_place.writable_value(np, ref, "update")
    waited = time.monotonic() - started
    assert copied is not kept and ref.value is copied
    copied[1] += 1.0
    in_place.done(ref, copied)
    assert kept[1].sum() == 0.0 and kept[0].sum() == 64.0  # the reader's snapshot unchanged
    assert waited >= kept.nbytes / 2e9 * 0.9


def test_a_small_array_a_reader_holds_is_copied_at_once() -> None:
    ref = VariableRef("bias", None, None)
    ref.value = np.zeros(1000, np.float32)
    ref.value.flags.writeable = False
    held = ref.value
    started = time.monotonic()
    copied = in_place.writable_value(np, ref, "update")
    assert copied is not held and time.monotonic() - started < 0.005
    in_place.done(ref, copied)
