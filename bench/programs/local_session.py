"""Issue 2: the local Session (no target).

Rows:
  step: fetch a+b (constants)    Session.run of two scalar constants added
  step: feed [4] placeholder     Session.run of x*2 with x fed a float32[4]
  matmul 1024 (variables)        fetch tf.matmul of two 1024x1024 float32 variables
  matmul 1024 (feeds)            fetch tf.matmul of two fed 1024x1024 float32 placeholders
  matmul 1024 (numpy)            numpy's a @ b on the same arrays, in the same process
  4 independent 512x512 matmul chains (inter-op)
                                 issue 20: four chains of 4 matmuls each (x <- x @ w_k, four
                                 512x512 variables per chain), no chain reading another, the
                                 four results fetched: independent ops the executor may run at
                                 once
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as c

N = 1024


def tiny_graph(tf: Any) -> tuple[Any, dict[str, Any]]:
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
        total = a + b
        x = tf.placeholder(tf.float32, shape=[4], name="x")
        doubled = x * 2.0
    sess = tf.Session(graph=g)
    xv = np.arange(4, dtype=np.float32)
    assert float(sess.run(total)) == 3.0
    np.testing.assert_array_equal(sess.run(doubled, {x: xv}), xv * 2)
    return sess, {
        "step: fetch a+b (constants)": lambda: sess.run(total),
        "step: feed [4] placeholder": lambda: sess.run(doubled, {x: xv}),
    }


def matmul_graph(tf: Any) -> tuple[Any, dict[str, Any]]:
    rng = np.random.default_rng(0)
    av = rng.standard_normal((N, N), dtype=np.float32)
    bv = rng.standard_normal((N, N), dtype=np.float32)
    g = tf.Graph()
    with g.as_default():
        va = tf.Variable(av, name="va")
        vb = tf.Variable(bv, name="vb")
        prod_vars = tf.matmul(va, vb)
        pa = tf.placeholder(tf.float32, shape=[N, N], name="pa")
        pb = tf.placeholder(tf.float32, shape=[N, N], name="pb")
        prod_feeds = tf.matmul(pa, pb)
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init)
    want = av @ bv
    np.testing.assert_allclose(sess.run(prod_vars), want, rtol=1e-3, atol=1e-2)
    np.testing.assert_allclose(sess.run(prod_feeds, {pa: av, pb: bv}), want, rtol=1e-3, atol=1e-2)
    return sess, {
        "matmul 1024 (numpy)": lambda: av @ bv,
        "matmul 1024 (variables)": lambda: sess.run(prod_vars),
        "matmul 1024 (feeds)": lambda: sess.run(prod_feeds, {pa: av, pb: bv}),
    }


CHAINS, DEPTH, CHAIN_N = 4, 4, 512
CHAINS_ROW = "4 independent 512x512 matmul chains (inter-op)"


def chains_graph(tf: Any) -> tuple[Any, dict[str, Any]]:
    rng = np.random.default_rng(1)
    scale = 1.0 / np.sqrt(CHAIN_N)
    starts = [rng.standard_normal((CHAIN_N, CHAIN_N), dtype=np.float32) for _ in range(CHAINS)]
    weights = [
        [
            rng.standard_normal((CHAIN_N, CHAIN_N), dtype=np.float32) * np.float32(scale)
            for _ in range(DEPTH)
        ]
        for _ in range(CHAINS)
    ]
    g = tf.Graph()
    with g.as_default():
        outs = []
        for c_i in range(CHAINS):
            x = tf.Variable(starts[c_i], name=f"x{c_i}")
            for k in range(DEPTH):
                x = tf.matmul(x, tf.Variable(weights[c_i][k], name=f"w{c_i}_{k}"))
            outs.append(x)
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init)
    for c_i, got in enumerate(sess.run(outs)):
        want = starts[c_i]
        for w in weights[c_i]:
            want = want @ w
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-2)
    return sess, {CHAINS_ROW: lambda: sess.run(outs)}


def main() -> None:
    args = c.base_parser(__doc__ or "").parse_args()
    tf = c.import_tf(args.impl)
    cap = c.seconds_cap(args)
    rows: list[c.Row] = []
    profiled = {n.strip() for n in args.profile.split(",") if n.strip()}

    c.progress("tiny graph: warm-up and timing")
    _, fns = tiny_graph(tf)
    tiny = c.sample_interleaved(fns, warmup=300, samples=15 if args.quick else 40, max_seconds=cap)
    rows += [c.time_row(name, xs) for name, xs in tiny.items()]

    c.progress("1024x1024 float32 matmul: warm-up and timing")
    _, mfns = matmul_graph(tf)
    mm = c.sample_interleaved(
        mfns, warmup=3, samples=12 if args.quick else 40, max_seconds=cap, batch_target_s=0.0
    )
    rows += [c.time_row(name, xs) for name, xs in mm.items()]

    c.progress("4 independent 512x512 matmul chains: warm-up and timing")
    _, cfns = chains_graph(tf)
    chains = c.sample_interleaved(
        cfns, warmup=5, samples=12 if args.quick else 40, max_seconds=cap, batch_target_s=0.0
    )
    rows += [c.time_row(name, xs) for name, xs in chains.items()]

    all_fns = {**fns, **mfns, **cfns}
    for row in rows:
        if row.name in profiled:
            calls = min(20_000, max(20, int(1.0 / max(row.median, 1e-9))))
            c.progress(f"profiling {row.name!r} ({calls} calls)")
            row.profile = c.profile_calls(all_fns[row.name], calls)
    for row in rows:
        c.progress(f"  {row.name}: median {row.median * 1e6:.1f} us over {row.samples} samples")
    c.emit(args.impl, rows)


if __name__ == "__main__":
    main()
