"""Reinforcement-learning programs (DQN, policy gradient, actor-critic, DDPG, PPO in the style
of the public TF1 tutorials), reduced to the behaviour that differed on tfcluster. Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_rl_programs.py and on tfcluster by
tests/unit/test_rl_programs.py. Python 3.7 code."""

from __future__ import annotations


def _slot_initializer_ops(graph, first):
    return [
        [op.name, op.type]
        for op in graph.get_operations()[first:]
        if "/Initializer/" in op.name or op.name.endswith("/Initializer")
    ]


def optimizer_slots_then_seeded_draws(tf):
    """A DQN built twice in one graph (natural and double Q) trains the first with RMSProp:
    the slots' initial values are ops of their own (RMSProp's ones, Adagrad's accumulator
    value), so the second network's seeded weights depend on how many there are."""
    import numpy as np

    out = {}
    optimizers = {
        "rmsprop": lambda: tf.train.RMSPropOptimizer(0.01),
        "rmsprop_centered": lambda: tf.train.RMSPropOptimizer(0.01, momentum=0.5, centered=True),
        "adagrad": lambda: tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.3),
    }
    for name, make in sorted(optimizers.items()):
        tf.reset_default_graph()
        tf.set_random_seed(1)
        graph = tf.get_default_graph()
        x = tf.constant(np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(4, 3))
        small = tf.get_variable("small", [3, 5], initializer=tf.random_normal_initializer(0, 0.3))
        big = tf.get_variable("big", [5, 300], initializer=tf.random_normal_initializer(0, 0.3))
        loss = tf.reduce_mean(tf.square(tf.matmul(tf.matmul(x, small), big)))
        first = len(graph.get_operations())
        train = make().minimize(loss)
        ops = _slot_initializer_ops(graph, first)
        after = tf.get_variable("after", [2, 3], initializer=tf.random_normal_initializer())
        losses = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            drawn = sess.run(after)
            for _ in range(3):
                losses.append(float(sess.run([train, loss])[1]))
        out[name] = {"slot_ops": ops, "after": drawn.tolist(), "losses": losses}
    return out


def _elementwise_inputs():
    """Seeded float32 values over every range the functions treat apart, the special values
    both among the first 8k (Eigen's AVX packets) and in the last size % 8 (its scalar path)."""
    import numpy as np

    rng = np.random.RandomState(5)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 88.5, -88.5, 89.0, -104.0, 1e-30, -1e-8]
    special += [18.5, -18.5, 9.5, -9.5, -13.94, -15.9, 1e-4, -3e-4, 3.4e38, 1.2e-38, -87.0]
    values = np.concatenate(
        [
            np.array(special, np.float32),
            rng.uniform(-20, 20, 480).astype(np.float32),
            rng.uniform(-1, 1, 492).astype(np.float32),
            np.array(special[:7], np.float32),
        ]
    )
    return values  # 1001 values: the last 1 in Eigen's scalar tail, 1001 = 143 * 7


def eigen_elementwise_float32(tf):
    """An actor's tanh mean and softplus scale, a softmax policy, a sigmoid gate, exp and log
    of a Normal's density: float32 values as TF 1.15's CPU kernels round them (Eigen's
    polynomial exp/log, rational tanh/logistic, packets of 8 and a scalar tail)."""
    import numpy as np

    tf.reset_default_graph()
    values = _elementwise_inputs()
    x = tf.constant(values)
    rows = tf.reshape(x, [143, 7])
    fetches = {
        "exp": tf.exp(x),
        "log": tf.log(tf.abs(x)),
        "tanh": tf.tanh(x),
        "sigmoid": tf.sigmoid(x),
        "softplus": tf.nn.softplus(x),
        "elu": tf.nn.elu(x),
        "selu": tf.nn.selu(x),
        "log_sigmoid": tf.log_sigmoid(x),
        "softmax_rows": tf.nn.softmax(tf.where(tf.is_finite(rows), rows, tf.zeros_like(rows))),
        "short_exp": tf.exp(x[:13]),
        "short_tanh": tf.tanh(x[3:9]),
        "scalar_sigmoid": tf.sigmoid(x[500]),
    }
    with tf.Session() as sess:
        out = sess.run(fetches)
    out = {k: np.asarray(v) for k, v in out.items()}
    out["inputs"] = values
    return out


