"""Optimizers against hand-written numpy updates; slots, names, placement, global step, errors."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import tfcluster as tf

W0 = np.array([[1.0, -2.0], [0.5, 3.0]])
A = np.array([[0.3, -1.0], [2.0, 0.1]])
STEPS = 4


def _grad(w: np.ndarray) -> np.ndarray:
    # d/dw of sum(a * w) + sum(w^2)
    return A + 2.0 * w


def _run(opt: tf.train.Optimizer, dtype: np.dtype = np.float32) -> tuple[np.ndarray, int]:
    w = tf.Variable(W0.astype(dtype), name="w")
    loss = tf.reduce_sum(w * A.astype(dtype)) + tf.reduce_sum(tf.square(w))
    gs = tf.train.get_or_create_global_step()
    train = opt.minimize(loss, global_step=gs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(STEPS):
            sess.run(train)
        got, step = sess.run([w, gs])
    assert got.dtype == dtype
    return got, int(step)


def _numpy(update: Callable[[np.ndarray, np.ndarray, dict], np.ndarray]) -> np.ndarray:
    w = W0.copy()
    state: dict = {}
    for t in range(1, STEPS + 1):
        state["t"] = t
        w = update(w, _grad(w), state)
    return w


def test_gradient_descent_matches_numpy() -> None:
    got, step = _run(tf.train.GradientDescentOptimizer(0.1))
    want = _numpy(lambda w, g, s: w - 0.1 * g)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert step == STEPS


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_matches_numpy(nesterov: bool) -> None:
    got, _ = _run(tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=nesterov))

    def update(w: np.ndarray, g: np.ndarray, s: dict) -> np.ndarray:
        acc = s.get("acc", np.zeros_like(w)) * 0.9 + g
        s["acc"] = acc
        if nesterov:
            return w - (g * 0.05 + acc * 0.9 * 0.05)
        return w - 0.05 * acc

    np.testing.assert_allclose(got, _numpy(update), rtol=1e-5)


def test_adam_matches_numpy_float64() -> None:
    # Hyperparameters exact in float32: TF keeps them (and beta1_power/beta2_power) as float32
    # tensors made from Python floats, so only such values make a float64 check exact.
    b1, b2, lr, eps = 0.75, 0.9375, 0.125, 2.0**-20
    got, _ = _run(tf.train.AdamOptimizer(lr, beta1=b1, beta2=b2, epsilon=eps), np.float64)

    def update(w: np.ndarray, g: np.ndarray, s: dict) -> np.ndarray:
        t = s["t"]
        m = s.get("m", np.zeros_like(w)) * b1 + (1 - b1) * g
        v = s.get("v", np.zeros_like(w)) * b2 + (1 - b2) * g * g
        s["m"], s["v"] = m, v
        alpha = lr * np.sqrt(1 - b2**t) / (1 - b1**t)
        return w - alpha * m / (np.sqrt(v) + eps)

    np.testing.assert_allclose(got, _numpy(update), rtol=1e-12)


def test_adagrad_matches_numpy() -> None:
    got, _ = _run(tf.train.AdagradOptimizer(0.2, initial_accumulator_value=0.5))

    def update(w: np.ndarray, g: np.ndarray, s: dict) -> np.ndarray:
        acc = s.get("acc", np.full_like(w, 0.5)) + g * g
        s["acc"] = acc
        return w - 0.2 * g / np.sqrt(acc)

    np.testing.assert_allclose(got, _numpy(update), rtol=1e-5)


@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop_matches_numpy(centered: bool) -> None:
    got, _ = _run(
        tf.train.RMSPropOptimizer(
            0.015625, decay=0.875, momentum=0.5, epsilon=2.0**-20, centered=centered
        ),
        np.float64,
    )

    def update(w: np.ndarray, g: np.ndarray, s: dict) -> np.ndarray:
        ms = s.get("ms", np.ones_like(w)) * 0.875 + 0.125 * g * g
        mg = s.get("mg", np.zeros_like(w)) * 0.875 + 0.125 * g
        denom = ms - mg * mg if centered else ms
        mom = s.get("mom", np.zeros_like(w)) * 0.5 + 0.015625 * g / np.sqrt(denom + 2.0**-20)
        s.update(ms=ms, mg=mg, mom=mom)
        return w - mom

    np.testing.assert_allclose(got, _numpy(update), rtol=1e-10)


def test_slot_variables_are_named_like_tensorflow_and_colocated() -> None:
    with tf.device("/job:ps/task:1"):
        w = tf.Variable(np.zeros((2, 3), np.float32), name="w")
    with tf.device("/job:worker/task:0"):
        b = tf.Variable(np.zeros(3, np.float32), name="layer/b")
        loss = tf.reduce_sum(tf.matmul(tf.ones([1, 2]), w) + b)
    opt = tf.train.AdamOptimizer()
    train = opt.minimize(loss)
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == sorted(
        [
            "w",
            "layer/b",
            "beta1_power",
            "beta2_power",
            "w/Adam",
            "w/Adam_1",
            "layer/b/Adam",
            "layer/b/Adam_1",
        ]
    )
    assert opt.get_slot_names() == ["m", "v"]
    m = opt.get_slot(w, "m")
    assert m.op.name == "w/Adam" and m.device == "/job:ps/task:1"
    assert opt.get_slot(b, "v").device == "/job:worker/task:0"
    # Adam's beta accumulators sit with the first variable by name ('layer/b').
    assert opt._get_beta_accumulators()[0].device == "/job:worker/task:0"
    assert opt.get_slot(w, "nope") is None
    assert train.name == "Adam"
    assert train in tf.get_collection(tf.GraphKeys.TRAIN_OP)
    update = tf.get_default_graph().get_operation_by_name("Adam/update_w/ApplyAdam")
    assert update.device == "/job:ps/task:1"
    assert not m.trainable if hasattr(m, "trainable") else True
    assert m not in tf.trainable_variables()


def test_rmsprop_centered_slot_order() -> None:
    w = tf.Variable(np.ones(2, np.float32), name="w")
    opt = tf.train.RMSPropOptimizer(0.1, centered=True)
    opt.minimize(tf.reduce_sum(w))
    assert opt.get_slot(w, "rms").op.name == "w/RMSProp"
    assert opt.get_slot(w, "mg").op.name == "w/RMSProp_1"
    assert opt.get_slot(w, "momentum").op.name == "w/RMSProp_2"


def test_compute_then_apply_gradients_with_processed_grads() -> None:
    w = tf.Variable(np.array([1.0, 2.0], np.float32), name="w")
    loss = tf.reduce_sum(tf.square(w))
    opt = tf.train.GradientDescentOptimizer(0.5)
    gv = opt.compute_gradients(loss)
    assert [v for _, v in gv] == [w]
    clipped = [(g * 0.5, v) for g, v in gv]
    train = opt.apply_gradients(clipped)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [1.0 - 0.5 * 1.0, 2.0 - 0.5 * 2.0])


def test_learning_rate_tensor_and_callable() -> None:
    w = tf.Variable(np.array([1.0], np.float32))
    lr = tf.placeholder(tf.float32, [])
    train = tf.train.GradientDescentOptimizer(lr).minimize(tf.reduce_sum(w))
    w2 = tf.Variable(np.array([1.0], np.float32))
    train2 = tf.train.GradientDescentOptimizer(lambda: 0.25).minimize(tf.reduce_sum(w2))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {lr: 0.1})
        sess.run(train2)
        np.testing.assert_allclose(sess.run([w, w2]), [[0.9], [0.75]], rtol=1e-6)


def test_errors() -> None:
    w = tf.Variable(np.array([1.0], np.float32))
    unrelated = tf.Variable(np.array([1.0], np.float32))
    opt = tf.train.GradientDescentOptimizer(0.1)
    with pytest.raises(ValueError, match=r"Invalid type tf\.int32"):
        opt.compute_gradients(tf.constant(1), var_list=[w])
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.minimize(tf.reduce_sum(w), var_list=[unrelated])
    with pytest.raises(ValueError, match="No variables provided"):
        opt.apply_gradients([])
    with pytest.raises(ValueError, match="No variables to optimize"):
        opt.compute_gradients(tf.reduce_sum(w), var_list=[])
    with pytest.raises(ValueError, match="Must specify the optimizer name"):
        tf.train.GradientDescentOptimizer(0.1, name="")
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)


def test_apply_kernel_rejects_mismatched_gradient_shape() -> None:
    w = tf.Variable(np.zeros(3, np.float32))
    g = tf.placeholder(tf.float32)
    train = tf.train.GradientDescentOptimizer(0.1).apply_gradients([(g, w)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match="same shape"):
            sess.run(train, {g: np.zeros(2, np.float32)})


def test_apply_on_uninitialized_variable_fails_precondition() -> None:
    w = tf.Variable(np.zeros(3, np.float32), name="w")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(w))
    with tf.Session() as sess, pytest.raises(tf.errors.FailedPreconditionError, match="w"):
        sess.run(train)


def test_apply_op_static_checks() -> None:
    from tfcluster.ops import training_ops

    w = tf.Variable(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="Shapes must be equal rank"):
        training_ops.apply_gradient_descent(w, 0.1, np.zeros(2, np.float32))
    with pytest.raises(TypeError, match="mutable tensor"):
        training_ops.apply_gradient_descent(tf.constant([1.0, 2.0, 3.0]), 0.1, w.value())
    with pytest.raises(ValueError, match="rank 0"):
        training_ops.apply_gradient_descent(w, [0.1, 0.2], np.zeros(3, np.float32))
    t = training_ops.apply_gradient_descent(w, 0.1, np.zeros(3, np.float32))
    assert t.dtype == tf.float32_ref and t.shape.as_list() == [3]


def test_exponential_decay() -> None:
    gs = tf.Variable(0, trainable=False, name="global_step")
    lr = tf.train.exponential_decay(0.5, gs, 10, 0.1)
    lr_stair = tf.train.exponential_decay(0.5, gs, 10, 0.1, staircase=True)
    assert lr.op.name == "ExponentialDecay"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(gs.assign(15))
        a, b = sess.run([lr, lr_stair])
    np.testing.assert_allclose(a, 0.5 * 0.1**1.5, rtol=1e-5)
    np.testing.assert_allclose(b, 0.5 * 0.1, rtol=1e-6)
    with pytest.raises(ValueError, match="global_step is required"):
        tf.train.exponential_decay(0.1, None, 10, 0.5)


def test_global_step_helpers() -> None:
    assert tf.train.get_global_step() is None
    gs = tf.train.get_or_create_global_step()
    assert gs.op.name == "global_step" and gs.dtype.base_dtype == tf.int64
    assert tf.train.get_or_create_global_step() is gs
    with pytest.raises(ValueError, match="already exists"):
        tf.train.create_global_step()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert tf.train.global_step(sess, gs) == 0


def test_a_variable_named_global_step_is_the_global_step() -> None:
    gs = tf.Variable(0, name="global_step", trainable=False)
    found = tf.train.get_global_step()  # its reference tensor, as TF 1.15 finds it
    assert isinstance(found, tf.Tensor) and found is gs._ref()
    assert found.name == "global_step:0" and found.dtype == tf.int32._as_ref
    tf.reset_default_graph()
    tf.Variable(0.5, name="global_step")
    with pytest.raises(TypeError, match="integer type"):
        tf.train.get_global_step()


def test_other_decay_schedules() -> None:
    gs = tf.Variable(0, trainable=False, name="global_step")
    schedules = {
        "natural": tf.train.natural_exp_decay(0.5, gs, 10, 0.2),
        "inverse": tf.train.inverse_time_decay(0.5, gs, 10, 0.2, staircase=True),
        "poly": tf.train.polynomial_decay(0.5, gs, 10, end_learning_rate=0.1, power=2.0),
        "poly_cycle": tf.train.polynomial_decay(0.5, gs, 10, end_learning_rate=0.1, cycle=True),
        "piecewise": tf.train.piecewise_constant(gs, [5, 20], [1.0, 0.5, 0.1]),
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        at0 = sess.run(schedules)
        sess.run(gs.assign(15))
        at15 = sess.run(schedules)
    np.testing.assert_allclose(at15["natural"], 0.5 * np.exp(-0.2 * 1.5), rtol=1e-6)
    np.testing.assert_allclose(at15["inverse"], 0.5 / (1 + 0.2 * 1), rtol=1e-6)
    np.testing.assert_allclose(at15["poly"], 0.1, rtol=1e-6)  # capped at decay_steps
    # cycle: decay_steps becomes 20 at step 15, so (1 - 15/20) of the way down.
    np.testing.assert_allclose(at15["poly_cycle"], 0.4 * 0.25 + 0.1, rtol=1e-6)
    np.testing.assert_allclose(at0["poly_cycle"], 0.5, rtol=1e-6)
    assert (at0["piecewise"], at15["piecewise"]) == (1.0, 0.5)
    with pytest.raises(ValueError, match="1 less than"):
        tf.train.piecewise_constant(gs, [1, 2], [1.0])
