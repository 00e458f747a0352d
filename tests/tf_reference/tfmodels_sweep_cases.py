"""Behaviours public TF1 RL programs (dennybritz's reinforcement-learning, awjuliani's
DeepRL-Agents) showed apart on tfcluster: TF 1.15's CPU kernels take float32 square roots of
whole AVX packets with Eigen's fast-math psqrt / prsqrt (the CPU's rsqrtps estimate and one
Newton step), not correctly rounded; Adam, RMSProp, Adagrad and Adadelta divide by (or
multiply with) such roots, so an actor-critic's table-lookup estimators drifted an ulp from
TF's after their first Adam step, and its episodes apart after a few hundred. Which values take
the exact root (the last size % 8 of an expression; of each shard, in Adam's parallelFor) is
TF's too.

Each case is `fn(tf) -> dict of plain values` (float32 results as their bit patterns), run on
TF 1.15 by record_tfmodels_sweep.py and on tfcluster by
tests/unit/test_tfmodels_sweep_behaviours.py. Every session uses two intra-op threads (Adam's
shards depend on the pool's size). The rsqrtps estimate is the CPU's: recorded on the AMD EPYC
whose table tfcluster carries (tools/record_rsqrtps_table.py). Python 3.7 code."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
import time
import warnings

import numpy as np

_CONFIG = {"intra_op_parallelism_threads": 2}


def _bits(values):
    return [np.asarray(v, np.float32).view(np.int32).tolist() for v in values]


def _session(tf):
    return tf.Session(config=tf.ConfigProto(**_CONFIG))


_SPECIALS = [0.0, -0.0, np.inf, -1.0, 1e-40, 1.17549435e-38, 2.3e-38, 3.4e38, 9e37, 1e38]
_SPECIALS += [np.nan, 1.0, 4.0, 2.0, 0.25, 1e-45, -np.inf, 3.0]


def _root_inputs():
    """Values over the whole float range, special values inside whole packets, and sizes with
    (and without) a tail outside the packets."""
    rs = np.random.RandomState(11)
    wide = np.exp(rs.uniform(-87.0, 88.0, 1200)).astype(np.float32)
    near_one = rs.uniform(0.0, 10.0, 1200).astype(np.float32)
    first = np.concatenate([np.array(_SPECIALS, np.float32), wide, near_one, wide[:5]])
    return [first, near_one[:7], near_one[:9], wide[:8]]


def float32_roots(tf):
    """tf.sqrt and tf.math.rsqrt of float32 tensors: Eigen's fast-math packets (NaN for +inf,
    0 / inf below FLT_MIN, the Newton step's subnormals flushed), std::sqrt on the tail."""
    tf.reset_default_graph()
    feed, roots = {}, []
    for x in _root_inputs():
        p = tf.placeholder(tf.float32, x.shape)
        feed[p] = x
        roots += [tf.sqrt(p), tf.math.rsqrt(p)]
    with _session(tf) as sess:
        return {"bits": _bits(sess.run(roots, feed))}


# Variable sizes: below a packet, whole packets, tails; above about 70 values a size that is
# not a multiple of 8 splits into shards between the two threads, each with its own tail.
_ADAM_SIZES = [7, 8, 9, 48, 65, 71, 77, 90, 100, 101, 1001, 4097]


def _grads(rs, n, steps):
    return [(rs.randn(n) * 10.0 ** rs.randint(-4, 2)).astype(np.float32) for _ in range(steps)]


def adam_updates_by_size(tf):
    """tf.train.AdamOptimizer's ApplyAdam after four steps, per variable size: TF's roots of
    v by shard (ApplyAdamNonCuda's parallelFor)."""
    out = []
    for n in _ADAM_SIZES:
        tf.reset_default_graph()
        rs = np.random.RandomState(n)
        var = tf.Variable(rs.randn(n).astype(np.float32))
        grad = tf.placeholder(tf.float32, [n])
        train = tf.train.AdamOptimizer(0.01).apply_gradients([(grad, var)])
        with _session(tf) as sess:
            sess.run(tf.global_variables_initializer())
            for g in _grads(rs, n, 4):
                sess.run(train, {grad: g})
            out.append(sess.run(var))
    return {"bits": _bits(out)}


