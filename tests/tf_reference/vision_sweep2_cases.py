"""Behaviours public TF1 vision programs (course notebooks, tutorial notebooks, capsule
networks, GANs, autoencoders) showed apart on tfcluster, second sweep. Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_vision_sweep2.py and on tfcluster by
tests/unit/test_vision_sweep2_behaviours.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

CASES = {}


def _outcome(fn):
    """None when fn builds, else the error's class and message."""
    try:
        fn()
        return None
    except Exception as e:  # the class and TF's message
        return [type(e).__name__, str(e)]


def split_dim_of_another_type(tf):
    """A tutorial RNN written for TF 0.x calls tf.split(0, n_steps, x): under 1.15 the tensor
    lands in `axis`, the Split op's split_dim input, whose op def fixes int32 (no type attr).
    TF's op_def_library names the input and the op for a tensor of another type, and the
    parameter and the op for a Python value that does not convert."""
    tf.reset_default_graph()
    x = tf.constant(np.arange(8, dtype=np.float32).reshape(2, 4))
    calls = {
        "old_argument_order": lambda: tf.split(0, 2, x),
        "float_tensor_axis": lambda: tf.split(x, 2, tf.constant(1.0)),
        "int64_tensor_axis": lambda: tf.split(x, 2, tf.constant(1, tf.int64)),
        "float_python_axis": lambda: tf.split(x, 2, 0.5),
        "sizes_float_axis": lambda: tf.split(x, [1, 3], tf.constant(1.0)),
        "sizes_int64_axis": lambda: tf.split(x, [1, 3], tf.constant(1, tf.int64)),
        "numpy_int64_axis": lambda: tf.split(x, 2, np.int64(1)),
        "int32_tensor_axis": lambda: tf.split(x, [3, 1], tf.constant(1)),
    }
    errors = {name: _outcome(fn) for name, fn in sorted(calls.items())}
    parts = tf.split(x, 2, np.int64(1)) + tf.split(x, [3, 1], tf.constant(1))
    with tf.Session() as sess:
        values = sess.run(parts)
    return {"errors": errors, "values": [v.tolist() for v in values]}


CASES["split_dim_of_another_type"] = split_dim_of_another_type


def fetching_an_uninitialized_variable(tf):
    """A tutorial notebook runs sess.run(weight) before initializing it to show the error. TF
    1.15's DirectSession fetches through `_retval_<op>_<output>_<i>` nodes, i the fetch's place
    among the step's distinct fetch names sorted, and the error names that node (a read through
    the variable's `read` Identity names that op instead)."""
    tf.reset_default_graph()
    with tf.variable_scope("sc"):
        v = tf.Variable(tf.zeros([2]), name="v")
    w = tf.Variable(tf.zeros([2]), name="w")
    c = tf.constant(1.0, name="c")
    loop = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)], name="a_loop")
    fetches = {
        "beside_a_while_loop": [w, loop],
        "alone": w,
        "after_another_variable": [v, w],
        "sorted_places": [c, v, w],
        "repeated": [w, v, w],
        "dict": {"b": c, "a": w},
        "by_name": [v.name, c, w.name],
        "through_read": w + 1.0,
    }
    errors = {}
    with tf.Session() as sess:
        sess.run(v.initializer)
        for name, fetch in sorted(fetches.items()):
            try:
                sess.run(fetch)
                errors[name] = None
            except tf.errors.FailedPreconditionError as e:
                # The node, without where TF's or tfcluster's own code defined it.
                errors[name] = [x.split(" (defined at")[0] for x in e.message.split("\n")[:2]]
    return {"errors": errors}


CASES["fetching_an_uninitialized_variable"] = fetching_an_uninitialized_variable


def softmax_over_an_inner_axis(tf):
    """naturomics/CapsNet-Tensorflow routes with tf.nn.softmax(b_IJ, axis=2) on a rank-4
    tensor: TF 1.15 swaps the axis to the end with a permutation built in the graph (Rank,
    Sub, Range, Pack, ConcatV2 ops; a negative axis adds AddV2 and FloorMod), so the op count,
    hence the seeds of the decoder's initializers made after it, follows from those ops."""
    tf.reset_default_graph()
    tf.set_random_seed(5)
    x = tf.constant(np.linspace(-2.0, 3.0, 2 * 3 * 4).reshape(2, 3, 4).astype(np.float32))
    outs = {
        "axis0": tf.nn.softmax(x, axis=0),
        "axis1_named": tf.nn.softmax(x, axis=1, name="sm1"),
        "axis_minus2": tf.nn.softmax(x, axis=-2),
        "axis_minus3_dim": tf.nn.softmax(x, dim=-3),
        "log_axis1": tf.nn.log_softmax(x, axis=1),
        "last": tf.nn.softmax(x, axis=2),
    }
    after = tf.random_uniform([3], seed=None)
    weights = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    grads = tf.gradients([tf.reduce_sum(v * weights) for _, v in sorted(outs.items())], x)
    ops = [[op.name, op.type] for op in tf.get_default_graph().get_operations()]
    shapes = {k: v.shape.as_list() for k, v in outs.items()}
    with tf.Session() as sess:
        values, grad, sample = sess.run([outs, grads[0], after])
    return {"ops": ops, "shapes": shapes, "values": values, "grad": grad, "after": sample}


CASES["softmax_over_an_inner_axis"] = softmax_over_an_inner_axis


def multi_output_history_types(tf):
    """XifengGuo/CapsNet-Keras trains a two-output model and prints model.fit's history: TF
    1.15's MetricsAggregator sums only the total loss in Python (numpy float64); each
    output's loss is a float32 Mean metric's result, as the other metrics, in fit, evaluate
    and the generator loops."""
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(3)
    r = np.random.RandomState(2)
    x = r.rand(8, 3).astype(np.float32)
    y1 = np.eye(2, dtype=np.float32)[r.randint(0, 2, 8)]
    y2 = r.rand(8, 1).astype(np.float32)
    inp = tf.keras.layers.Input(shape=(3,))
    out1 = tf.keras.layers.Dense(2, activation="softmax", name="cls")(inp)
    out2 = tf.keras.layers.Dense(1, name="reg")(inp)
    model = tf.keras.models.Model(inp, [out1, out2])
    model.compile(
        optimizer=tf.keras.optimizers.SGD(0.1),
        loss=["categorical_crossentropy", "mse"],
        loss_weights=[1.0, 0.5],
        metrics={"cls": "accuracy"},
    )

    def described(values):
        return [[type(v).__name__, repr(v)] for v in values]

    hist = model.fit(x, [y1, y2], batch_size=3, epochs=2, shuffle=False, verbose=0)
    fit = {k: described(v) for k, v in sorted(hist.history.items())}
    evaluated = described(model.evaluate(x, [y1, y2], batch_size=3, verbose=0))

    def batches():
        while True:
            for i in range(0, 8, 4):
                yield x[i : i + 4], [y1[i : i + 4], y2[i : i + 4]]

    hist = model.fit_generator(batches(), steps_per_epoch=2, epochs=1, verbose=0)
    generator = {k: described(v) for k, v in sorted(hist.history.items())}
    return {"fit": fit, "evaluate": evaluated, "fit_generator": generator}


CASES["multi_output_history_types"] = multi_output_history_types
