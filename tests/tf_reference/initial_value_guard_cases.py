"""A variable whose initial value reads other variables, as TF 1.15 guards it: the reads are
replaced by the variables' initialized values, so global_variables_initializer works in any
order; the copied ops are named `<op>_<variable>`, and the ops made count towards later op
seeds (ExponentialMovingAverage's slots too). Recorded by record_initial_value_guard.py;
tests/unit/test_initial_value_guard.py compares.

Python 3.7 code (the recorder runs under TF 1.15).
"""

try:
    from tf_reference.case_tools import registrar
except ImportError:  # the recorder, run from tests/tf_reference under TF 1.15
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True, graph_seed=1)


def _copies(tf, suffix):
    return sorted(
        op.name for op in tf.get_default_graph().get_operations() if op.name.endswith(suffix)
    )


@case
def initial_value_reading_another_variable(tf):
    v1 = tf.Variable(tf.random_normal([3]), name="v1")
    v2 = tf.Variable(v1 * 2.0, name="v2")
    v3 = tf.Variable(tf.reduce_sum(v1) + v1 * 3.0, name="v3")
    draw = tf.random_uniform([2])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run([v1, v2, v3, draw])
    return {
        "values": [v.tolist() for v in values],
        "copies": _copies(tf, "_v2") + _copies(tf, "_v3"),
    }


@case
def chained_initialized_value(tf):
    w = tf.Variable(tf.ones([2]) * 3.0, name="w")
    u = tf.Variable(w.initialized_value() * 2.0, name="u")
    draw = tf.random_uniform([2])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return {"values": [v.tolist() for v in sess.run([w, u, draw])]}


@case
def moving_average_slots_then_a_seeded_draw(tf):
    w = tf.Variable(tf.random_normal([3]), name="w")
    ema = tf.train.ExponentialMovingAverage(0.9)
    update = ema.apply([w])
    draw = tf.random_uniform([2])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(update)
        return {"values": [v.tolist() for v in sess.run([ema.average(w), draw])]}
