"""Float32 matrix products as TF 1.15's CPU kernels round them. MatMul's general product is
MKL-DNN's sgemm: every output a running fused multiply-add over the contracted dimension (up
to 384 terms in one block). OpenBLAS sums products of 2 to 8 output columns otherwise. A
MatMul whose only use is a BiasAdd is rewritten by grappler's remapper into _FusedMatMul,
whose product is that sgemm's even for one output column, where the plain MatMul takes
Eigen's matrix-vector routine (no fused multiply-add): a dense layer of one unit. Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_float32_products.py and on
tfcluster by tests/unit/test_float32_products_as_tf.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

CASES = {}


def _operands(rng, m, k, n, ta, tb):
    a = rng.randn(*((k, m) if ta else (m, k))).astype(np.float32)
    b = rng.randn(*((n, k) if tb else (k, n))).astype(np.float32)
    return a, b


def narrow_products(tf):
    """MatMul of 2 to 8 output columns, every transpose, contracted lengths up to 384 (one
    sgemm block). Wider products are BLAS's, whose order is TF's for some shapes only (how
    OpenBLAS cuts a product among threads changes it): not checked here."""
    tf.reset_default_graph()
    rng = np.random.RandomState(5)
    products = {}
    for m, k, n in ((5, 64, 2), (64, 64, 3), (64, 33, 4), (32, 200, 8), (17, 384, 5)):
        for ta in (False, True):
            for tb in (False, True):
                a, b = _operands(rng, m, k, n, ta, tb)
                products[f"m{m}_k{k}_n{n}_{ta:d}{tb:d}"] = tf.matmul(
                    a, b, transpose_a=ta, transpose_b=tb
                )
    with tf.Session() as sess:
        values = sess.run(products)
    return {name: v.tolist() for name, v in sorted(values.items())}


CASES["narrow_products"] = narrow_products


def products_feeding_a_bias_add(tf):
    """MatMul -> BiasAdd with only the BiasAdd fetched (fused, and with a Relu after it), and
    with the MatMul fetched too (not fused): one output column, narrow and one-row products."""
    tf.reset_default_graph()
    rng = np.random.RandomState(7)
    fused = {}
    apart = {}
    for m, k, n, ta in ((64, 2, 1, False), (64, 64, 1, False), (20, 384, 1, False),
                        (48, 100, 1, True), (64, 64, 4, False), (1, 64, 1, False),
                        (1, 50, 6, False)):  # fmt: skip
        x = tf.placeholder(tf.float32, [None, None])
        a, w = _operands(rng, m, k, n, ta, False)
        bias = rng.randn(n).astype(np.float32)
        name = f"m{m}_k{k}_n{n}_{ta:d}"
        product = tf.matmul(x, tf.constant(w), transpose_a=ta)
        fused[name] = (tf.nn.bias_add(product, tf.constant(bias)), {x: a})
        relu = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, tf.constant(w), transpose_a=ta), bias))
        fused[name + "_relu"] = (relu, {x: a})
        apart[name] = ([product, tf.nn.bias_add(product, tf.constant(bias))], {x: a})
    out = {}
    with tf.Session() as sess:
        for name, (t, feed) in sorted(fused.items()):
            out["fused_" + name] = sess.run(t, feed).tolist()
        for name, (ts, feed) in sorted(apart.items()):
            out["apart_" + name] = [v.tolist() for v in sess.run(ts, feed)]
    return out


CASES["products_feeding_a_bias_add"] = products_feeding_a_bias_add


def keras_dense_of_one_unit_trains_as_tf(tf):
    """A Keras regression (Dense(1), mse, SGD) by train_on_batch: each step's loss and the
    weights after it."""
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    x = np.arange(40, dtype=np.float32).reshape(20, 2) / 40.0
    y = (np.arange(20) % 2).astype(np.float32)
    model = tf.keras.Sequential(
        [tf.keras.layers.Dense(1, input_shape=(2,), kernel_initializer="ones")]
    )
    model.compile("sgd", "mse")
    steps = []
    for _ in range(6):
        loss = model.train_on_batch(x, y)
        steps.append([float(loss)] + [w.tolist() for w in model.get_weights()])
    return {"steps": steps}


CASES["keras_dense_of_one_unit_trains_as_tf"] = keras_dense_of_one_unit_trains_as_tf


def wide_products_in_rows(tf):
    """MatMul of 9 or more output columns with both operands in rows, contracted lengths up to
    300: TF's sgemm order, which OpenBLAS's AVX-512 kernels share (its Haswell ones do not)."""
    tf.reset_default_graph()
    rng = np.random.RandomState(11)
    products = {}
    for m, k, n in ((2, 64, 64), (8, 32, 128), (20, 128, 16), (10, 300, 64), (40, 64, 9)):
        a, b = _operands(rng, m, k, n, False, False)
        products[f"m{m}_k{k}_n{n}"] = tf.matmul(a, b)
    with tf.Session() as sess:
        values = sess.run(products)
    return {name: v.tolist() for name, v in sorted(values.items())}


CASES["wide_products_in_rows"] = wide_products_in_rows


def products_with_a_transposed_right_operand(tf):
    """x @ w.T (transpose_b) as a dense layer's input gradient makes it: few and many rows,
    contracted lengths up to 300, w.T of at most 2**15 values."""
    tf.reset_default_graph()
    rng = np.random.RandomState(13)
    products = {}
    shapes = ((2, 32, 128), (5, 128, 32), (8, 64, 64), (20, 64, 16), (32, 128, 32), (10, 64, 128))
    for m, k, n in (*shapes, (12, 32, 256), (16, 300, 64), (64, 64, 9)):
        a, b = _operands(rng, m, k, n, False, True)
        products[f"m{m}_k{k}_n{n}"] = tf.matmul(a, b, transpose_b=True)
    with tf.Session() as sess:
        values = sess.run(products)
    return {name: v.tolist() for name, v in sorted(values.items())}


CASES["products_with_a_transposed_right_operand"] = products_with_a_transposed_right_operand


def keras_mlp_trains_as_tf_with_a_short_last_batch(tf):
    """A Keras MLP (32 -> 64 -> 64 -> 10, RMSProp) fit for two epochs of 40 samples in
    batches of 32 (the last of 8): the weights after them. Its hidden layers' input gradients
    are x @ w.T products (8 x 64 @ (64 x 64).T in the short batch)."""
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(3)
    rng = np.random.RandomState(17)
    x = rng.random_sample((40, 32)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.randint(0, 10, 40)]
    layers = tf.keras.layers
    model = tf.keras.Sequential(
        [
            layers.Dense(64, activation="relu", input_shape=(32,)),
            layers.Dense(64, activation="relu"),
            layers.Dense(10, activation="softmax"),
        ]
    )
    model.compile(tf.train.RMSPropOptimizer(0.01), "categorical_crossentropy")
    model.fit(x, y, batch_size=32, epochs=2, shuffle=False, verbose=0)
    return {"weights": [w.tolist() for w in model.get_weights()]}


CASES["keras_mlp_trains_as_tf_with_a_short_last_batch"] = (
    keras_mlp_trains_as_tf_with_a_short_last_batch
)