def adam_nesterov_raw_op(tf):
    """ApplyAdam with use_nesterov (tf.raw_ops on ref variables): the same roots."""
    out = []
    for n in (9, 100, 1001):
        tf.reset_default_graph()
        rs = np.random.RandomState(n + 1)
        var, m, v = (tf.Variable(rs.randn(n).astype(np.float32)) for _ in range(3))
        v_pos = tf.assign(v, tf.abs(v))
        grad = tf.placeholder(tf.float32, [n])
        train = tf.raw_ops.ApplyAdam(
            var=var,
            m=m,
            v=v,
            beta1_power=0.9,
            beta2_power=0.999,
            lr=0.01,
            beta1=0.9,
            beta2=0.999,
            epsilon=1e-7,
            grad=grad,
            use_nesterov=True,
        )
        with _session(tf) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(v_pos)
            for g in _grads(rs, n, 3):
                sess.run(train, {grad: g})
            out += sess.run([var, m, v])
    return {"bits": _bits(out)}


def _optimizers(tf):
    return {
        "rmsprop": lambda: tf.train.RMSPropOptimizer(0.01),
        "rmsprop_momentum": lambda: tf.train.RMSPropOptimizer(0.01, momentum=0.9),
        "rmsprop_centered": lambda: tf.train.RMSPropOptimizer(0.01, centered=True),
        "adagrad": lambda: tf.train.AdagradOptimizer(0.1),
        "adadelta": lambda: tf.train.AdadeltaOptimizer(1.0),
        "proximal_adagrad_l1": lambda: tf.train.ProximalAdagradOptimizer(
            0.1, l1_regularization_strength=0.001, l2_regularization_strength=0.01
        ),
        "proximal_adagrad_l2": lambda: tf.train.ProximalAdagradOptimizer(
            0.1, l2_regularization_strength=0.01
        ),
        "ftrl": lambda: tf.train.FtrlOptimizer(
            0.1, l1_regularization_strength=0.001, l2_regularization_strength=0.01
        ),
        "ftrl_l2_shrinkage": lambda: tf.train.FtrlOptimizer(
            0.1,
            l1_regularization_strength=0.001,
            l2_regularization_strength=0.01,
            l2_shrinkage_regularization_strength=0.02,
        ),
    }


def optimizer_roots(tf):
    """Four steps of each optimizer whose update takes a root, per variable size: RMSProp's
    sqrt, Adagrad's and ProximalAdagrad's rsqrt (its shrink step's, Eigen does not vectorise:
    1 / std::sqrt), Adadelta's sqrt * rsqrt, FTRL's roots of its accumulators (packets in its
    linear update, std::sqrt in its var update, which takes a sign())."""
    out = {}
    for name, make in sorted(_optimizers(tf).items()):
        values = []
        for n in (9, 100, 1001):
            tf.reset_default_graph()
            rs = np.random.RandomState(n)
            var = tf.Variable(rs.randn(n).astype(np.float32))
            grad = tf.placeholder(tf.float32, [n])
            train = make().apply_gradients([(grad, var)])
            with _session(tf) as sess:
                sess.run(tf.global_variables_initializer())
                for g in _grads(rs, n, 4):
                    sess.run(train, {grad: g})
                values.append(sess.run(var))
        out[name] = _bits(values)
    return out


def adagrad_v2_raw_op(tf):
    """ResourceApplyAdagradV2 (Keras's Adagrad): g * lr / (sqrt(accum) + epsilon)."""
    out = []
    for n in (9, 100):
        tf.reset_default_graph()
        rs = np.random.RandomState(n + 2)
        var = tf.Variable(rs.randn(n).astype(np.float32), use_resource=True)
        accum = tf.Variable(np.full(n, 0.1, np.float32), use_resource=True)
        grad = tf.placeholder(tf.float32, [n])
        train = tf.raw_ops.ResourceApplyAdagradV2(
            var=var.handle, accum=accum.handle, lr=0.1, epsilon=1e-7, grad=grad
        )
        with _session(tf) as sess:
            sess.run(tf.global_variables_initializer())
            for g in _grads(rs, n, 3):
                sess.run(train, {grad: g})
            out.append(sess.run(var))
    return {"bits": _bits(out)}


