"""Programs for TF 1.15 names added late (Keras's CTC backend, mixed-precision loss scaling,
early-stopping hooks...): each case builds a graph with `tf` (TensorFlow 1.15 when recorded by
record_later_names.py, tfcluster in tests/unit/test_later_names.py) and returns what it
computes. Python 3.7 code: the recorder runs it under TF 1.15 itself."""

import numpy as np


def _softmax_outputs():
    rng = np.random.RandomState(7)
    y = rng.rand(3, 7, 5).astype(np.float32)
    return y / y.sum(-1, keepdims=True)


def keras_ctc_batch_cost(tf):
    K = tf.keras.backend
    labels = np.array([[1, 2, 0, 0], [3, 3, 1, 0], [0, 1, 2, 3]], np.float32)
    cost = K.ctc_batch_cost(
        labels,
        _softmax_outputs(),
        np.array([[7], [6], [7]], np.int64),
        np.array([[2], [3], [4]], np.int64),
    )
    with tf.Session() as sess:
        return {"cost": sess.run(cost), "shape": cost.shape.as_list()}


def keras_ctc_decode(tf):
    K = tf.keras.backend
    y = _softmax_outputs()
    lengths = np.array([7, 5, 6], np.int32)
    greedy, greedy_lp = K.ctc_decode(y, lengths)
    beams, beam_lp = K.ctc_decode(y, lengths, greedy=False, beam_width=5, top_paths=2)
    with tf.Session() as sess:
        g, glp, b, blp = sess.run([greedy, greedy_lp, beams, beam_lp])
    return {"greedy": g, "greedy_log_prob": glp, "beams": b, "beam_log_prob": blp}


def keras_ctc_label_dense_to_sparse(tf):
    K = tf.keras.backend
    st = K.ctc_label_dense_to_sparse(
        tf.constant([[4, 5, 6], [7, 0, 0], [1, 2, 0]]), tf.constant([3, 1, 2])
    )
    with tf.Session() as sess:
        v = sess.run(st)
    return {
        "indices": v.indices,
        "values": v.values,
        "dense_shape": v.dense_shape,
        "dtypes": [st.indices.dtype.name, st.values.dtype.name, st.dense_shape.dtype.name],
    }


def _loss_scale_training(tf, loss_scale):
    """A variable trained by a loss-scaled optimizer; step 3's feed makes the gradient
    infinite, which a dynamic scale must skip (and halve)."""
    w = tf.Variable([1.0, -2.0], name="w")
    x = tf.placeholder(tf.float32, [2], name="x")
    loss = tf.reduce_sum(w * w * x)
    global_step = tf.train.get_or_create_global_step()
    opt = tf.train.experimental.MixedPrecisionLossScaleOptimizer(
        tf.train.GradientDescentOptimizer(0.1), loss_scale
    )
    train = opt.minimize(loss, global_step=global_step)
    scale = opt._loss_scale()
    steps = []
    feeds = [[1.0, 1.0], [0.5, 2.0], [np.inf, 1.0], [1.0, 1.0], [2.0, 1.0]]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for feed in feeds:
            sess.run(train, {x: feed})
            steps.append(sess.run([w, scale, global_step]))
    return {
        "w": np.array([s[0] for s in steps]),
        "scale": np.array([s[1] for s in steps], np.float32),
        "global_step": np.array([s[2] for s in steps]),
        "variables": sorted(v.op.name for v in tf.global_variables()),
    }


def dynamic_loss_scale_training(tf):
    scale = tf.train.experimental.DynamicLossScale(
        initial_loss_scale=8.0, increment_period=2, multiplier=2.0
    )
    out = _loss_scale_training(tf, scale)
    out["repr"] = repr(scale)
    out["config"] = scale.get_config()
    return out


def fixed_loss_scale_training(tf):
    scale = tf.train.experimental.FixedLossScale(128)
    out = _loss_scale_training(tf, scale)
    out["repr"] = repr(scale)
    out["config"] = scale.get_config()
    return out


