"""A DQN agent's convolutional Q-network (Mnih et al. 2015, as Atari DQN programs build it).

Rows:
  dqn act (batch 1)          one Session.run of the Q-values of one 84x84x4 observation
      (the agent's action choice): conv 32 8x8 stride 4 VALID relu -> conv 64 4x4 stride 2
      relu -> conv 64 3x3 stride 1 relu -> flatten -> dense 512 relu -> dense 6
  dqn train step (batch 32)  one Session.run of the SGD step on a replay batch of 32: the
      squared error of Q(s, a) (the taken action's value, by a one-hot mask) against fed
      targets

Both sides build the graph from tf.nn and tf.get_variable from the same weights; the
Q-values are checked against numpy's forward pass before timing.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as c

ACTIONS = 6
BATCH = 32
ACT_ROW = "dqn act (batch 1)"
TRAIN_ROW = f"dqn train step (batch {BATCH})"
# (scope, filter size, stride, out channels)
CONVS = [("conv1", 8, 4, 32), ("conv2", 4, 2, 64), ("conv3", 3, 1, 64)]


def initial_weights() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    w: dict[str, np.ndarray] = {}
    cin = 4
    for scope, k, _, co in CONVS:
        w[f"{scope}/kernel"] = rng.normal(0, np.sqrt(2 / (k * k * cin)), (k, k, cin, co))
        w[f"{scope}/bias"] = np.full(co, 0.01)
        cin = co
    w["fc/kernel"] = rng.normal(0, np.sqrt(2 / 3136), (3136, 512))
    w["fc/bias"] = np.zeros(512)
    w["q/kernel"] = rng.normal(0, np.sqrt(1 / 512), (512, ACTIONS))
    w["q/bias"] = np.zeros(ACTIONS)
    return {k: v.astype(np.float32) for k, v in w.items()}


def build(tf: Any, frames: Any, w: dict[str, np.ndarray]) -> Any:
    def var(scope: str, name: str) -> Any:
        value = w[f"{scope}/{name}"]
        return tf.get_variable(name, value.shape, initializer=tf.constant_initializer(value))

    net = frames
    for scope, _, stride, _ in CONVS:
        with tf.variable_scope(scope):
            y = tf.nn.conv2d(net, var(scope, "kernel"), [1, stride, stride, 1], "VALID")
            net = tf.nn.relu(tf.nn.bias_add(y, var(scope, "bias")))
    net = tf.reshape(net, [-1, 3136])
    with tf.variable_scope("fc"):
        net = tf.nn.relu(tf.matmul(net, var("fc", "kernel")) + var("fc", "bias"))
    with tf.variable_scope("q"):
        return tf.matmul(net, var("q", "kernel")) + var("q", "bias")


def numpy_q(w: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    h = x.astype(np.float64)
    for scope, k, stride, _ in CONVS:
        # Tap by tap (TF 1.15's numpy has no sliding_window_view).
        kernel = w[f"{scope}/kernel"]
        out = (h.shape[1] - k) // stride + 1
        acc = np.zeros((len(x), out, out, kernel.shape[-1]))
        for i in range(k):
            for j in range(k):
                span = stride * (out - 1) + 1
                acc += h[:, i : i + span : stride, j : j + span : stride] @ kernel[i, j]
        h = np.maximum(acc + w[f"{scope}/bias"], 0)
    h = np.maximum(h.reshape(len(x), -1) @ w["fc/kernel"] + w["fc/bias"], 0)
    return h @ w["q/kernel"] + w["q/bias"]


def main() -> None:
    args = c.base_parser(__doc__ or "").parse_args()
    tf = c.import_tf(args.impl)
    cap = c.seconds_cap(args)
    profiled = {n.strip() for n in args.profile.split(",") if n.strip()}
    rng = np.random.default_rng(1)
    replay = rng.uniform(0, 1, (BATCH, 84, 84, 4)).astype(np.float32)
    actions = rng.integers(0, ACTIONS, BATCH)
    targets = rng.uniform(0, 1, BATCH).astype(np.float32)
    w = initial_weights()

    g = tf.Graph()
    with g.as_default():
        frames = tf.placeholder(tf.float32, [None, 84, 84, 4], name="frames")
        action = tf.placeholder(tf.int32, [None], name="action")
        target = tf.placeholder(tf.float32, [None], name="target")
        q = build(tf, frames, w)
        taken = tf.reduce_sum(q * tf.one_hot(action, ACTIONS), axis=1)
        loss = tf.reduce_mean(tf.square(target - taken))
        train = tf.train.GradientDescentOptimizer(1e-4).minimize(loss)
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init)
    got = sess.run(q, {frames: replay})
    want = numpy_q(w, replay)
    if not np.allclose(got, want, rtol=1e-4, atol=1e-4):
        raise SystemExit(f"Q-values differ from numpy's by {np.abs(got - want).max()}")
    c.progress("Q-values match numpy's forward pass; timing")
    one = {frames: replay[:1]}
    feed = {frames: replay, action: actions, target: targets}

    def act() -> None:
        sess.run(q, one)

    def step() -> None:
        sess.run(train, feed)

    fns = {ACT_ROW: act, TRAIN_ROW: step}
    times = c.sample_interleaved(
        fns, warmup=3, samples=20 if args.quick else 60, max_seconds=cap, batch_target_s=0.0
    )
    rows = []
    for name, fn in fns.items():
        row = c.time_row(name, times[name])
        if name in profiled:
            c.progress(f"profiling {name!r} (20 calls)")
            row.profile = c.profile_calls(fn, 20)
        c.progress(f"  {name}: median {row.median * 1e3:.2f} ms over {row.samples} samples")
        rows.append(row)
    c.emit(args.impl, rows)


if __name__ == "__main__":
    main()