def table_lookup_actor_critic(tf):
    """dennybritz's CliffWalk actor-critic in miniature: a softmax policy and a value over a
    one-hot state (48 states, weights from zeros, as contrib's fully_connected with a zeros
    initializer makes them), each trained by Adam on every transition of a fixed sequence.
    The first value step already differs in the last bit where the roots are numpy's."""
    tf.reset_default_graph()
    states, actions = 48, 4
    state = tf.placeholder(tf.int32, [])
    action = tf.placeholder(tf.int32, [])
    target = tf.placeholder(tf.float32, [])
    one_hot = tf.expand_dims(tf.one_hot(state, states), 0)

    def table(name, outputs):
        with tf.variable_scope(name):
            w = tf.get_variable("weights", [states, outputs], initializer=tf.zeros_initializer())
            b = tf.get_variable("biases", [outputs], initializer=tf.zeros_initializer())
            return tf.nn.bias_add(tf.matmul(one_hot, w), b)

    probs = tf.squeeze(tf.nn.softmax(table("policy", actions)))
    policy_loss = -tf.log(tf.gather(probs, action)) * target
    value = tf.squeeze(table("value", 1))
    value_loss = tf.squared_difference(value, target)
    train_policy = tf.train.AdamOptimizer(0.01).minimize(policy_loss)
    train_value = tf.train.AdamOptimizer(0.1).minimize(value_loss)
    rs = np.random.RandomState(5)
    seen = []
    with _session(tf) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(120):
            s, a = int(rs.randint(36, 48)), int(rs.randint(actions))
            reward = -100.0 if rs.rand() < 0.2 else -1.0
            v = sess.run(value, {state: s})
            td_target = np.float32(reward) + np.float32(0.95) * v
            sess.run(train_value, {state: s, target: td_target})
            sess.run(train_policy, {state: s, action: a, target: td_target - v})
            seen += [v, sess.run(probs, {state: s})]
    return {"bits": _bits(seen)}


def update_checkpoint_state_into_missing_directory(tf):
    """tf.train.update_checkpoint_state into a directory that does not exist: TF's atomic
    write of the state file fails (it makes no directory); into one that does, it writes."""
    root = tempfile.mkdtemp()
    try:
        missing = os.path.join(root, "missing")
        try:
            tf.train.update_checkpoint_state(missing, os.path.join(missing, "m-1"))
            error = None
        except Exception as e:
            message = str(e).replace(root, "<root>")
            error = [type(e).__name__, re.sub("[0-9a-f]{32}", "<hex>", message)]
        written = os.path.isdir(missing)
        os.makedirs(missing)
        tf.train.update_checkpoint_state(missing, os.path.join(missing, "m-1"))
        with open(os.path.join(missing, "checkpoint")) as f:
            state = f.read().replace(root, "<root>")
        return {"error": error, "directory_made": written, "state": state}
    finally:
        shutil.rmtree(root)


def _values(tf, path):
    events = []
    for e in tf.train.summary_iterator(path):
        if e.HasField("summary"):
            events.append(
                [
                    [v.tag, v.HasField("metadata"), v.metadata.plugin_data.plugin_name]
                    for v in e.summary.value
                ]
            )
    return events


def file_writer_writes_a_tags_metadata_once(tf):
    """FileWriter.add_summary keeps a value's metadata (a text summary's plugin) only the
    first time the writer sees its tag, whether that first value had metadata or not, and
    strips it from the caller's Summary proto too."""
    tf.reset_default_graph()
    text = tf.summary.text("words", tf.constant("hello"))
    scalar = tf.summary.scalar("loss", tf.constant(1.5))
    merged = tf.summary.merge([text, scalar])
    root = tempfile.mkdtemp()
    try:
        writer = tf.summary.FileWriter(root)
        own = tf.Summary()
        own.value.add(tag="late", simple_value=1.0)
        writer.add_summary(own, 0)
        with tf.Session() as sess:
            for step in range(3):
                writer.add_summary(sess.run(merged), step)
            late = tf.Summary()
            late.ParseFromString(sess.run(tf.summary.text("late", tf.constant("x"))))
        writer.add_summary(late, 3)
        again = tf.Summary()
        again.ParseFromString(_text_summary_bytes(tf, "words"))
        writer.add_summary(again, 4)
        writer.close()
        files = [f for f in os.listdir(root) if f.startswith("events")]
        return {
            "events": _values(tf, os.path.join(root, files[0])),
            "callers_protos_keep_metadata": [
                late.value[0].HasField("metadata"),
                again.value[0].HasField("metadata"),
            ],
        }
    finally:
        shutil.rmtree(root)