def loss_scale_errors(tf):
    errors = {}
    for name, make in [
        ("fixed_below_one", lambda: tf.train.experimental.FixedLossScale(0.5)),
        ("fixed_string", lambda: tf.train.experimental.FixedLossScale("8")),
        (
            "optimizer_not_optimizer",
            lambda: tf.train.experimental.MixedPrecisionLossScaleOptimizer(3, 8),
        ),
        (
            "rewrite_twice",
            lambda: tf.train.experimental.enable_mixed_precision_graph_rewrite(
                tf.train.experimental.MixedPrecisionLossScaleOptimizer(
                    tf.train.GradientDescentOptimizer(0.1), 8
                )
            ),
        ),
        (
            "bad_identifier",
            lambda: tf.train.experimental.MixedPrecisionLossScaleOptimizer(
                tf.train.GradientDescentOptimizer(0.1), "static"
            ),
        ),
    ]:
        try:
            make()
            errors[name] = "none"
        except Exception as e:  # the class is what is compared
            errors[name] = type(e).__name__
    return errors


def mixed_precision_rewrite_and_optimizer_options(tf):
    seen = [tf.config.optimizer.get_experimental_options(), tf.config.optimizer.get_jit()]
    tf.config.optimizer.set_experimental_options(
        {"constant_folding": False, "layout_optimizer": True, "min_graph_nodes": 4}
    )
    tf.config.optimizer.set_jit(True)
    seen += [tf.config.optimizer.get_experimental_options(), tf.config.optimizer.get_jit()]
    opt = tf.train.experimental.enable_mixed_precision_graph_rewrite(
        tf.train.GradientDescentOptimizer(0.5)
    )
    seen.append(tf.config.optimizer.get_experimental_options())
    tf.train.experimental.disable_mixed_precision_graph_rewrite()
    seen.append(tf.config.optimizer.get_experimental_options())
    tf.config.optimizer.set_experimental_options(
        {"constant_folding": None, "layout_optimizer": None, "min_graph_nodes": None}
    )
    tf.config.optimizer.set_experimental_options({"auto_mixed_precision": None})
    tf.config.optimizer.set_jit(False)
    seen.append(tf.config.optimizer.get_experimental_options())
    # The wrapped optimizer trains with the default dynamic scale (2 ** 15).
    w = tf.Variable(3.0, name="w")
    train = opt.minimize(w * w)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        value = sess.run(w)
    return {
        "options": seen,
        "optimizer": type(opt).__name__,
        "w": value,
    }


def config_protos_serialize(tf):
    config = tf.ConfigProto(
        intra_op_parallelism_threads=2,
        session_inter_op_thread_pool=[tf.ConfigProto().session_inter_op_thread_pool.add()],
    )
    config.session_inter_op_thread_pool[0].num_threads = 3
    config.graph_options.optimizer_options.global_jit_level = tf.OptimizerOptions.ON_1
    config.graph_options.rewrite_options.auto_mixed_precision = 1
    config.graph_options.rewrite_options.memory_optimization = 3
    config.graph_options.build_cost_model = 7
    config.gpu_options.experimental.virtual_devices.add().memory_limit_mb.append(512.0)
    config.experimental.collective_group_leader = "/job:worker/task:0"
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    options.debug_options.debug_tensor_watch_opts.add(node_name="x", debug_ops=["DebugIdentity"])
    options.experimental.collective_graph_key = 5
    return {
        "config": config.SerializeToString(deterministic=True),
        "run_options": options.SerializeToString(deterministic=True),
    }


CASES = {
    "config_protos_serialize": config_protos_serialize,
    "dynamic_loss_scale_training": dynamic_loss_scale_training,
    "fixed_loss_scale_training": fixed_loss_scale_training,
    "loss_scale_errors": loss_scale_errors,
    "mixed_precision_rewrite_and_optimizer_options": mixed_precision_rewrite_and_optimizer_options,
    "keras_ctc_batch_cost": keras_ctc_batch_cost,
    "keras_ctc_decode": keras_ctc_decode,
    "keras_ctc_label_dense_to_sparse": keras_ctc_label_dense_to_sparse,
}
