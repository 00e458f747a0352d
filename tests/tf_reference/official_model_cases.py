"""Programs in the style of TF1 model scripts (a tf.data input function parsing CSV lines and
logging as it goes, estimators' log lines), run as script files by TF 1.15
(record_official_model.py) and tfcluster (tests/unit/test_official_model.py): their stdout
and the order of TensorFlow's WARNING / INFO lines on stderr are compared. Files TF names in a
warning ("From .../directives.py:119:") are written "From <library>:". Python 3.7 code."""

import re

try:
    from tf_reference.deprecated_name_cases import run_program
except ImportError:  # run from tests/tf_reference by the recorder
    from deprecated_name_cases import run_program

CASES = {
    "converted_function_names_announced_before_its_body_runs": """
import tensorflow as tf
tf.logging.set_verbosity(tf.logging.INFO)


def parse_csv(value):
    tf.logging.info("Parsing {}".format("adult.data"))
    columns = tf.decode_csv(value, record_defaults=[[0], [""]])
    label = tf.string_to_number(columns[1] + "1")
    return {"age": columns[0]}, tf.to_float(label)


def helper(x):
    print("helper runs")
    return tf.div(x, 2)


ds = tf.data.TextLineDataset(["none.csv"]).map(parse_csv)
ds = ds.map(lambda f, l: (f, helper(l)))
ds = ds.filter(lambda f, l: tf.is_nan(l))
print("built")
tf.logging.info("Parsing done")
w = tf.log(2.0) + tf.to_float(1)
""",
    "sync_on_read_variables_saved_and_restored_under_mirrored_strategy": """
import os
import tempfile

import tensorflow as tf

strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
with strategy.scope():
    mean = tf.Variable(
        [1.0, 2.0],
        name="moving_mean",
        synchronization=tf.VariableSynchronization.ON_READ,
        aggregation=tf.VariableAggregation.MEAN,
        trainable=False,
        use_resource=True,
    )
    total = tf.Variable(
        3.0,
        name="total",
        synchronization=tf.VariableSynchronization.ON_READ,
        aggregation=tf.VariableAggregation.SUM,
        trainable=False,
    )
print(type(mean).__name__, mean.dtype, [v.name for v in tf.global_variables()])
saver = tf.train.Saver()
folder = tempfile.mkdtemp()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    path = saver.save(sess, os.path.join(folder, "model"))
    sess.run(tf.group(*[c.assign(tf.zeros_like(c)) for c in mean.values + total.values]))
    saver.restore(sess, path)
    print(sess.run(mean.values[0]), sess.run(total.values[0]))
print(sorted((n, tuple(s)) for n, s in tf.train.list_variables(folder)))
""",
    "mirrored_strategy_warns_as_it_chooses_its_reduction": """
import tensorflow as tf

for devices in (["/cpu:0"], ["/gpu:7"]):  # (no GPU 7 on any machine here)
    strategy = tf.distribute.MirroredStrategy(devices)
    print(strategy.num_replicas_in_sync)
explicit = tf.distribute.MirroredStrategy(
    ["/cpu:0"], cross_device_ops=tf.distribute.ReductionToOneDevice()
)
print(explicit.num_replicas_in_sync)
""",
    "estimator_input_fn_told_its_input_context": """
import logging
import tempfile

import numpy as np
import tensorflow as tf

# TF's logger is "tensorflow" in both frameworks (run_case renames the framework's module).
logging.getLogger("tensor" + "flow").addFilter(
    lambda record: record.levelno >= logging.WARNING or "input_fn" in record.getMessage()
)
tf.logging.set_verbosity(tf.logging.INFO)


def model_fn(features, labels, mode):
    w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
    step = tf.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.train.get_or_create_global_step()
    )
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=step)


def data():
    x = np.ones((4, 2), np.float32)
    return tf.data.Dataset.from_tensor_slices((x, x[:, :1])).repeat().batch(2)


def train_input_fn(input_context=None):
    print("train", type(input_context).__name__, input_context.num_input_pipelines)
    return data()


def eval_input_fn(params, input_context="unset"):
    print("eval", input_context)
    return data()


config = tf.estimator.RunConfig(
    train_distribute=tf.distribute.MirroredStrategy(["/cpu:0"]), tf_random_seed=1
)
est = tf.estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp(), config=config)
est.train(train_input_fn, steps=1)
print(sorted(est.evaluate(eval_input_fn, steps=1)))
""",
    "sharded_saver_puts_partitioned_resource_variables_in_a_cpu_shard": """
import os
import tempfile

import tensorflow as tf

step = tf.train.get_or_create_global_step()
with tf.variable_scope("linear", partitioner=tf.fixed_size_partitioner(2)):
    w = tf.get_variable("w", [4, 1], use_resource=True, initializer=tf.ones_initializer())
plain = tf.get_variable("plain", [2], use_resource=True, initializer=tf.zeros_initializer())
ref = tf.get_variable("ref", [3], initializer=tf.zeros_initializer(), use_resource=False)
saver = tf.train.Saver(sharded=True)
graph = tf.get_default_graph()
for op in graph.get_operations():
    if op.type == "SaveV2":
        names = [n.decode() for n in op.inputs[1].op.get_attr("value").string_val]
        print(op.name, op.device, names)
folder = tempfile.mkdtemp()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    path = saver.save(sess, os.path.join(folder, "model"), global_step=7)
    sess.run(tf.assign(w._get_variable_list()[1], [[5.0], [6.0]]))
    saver.restore(sess, path)
    print(sess.run(tf.concat(w._get_variable_list(), 0)).ravel())
print(sorted(f for f in os.listdir(folder) if f.startswith("model")))
print(sorted(tf.train.list_variables(path)))
""",
}

_FROM = re.compile(r"^(WARNING:tensorflow:From )(\S+?):\d+: ")


def log_lines(stderr, folder):
    """TensorFlow's WARNING / INFO lines (first line of each), library files' names hidden."""
    lines = []
    for line in stderr.splitlines():
        if not line.startswith(("WARNING:tensorflow:", "INFO:tensorflow:")):
            continue
        match = _FROM.match(line)
        if match and match.group(2) != "prog.py":
            line = match.group(1) + "<library>: " + line[match.end() :]
        lines.append(line)
    return lines


def run_case(python, module, name, env=None):
    """{"stdout": ..., "warnings": [...]} of the case run as `python prog.py`."""
    return run_program(python, CASES[name].replace("tensorflow", module), log_lines, env)