def _text_summary_bytes(tf, tag):
    """The serialized Summary of a text summary `tag` (its own graph)."""
    with tf.Graph().as_default(), tf.Session() as sess:
        return sess.run(tf.summary.text(tag, tf.constant("again")))


def _warned(build):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        build()
    return [str(w.message) for w in seen if "IndexedSlices" in str(w.message)]


def indexed_slices_memory_warnings(tf):
    """Which densified IndexedSlices warn ("Converting sparse IndexedSlices to a dense Tensor
    of unknown shape"): not the gradients of Reshape, ExpandDims or Squeeze of a gather (an
    A3C policy's tf.gather(tf.reshape(probs, [-1]), i)) or of the v1 Gather, which TF 1.15
    silences; a direct conversion does. (Where another op's gradient gets the IndexedSlices,
    TF converts it once per use, tfcluster once: neither the warnings nor the ops counted.)"""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 4])
    w = tf.Variable(tf.ones([4, 4]))
    probs = tf.nn.softmax(tf.matmul(x, w))
    i = tf.placeholder(tf.int32, [None])
    out = {}
    out["reshape_then_gather"] = _warned(
        lambda: tf.gradients(tf.reduce_sum(tf.gather(tf.reshape(probs, [-1]), i)), w)
    )
    out["squeeze_then_gather"] = _warned(
        lambda: tf.gradients(
            tf.reduce_sum(tf.gather(tf.squeeze(tf.expand_dims(probs, 0), [0]), i)), w
        )
    )
    out["legacy_gather"] = _warned(
        lambda: tf.gradients(
            tf.reduce_sum(tf.raw_ops.Gather(params=tf.reshape(probs, [-1]), indices=i)), w
        )
    )
    grad = tf.gradients(tf.reduce_sum(tf.gather(probs, i)), probs)[0]
    out["type_of_gather_gradient"] = type(grad).__name__
    out["converted_directly"] = _warned(lambda: tf.convert_to_tensor(grad))
    return out


def _run_twice(sess, op, seen):
    for _ in range(2):
        try:
            sess.run(op)
            seen.append(None)
        except Exception as e:  # what the thread sees is the result
            seen.append([type(e).__name__, str(e).split("\n")[0]])


def close_session_with_blocked_queue_ops(tf):
    """Session.close() while another thread's step waits in a dequeue from an empty queue, or
    an enqueue into a full one (an A3C policy monitor's thread, a queue runner): the waiting
    op is cancelled (CancelledError, "Dequeue/Enqueue operation was cancelled"), then that
    thread's next run finds the session closed (RuntimeError)."""
    out = {}
    for kind in ("dequeue", "enqueue"):
        tf.reset_default_graph()
        q = tf.FIFOQueue(1, tf.float32)
        fill = q.enqueue(1.0)
        op = q.dequeue() if kind == "dequeue" else q.enqueue(2.0)
        sess = tf.Session()
        sess.run(fill)
        if kind == "dequeue":
            sess.run(op)  # the step's plan is made: the next one blocks at once
        seen = []
        thread = threading.Thread(target=_run_twice, args=(sess, op, seen))
        thread.start()
        time.sleep(2.0)
        sess.close()
        thread.join(30)
        out[kind] = seen
    return out


CASES = {
    f.__name__: f
    for f in (
        float32_roots,
        adam_updates_by_size,
        adam_nesterov_raw_op,
        optimizer_roots,
        adagrad_v2_raw_op,
        table_lookup_actor_critic,
        update_checkpoint_state_into_missing_directory,
        file_writer_writes_a_tags_metadata_once,
        indexed_slices_memory_warnings,
        close_session_with_blocked_queue_ops,
    )
}