def softmax_policy_losses_and_gradients(tf):
    """A softmax policy's loss (sparse labels, as REINFORCE's chosen actions; dense labels, as
    a cross-entropy to a target distribution) and its gradient, over a few plain SGD steps on
    the logits themselves: TF 1.15's xent kernels (Eigen's exp/log, row sums in its order,
    a division by the sum)."""
    import numpy as np

    tf.reset_default_graph()
    rng = np.random.RandomState(11)
    out = {}
    for rows, classes in [(6, 5), (4, 11), (9, 3), (2, 16)]:
        key = f"{rows}x{classes}"
        start = (rng.randn(rows, classes) * 2).astype(np.float32)
        actions = rng.randint(0, classes, rows).astype(np.int32)
        target = rng.dirichlet(np.ones(classes), rows).astype(np.float32)
        logits = tf.Variable(start)
        sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=actions, logits=logits)
        dense = tf.nn.softmax_cross_entropy_with_logits_v2(labels=target, logits=logits)
        loss = tf.reduce_mean(sparse * np.linspace(0.5, 2.0, rows, dtype=np.float32)) + (
            tf.reduce_mean(dense)
        )
        grad = tf.gradients(loss, logits)[0]
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        steps = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                s, d, g, _ = sess.run([sparse, dense, grad, train])
                steps.append({"sparse": s, "dense": d, "grad": g})
            steps.append({"logits": sess.run(logits)})
        out[key] = steps
    return out


def _exp_edge_inputs():
    """float32 values where exp's flush-to-zero decides bits: subnormal inputs (their exp is
    1), and values around -87.34 (exp(-87.34) is float32's smallest normal) with no NaN
    beside them; 203 values, the last 3 in Eigen's scalar tail."""
    import numpy as np

    subnormal = np.array([1, -1, 7, -7, 0x7FFFFF, -0x7FFFFF, 0x400000, -3], np.int32)
    subnormal = (np.abs(subnormal) | np.where(subnormal < 0, np.int32(-(2**31)), 0)).astype(
        np.int32
    )
    values = np.concatenate(
        [
            subnormal.view(np.float32),
            np.array([0.0, -0.0, -87.3, -87.33, -87.34, -87.35, -88.37, -88.38], np.float32),
            np.linspace(-87.6, -87.1, 120).astype(np.float32),
            np.random.RandomState(7).uniform(-3, 3, 67).astype(np.float32),
        ]
    )
    return values


def eigen_exp_edges_float32(tf):
    """exp and what TF builds on it (softplus, elu, selu, softmax, the softmax cross
    entropies) where results are subnormal (TF's executor flushes them to zero) or inputs are
    (denormals are zero): each function's float32 bits."""
    import numpy as np

    tf.reset_default_graph()
    values = _exp_edge_inputs()
    x = tf.constant(values)
    rows = tf.reshape(x, [29, 7])
    # Rows whose shifted logits fall below -87.34 (probabilities flushed to zero).
    wide = tf.concat([rows, tf.fill([29, 1], 0.0)], axis=1)
    labels = tf.constant(np.arange(29, dtype=np.int32) % 8)
    target = tf.one_hot(labels, 8)
    sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=wide)
    dense = tf.nn.softmax_cross_entropy_with_logits_v2(labels=target, logits=wide)
    fetches = {
        "exp": tf.exp(x),
        "exp_normal_only": tf.exp(x[8:]),
        "softplus": tf.nn.softplus(x),
        "elu": tf.nn.elu(x),
        "selu": tf.nn.selu(x),
        "softmax_rows": tf.nn.softmax(rows),
        "softmax_wide": tf.nn.softmax(wide),
        "sparse_loss": sparse,
        "sparse_backprop": tf.gradients(tf.reduce_sum(sparse), wide)[0],
        "dense_loss": dense,
        "dense_backprop": tf.gradients(tf.reduce_sum(dense), wide)[0],
    }
    with tf.Session() as sess:
        out = sess.run(fetches)
    out = {k: np.asarray(v) for k, v in out.items()}
    out["inputs"] = values
    return out


CASES = {
    "softmax_policy_losses_and_gradients": softmax_policy_losses_and_gradients,
    "eigen_elementwise_float32": eigen_elementwise_float32,
    "eigen_exp_edges_float32": eigen_exp_edges_float32,
    "optimizer_slots_then_seeded_draws": optimizer_slots_then_seeded_draws,
}
