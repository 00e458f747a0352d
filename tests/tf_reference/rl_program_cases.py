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


CASES = {
    "optimizer_slots_then_seeded_draws": optimizer_slots_then_seeded_draws,
}
