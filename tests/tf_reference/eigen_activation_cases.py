"""float32 tanh and sigmoid as TF 1.15's CPU kernels round them (Eigen's rational functions
over AVX packets of 8, the scalar path on a tensor's last size % 8 values), also inside the
fused LSTMBlockCell and GRUBlockCell. Each case is `fn(tf) -> dict of plain values`, run on
TF 1.15 by record_eigen_activations.py and on tfcluster by tests/unit/test_eigen_activations.py.
Python 3.7 code."""

from __future__ import annotations

import hashlib


def activation_inputs():
    """Seeded float32 values over every range the functions treat apart: random over several
    ranges, the clamps (9, 18) and their neighbours, tiny and subnormal values around where
    products flush, huge values, signed zeros, infinities and NaN, also among the last
    size % 8 values (20003 = 8 * 2500 + 3)."""
    import numpy as np

    rng = np.random.RandomState(23)
    f = np.float32
    edges = []
    for c in (9.0, 18.0, 0.0004, 2.0**-118, 2.0**-118.5, 2.0**-126):
        c = f(c)
        edges += [c, np.nextafter(c, f(0)), np.nextafter(c, f(100)), -c]
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, -3e-39, 3.4e38, -3.4e38]
    parts = [
        np.array(special + edges, f),
        rng.uniform(-1, 1, 4000).astype(f),
        rng.uniform(-10, 10, 4000).astype(f),
        rng.uniform(-20, 20, 4000).astype(f),
        (rng.randn(3000) * 3).astype(f),
        (rng.choice([-1, 1], 2000) * 10.0 ** rng.uniform(-45, -30, 2000)).astype(f),
        (rng.choice([-1, 1], 1000) * 10.0 ** rng.uniform(-8, 38, 1000)).astype(f),
    ]
    values = np.concatenate(parts)
    rest = 20003 - 3 - values.size
    values = np.concatenate([values, rng.uniform(-6, 6, rest).astype(f)])
    return np.concatenate([values, np.array([np.nan, -0.0, 1e-40], f)])


def _bits(a):
    import numpy as np

    return np.ascontiguousarray(a, np.float32).tobytes()


def digest(a):
    """sha256 of a float32 array's bytes (large outputs are compared by it)."""
    return hashlib.sha256(_bits(a)).hexdigest()


def tanh_and_sigmoid_values(tf):
    """Every value of activation_inputs(), whole (packets and a 3-value scalar tail) and in
    short slices of 1 to 17 values (tails of every length)."""

    tf.reset_default_graph()
    values = activation_inputs()
    x = tf.constant(values)
    fetches = {"tanh": tf.tanh(x), "sigmoid": tf.sigmoid(x)}
    for n in range(1, 18):
        fetches[f"tanh_{n}"] = tf.tanh(x[:n])
        fetches[f"sigmoid_{n}"] = tf.sigmoid(x[:n])
        fetches[f"tanh_edges_{n}"] = tf.tanh(x[20 : 20 + n])
        fetches[f"sigmoid_edges_{n}"] = tf.sigmoid(x[20 : 20 + n])
    with tf.Session() as sess:
        out = sess.run(fetches)
    result = {k: _bits(v) for k, v in out.items()}
    result["inputs"] = _bits(values)
    return result


def large_tensors(tf):
    """[64, 256] and [3201, 1027] normal values (a tensor split over the thread pool, its
    size not a multiple of 8): their digests."""
    import numpy as np

    tf.reset_default_graph()
    rng = np.random.RandomState(7)
    out = {}
    for shape in ((64, 256), (3201, 1027)):
        values = (rng.randn(*shape) * 4).astype(np.float32)
        x = tf.constant(values)
        with tf.Session() as sess:
            t, s = sess.run([tf.tanh(x), tf.sigmoid(x)])
        key = f"{shape[0]}x{shape[1]}"
        out[key] = {"inputs": digest(values), "tanh": digest(t), "sigmoid": digest(s)}
    return out


def _dyadic(rng, shape, denominator, bound):
    """Multiples of 1/denominator in [-bound, bound]: their products and sums are exact in
    float32, so a matmul over them gives the same bits in any order."""
    import numpy as np

    return (rng.randint(-bound * denominator, bound * denominator + 1, shape) / denominator).astype(
        np.float32
    )


def block_cells(tf):
    """tf.contrib.rnn's LSTMBlockCell (with and without peepholes, cell clip) and GRUBlockCell
        ops, one step each, with inputs and weights whose matmuls are exact: every output bit
        comes from the activations and the elementwise products (each gate's activation on its
        own [batch, cell] slice, so a cell of 7 leaves 5 values of each to the scalar path; a batch
    of 1, 7 values, all of them)."""
    import numpy as np

    tf.reset_default_graph()
    rng = np.random.RandomState(3)
    out = {}
    for batch, inputs, cell in ((4, 5, 8), (3, 6, 7), (1, 5, 8), (1, 6, 7)):
        x = _dyadic(rng, (batch, inputs), 8, 2)
        h = _dyadic(rng, (batch, cell), 8, 1)
        cs = _dyadic(rng, (batch, cell), 8, 3)
        w = _dyadic(rng, (inputs + cell, 4 * cell), 16, 1)
        b = _dyadic(rng, (4 * cell,), 16, 1)
        peep = [_dyadic(rng, (cell,), 16, 1) for _ in range(3)]
        key = f"{batch}x{inputs}x{cell}"
        fetches = {}
        for name, use_peephole, clip in (("plain", False, -1.0), ("peep_clip", True, 2.5)):
            fetches[name] = tf.raw_ops.LSTMBlockCell(
                x=x,
                cs_prev=cs,
                h_prev=h,
                w=w,
                wci=peep[0],
                wcf=peep[1],
                wco=peep[2],
                b=b,
                forget_bias=1.0,
                cell_clip=clip,
                use_peephole=use_peephole,
            )
        w_ru = _dyadic(rng, (inputs + cell, 2 * cell), 16, 1)
        w_c = _dyadic(rng, (inputs + cell, cell), 16, 1)
        # h_prev * r is no short multiple: its rows of w_c are zero, so the matmul stays exact
        w_c[inputs:] = 0
        b_ru = _dyadic(rng, (2 * cell,), 16, 1)
        b_c = _dyadic(rng, (cell,), 16, 1)
        fetches["gru"] = tf.raw_ops.GRUBlockCell(
            x=x, h_prev=h, w_ru=w_ru, w_c=w_c, b_ru=b_ru, b_c=b_c
        )
        with tf.Session() as sess:
            got = sess.run(fetches)
        out[key] = {name: [_bits(v) for v in values] for name, values in got.items()}
    return out


CASES = {
    "tanh_and_sigmoid_values": tanh_and_sigmoid_values,
    "large_tensors": large_tensors,
    "block_cells": block_cells,
}
