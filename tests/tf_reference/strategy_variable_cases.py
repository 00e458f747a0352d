"""Variables made in a distribution strategy's scope are resource variables in TF 1.15
(distribute_lib's creator sets use_resource): their kinds, an optimizer's global-step
increment through them, and the steps an Estimator with train_distribute logs (its logging
hook reads the step's variable, which a resource read gives before the step's increment).

Python 3.7 code: record_strategy_variables.py runs it under TF 1.15, the test under
tfcluster. Each program takes the `tf` module and returns plain data."""

import logging
import re
import tempfile

import numpy as np


def scope_variable_kinds(tf):
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
        with strategy.scope():
            made = [
                tf.get_variable("v", [2], initializer=tf.zeros_initializer()),
                tf.Variable(1.0, name="u"),
                tf.train.get_or_create_global_step(),
            ]
        return [[type(v.primary).__name__, v.primary.op.type, v.dtype.name, v.name] for v in made]


def step_updates(tf):
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
        with strategy.scope():
            step = tf.train.get_or_create_global_step()
            w = tf.get_variable("w", [1], initializer=tf.ones_initializer())

            def replica_step():
                loss = tf.reduce_sum(w * 2.0)
                return tf.train.GradientDescentOptimizer(0.1).minimize(loss, step)

            train_op = strategy.group(strategy.extended.call_for_each_replica(replica_step))
        out = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train_op)
                s, v = sess.run([step, w])
                out.append([int(s), v.tolist()])
        return out


class _Lines(logging.Handler):
    def __init__(self):
        logging.Handler.__init__(self)
        self.lines = []

    def emit(self, record):
        message = record.getMessage()
        if message.startswith("loss = "):
            self.lines.append(re.sub(r" \(\d+\.\d+ sec\)", "", message))


def estimator_logged_steps(tf):
    def input_fn():
        x = np.arange(16, dtype=np.float32).reshape(8, 2)
        return tf.data.Dataset.from_tensor_slices((x, x[:, :1])).repeat().batch(4)

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
        loss = tf.losses.mean_squared_error(labels, tf.matmul(features, w))
        step = tf.train.get_or_create_global_step()
        train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss, step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    config = tf.estimator.RunConfig(
        train_distribute=tf.distribute.MirroredStrategy(["/cpu:0"]), log_step_count_steps=1
    )
    estimator = tf.estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp(), config=config)
    handler = _Lines()
    logger = logging.getLogger("tensorflow")
    old_level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    try:
        estimator.train(input_fn, max_steps=3)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    return {"lines": handler.lines, "final_step": int(estimator.get_variable_value("global_step"))}


CASES = {
    "scope_variable_kinds": scope_variable_kinds,
    "step_updates": step_updates,
    "estimator_logged_steps": estimator_logged_steps,
}
