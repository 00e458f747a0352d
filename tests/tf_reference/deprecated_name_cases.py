"""Programs that read names TF 1.15 announces as deprecated ("The name tf.X is deprecated.
Please use tf.Y instead.") or call functions it deprecates ("dense (from ...) is deprecated
and will be removed in a future version. Instructions for updating: ..."), for TF 1.15
(recorded by record_deprecated_names.py) and tfcluster (tests/unit/test_deprecated_names.py).
Each runs as a script file of its own (`python prog.py`, with `import <framework> as tf`
replaced in it); its stdout and those warnings on stderr are compared. Python 3.7 code."""

import os
import re
import subprocess
import tempfile

CASES = {
    "everyday_program": """
import tensorflow as tf
x = tf.placeholder(tf.float32, [None, 2])
w = tf.Variable(tf.random_normal([2, 1], seed=1))
loss = tf.reduce_mean(tf.square(tf.matmul(x, w)))
step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print(sess.run(loss, {x: [[1.0, 2.0]]}) >= 0)
tf.logging.set_verbosity(tf.logging.INFO)
""",
    "each_name_warns_once": """
import tensorflow as tf
a = tf.placeholder(tf.float32)
b = tf.placeholder(tf.float32)
for _ in range(3):
    tf.get_variable_scope()
print("done")
""",
    "compat_v1_reads_say_nothing": """
import tensorflow.compat.v1 as tf
x = tf.placeholder(tf.float32)
with tf.Session() as sess:
    print(sess.run(x * 2.0, {x: 3.0}))
tf.logging.info("quiet")
print(tf.train.Saver is not None, tf.nn.rnn_cell.LSTMCell.__name__)
""",
    "compat_v1_then_tf_names": """
import tensorflow as tf
x = tf.compat.v1.placeholder(tf.float32)
y = tf.placeholder(tf.float32)
print("read")
""",
    "submodules_and_from_imports": """
import tensorflow as tf
from tensorflow import Session
saver_class = tf.train.Saver
cell = tf.nn.rnn_cell.BasicLSTMCell
loss = tf.losses.sparse_softmax_cross_entropy
reader = tf.python_io.tf_record_iterator
exists = tf.gfile.Exists
print(Session.__name__, saver_class.__name__, cell.__name__)
""",
    "reads_from_exec_said_nowhere": """
import tensorflow as tf
exec(compile("p = tf.placeholder(tf.float32)", "<string>", "exec"))
q = tf.placeholder(tf.float32)
r = tf.Session
print("ok")
""",
    "functions_deprecated_as_a_whole": """
import tensorflow as tf
x = tf.placeholder(tf.float32, [None, 2])
h = tf.layers.dense(x, 3, name="h1")
h2 = tf.layers.dense(h, 3, name="h2")
f = tf.to_float(tf.constant(1))
g = tf.compat.v1.to_float(tf.constant(2))
loss = tf.nn.softmax_cross_entropy_with_logits(labels=h, logits=h2)
p = tf.Print(f, [f])
queue = tf.train.string_input_producer(["a", "b"])
print("built")
""",
    "functions_deprecated_for_some_arguments": """
import tensorflow as tf
x = tf.placeholder(tf.float32, [None, 2])
d = tf.nn.dropout(x, keep_prob=0.5)
d2 = tf.nn.dropout(x, 0.5)
s = tf.reduce_sum(x, 1, keep_dims=True)
s2 = tf.reduce_sum(x, 1, None, None, None, True)
m = tf.reduce_max(x, 1, keep_dims=False)
a = tf.argmax(x, dimension=1)
a2 = tf.argmax(x, 1)
e = tf.expand_dims(x, 0)
sm = tf.nn.softmax(x, dim=1)
print("ok")
""",
    "classes_deprecated_when_made": """
import tensorflow as tf
cell = tf.nn.rnn_cell.BasicLSTMCell(8)
cell2 = tf.nn.rnn_cell.BasicLSTMCell(4)
gru = tf.nn.rnn_cell.GRUCell(3)
stack = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(2), tf.nn.rnn_cell.LSTMCell(2)])


class MyCell(tf.nn.rnn_cell.BasicRNNCell):
    def __init__(self, n):
        super(MyCell, self).__init__(n)


mine = MyCell(3)
init = tf.constant_initializer(0.5, dtype=tf.float32)
zeros = tf.zeros_initializer()
reader = tf.TFRecordReader()
print("made")
""",
    "calls_spread_over_lines": """
import tensorflow as tf
x = tf.placeholder(tf.float32,
                   [None, 2])
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=x,
                                                              labels=x))
d = tf.nn.dropout(
    x,
    keep_prob=0.5)
h = tf.layers.dense(
    x, 3,
    name="h")
cell = tf.nn.rnn_cell.BasicLSTMCell(
    8,
    forget_bias=1.0)
f = (tf
     .to_float(tf.constant(1)))
with tf.variable_scope("s",
                       reuse=None):
    g = tf.to_int32(f,
                    name="g")
values = [tf.constant(2.0), tf.Print(f,
                                     [f])]
s = tf.reduce_sum(x, 1,
                  keep_dims=True)
if tf.argmax(x,
             dimension=1) is not None:
    m = tf.reduce_max(x, 1,
                      keep_dims=True); n = tf.expand_dims(x,
                                                          0)
print("ok")
""",
    "deprecated_argument_values": """
import tensorflow as tf
x = tf.ones([1, 5, 2])
f = tf.ones([2, 2, 3])
a = tf.nn.conv1d(x, f, 1, "VALID")
b = tf.nn.conv1d(x, f, stride=1, padding="VALID", data_format="NWC")
c = tf.nn.conv1d(x, f, 1, "VALID", None, "NHWC")
xc = tf.ones([1, 2, 5])
d = tf.nn.conv1d(xc, f, 1, "VALID", data_format="NCHW")
e = tf.nn.conv1d(xc, f, 1, "VALID", None, "NCHW")
i1 = tf.variance_scaling_initializer()
i2 = tf.variance_scaling_initializer(distribution="truncated_normal")
i3 = tf.variance_scaling_initializer(2.0, "fan_avg", "normal")
i4 = tf.glorot_uniform_initializer()
print("ok")
""",
    "deprecated_methods_and_properties": """
import tensorflow as tf
ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
types = ds.output_types
shapes = ds.output_shapes
classes = ds.output_classes
it = ds.make_one_shot_iterator()
it2 = ds.batch(2).make_initializable_iterator()
x = it.get_next()
print(it.output_types, it.output_shapes, it2.output_classes.__name__)
lines = tf.data.TextLineDataset(["a.txt"]).make_one_shot_iterator()
layer = tf.layers.Dense(3)
y = layer.apply(tf.ones([2, 2]))
y2 = layer.apply(tf.ones([2, 2]))
v = tf.Variable(1.0)
w = tf.Variable(v.initialized_value() * 2.0)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    v.load(3.0, sess)
    print(sess.run(w))
print(layer.graph is tf.get_default_graph())
print("done")
""",
    "deprecations_under_other_decorators_name_tf_files": """
import tensorflow as tf
x = tf.ones([2, 3])
a = tf.expand_dims(x, dim=0)
b = tf.squeeze(tf.ones([1, 2]), squeeze_dims=[0])
c = tf.batch_gather(x, [[0], [1]])
n = tf.count_nonzero(x, reduction_indices=0)
i = tf.initialize_all_variables()
j = tf.initialize_local_variables()
k = tf.constant_initializer(0.5, verify_shape=False)
print("ok")
""",
    "names_read_in_converted_functions": """
import tensorflow as tf


def parse(x):
    y = tf.to_float(x)
    return tf.read_file(tf.as_string(x)), tf.log(y)


ds = tf.data.Dataset.from_tensor_slices([1, 2]).map(parse)
ds2 = ds.filter(lambda a, b: tf.is_nan(b))


@tf.function
def fn(x):
    return tf.log1p(x) + tf.div(x,
                                2.0)


y = fn(tf.constant(1.0))
f = tf.read_file("a")
g = tf.log(2.0) + tf.log1p(1.0)
h = tf.to_float(1)
w = tf.is_nan(1.0)
s = tf.squared_difference(1.0, 2.0)
print("ok")
""",
    "a_helper_module_reads_first": """
import os
import sys
with open("helper_module.py", "w") as f:
    f.write("import tensorflow as tf\\n\\ndef make():\\n    return tf.placeholder(tf.float32)\\n")
sys.path.insert(0, os.getcwd())
import helper_module
import tensorflow as tf
helper_module.make()
tf.placeholder(tf.float32)
print("made")
""",
    "pow_gradient_announces_where_first": """
import tensorflow as tf
x = tf.constant([1.0, 2.0])
g = tf.gradients(x ** 2.0, x)
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "maximum_gradient_announces_where_first": """
import tensorflow as tf
x = tf.constant([1.0, 2.0])
g = tf.gradients(tf.maximum(x, 1.5), x)
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "segment_gradient_announces_where_first": """
import tensorflow as tf
x = tf.constant([1.0, 2.0, 3.0])
s = tf.unsorted_segment_sum(x, [0, 1, 0], 2)
g = tf.gradients(s, x)
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "sigmoid_cross_entropy_announces_where_first": """
import tensorflow as tf
l = tf.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0], logits=[0.5, -0.5])
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "clip_by_norm_announces_where_first": """
import tensorflow as tf
c = tf.clip_by_norm(tf.constant([3.0, 4.0]), 1.0)
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "clip_by_global_norm_announces_where_first": """
import tensorflow as tf
c, n = tf.clip_by_global_norm([tf.constant([3.0, 4.0])], 1.0)
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "reduce_logsumexp_announces_where_first": """
import tensorflow as tf
r = tf.reduce_logsumexp(tf.constant([1.0, 2.0]))
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "dynamic_rnn_sequence_length_announces_where_first": """
import tensorflow as tf
cell = tf.nn.rnn_cell.BasicRNNCell(2)
out, st = tf.nn.dynamic_rnn(cell, tf.ones([1, 3, 2]), sequence_length=[2], dtype=tf.float32)
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "weighted_loss_announces_where_first": """
import tensorflow as tf
l = tf.losses.mean_squared_error([1.0, 2.0], [1.5, 2.5], weights=tf.constant([1.0, 0.0]))
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "seeded_dataset_announces_where_first": """
import tensorflow as tf
tf.set_random_seed(1)
d = tf.data.Dataset.range(4).shuffle(4)
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "unseeded_dataset_leaves_where_to_the_program": """
import tensorflow as tf
d = tf.data.Dataset.range(4).shuffle(4)
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "disable_v2_behavior_announces_disable_resource_variables": """
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
tf.disable_resource_variables()
print("done")
""",
    "precision_metric_announces_div_and_where_first": """
import tensorflow as tf
p, u = tf.metrics.precision(tf.constant([1, 0]), tf.constant([1, 1]))
a = tf.div(tf.constant([4.0]), 2.0)
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "auc_metric_announces_div_first": """
import tensorflow as tf
a_, u = tf.metrics.auc(tf.constant([1, 0]), tf.constant([0.8, 0.3]))
a = tf.div(tf.constant([4.0]), 2.0)
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "mean_iou_metric_announces_where_and_div_first": """
import tensorflow as tf
m, u = tf.metrics.mean_iou(tf.constant([1, 0]), tf.constant([1, 1]), 2)
a = tf.div(tf.constant([4.0]), 2.0)
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "mean_relative_error_announces_div_and_where_first": """
import tensorflow as tf
m, u = tf.metrics.mean_relative_error(tf.constant([1.0]), tf.constant([1.5]), tf.constant([0.0]))
a = tf.div(tf.constant([4.0]), 2.0)
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "precision_at_k_metric_announces_div_first": """
import tensorflow as tf
labels = tf.constant([[1], [0]], tf.int64)
scores = tf.constant([[0.2, 0.8], [0.6, 0.4]])
p, u = tf.metrics.precision_at_k(labels, scores, 1)
a = tf.div(tf.constant([4.0]), 2.0)
print("done")
""",
    "recall_at_top_k_metric_announces_div_first": """
import tensorflow as tf
labels = tf.constant([[1], [0]], tf.int64)
r, u = tf.metrics.recall_at_top_k(labels, tf.constant([[1], [0]], tf.int64))
a = tf.div(tf.constant([4.0]), 2.0)
print("done")
""",
    "average_precision_at_k_metric_announces_div_first": """
import tensorflow as tf
labels = tf.constant([[1], [0]], tf.int64)
scores = tf.constant([[0.2, 0.8], [0.6, 0.4]])
m, u = tf.metrics.average_precision_at_k(labels, scores, 1)
a = tf.div(tf.constant([4.0]), 2.0)
print("done")
""",
    "precision_at_thresholds_metric_announces_div_first": """
import tensorflow as tf
labels, scores = tf.constant([True, False]), tf.constant([0.7, 0.2])
p, u = tf.metrics.precision_at_thresholds(labels, scores, [0.5])
a = tf.div(tf.constant([4.0]), 2.0)
print("done")
""",
    "recall_at_thresholds_metric_announces_div_first": """
import tensorflow as tf
labels, scores = tf.constant([True, False]), tf.constant([0.7, 0.2])
r, u = tf.metrics.recall_at_thresholds(labels, scores, [0.5])
a = tf.div(tf.constant([4.0]), 2.0)
print("done")
""",
    "sensitivity_at_specificity_metric_announces_div_first": """
import tensorflow as tf
labels, scores = tf.constant([True, False]), tf.constant([0.7, 0.2])
s, u = tf.metrics.sensitivity_at_specificity(labels, scores, 0.5)
a = tf.div(tf.constant([4.0]), 2.0)
print("done")
""",
    "specificity_at_sensitivity_metric_announces_div_first": """
import tensorflow as tf
labels, scores = tf.constant([True, False]), tf.constant([0.7, 0.2])
s, u = tf.metrics.specificity_at_sensitivity(labels, scores, 0.5)
a = tf.div(tf.constant([4.0]), 2.0)
print("done")
""",
    "per_image_standardization_announces_div_first": """
import tensorflow as tf
s = tf.image.per_image_standardization(tf.ones([2, 2, 3]))
a = tf.div(tf.constant([4.0]), 2.0)
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "weighted_embedding_lookup_sparse_announces_div_first": """
import tensorflow as tf
ids = tf.SparseTensor([[0, 0], [0, 1]], tf.constant([0, 1], tf.int64), [1, 2])
wts = tf.SparseTensor([[0, 0], [0, 1]], [1.0, 2.0], [1, 2])
e = tf.nn.embedding_lookup_sparse(tf.ones([2, 3]), ids, wts, combiner="mean")
a = tf.div(tf.constant([4.0]), 2.0)
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "keras_selu_announces_where_first": """
import tensorflow as tf
y = tf.keras.activations.selu(tf.constant([-1.0, 1.0]))
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "keras_switch_of_a_tensor_condition_announces_where_first": """
import tensorflow as tf
K = tf.keras.backend
y = K.switch(tf.constant([True, False]), tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]))
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "keras_masked_rnn_announces_where_first": """
import tensorflow as tf
x = tf.keras.Input((3, 2))
h = tf.keras.layers.SimpleRNN(2)(tf.keras.layers.Masking()(x))
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "keras_random_binomial_announces_where_first": """
import tensorflow as tf
b = tf.keras.backend.random_binomial((2,), 0.5, seed=1)
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "keras_elu_layer_of_another_alpha_announces_where_first": """
import tensorflow as tf
y = tf.keras.layers.ELU(alpha=0.5)(tf.constant([-1.0, 1.0]))
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
    "saver_past_max_to_keep_announces_remove_checkpoint_first": """
import os
import tensorflow as tf
v = tf.Variable(1.0)
saver = tf.train.Saver(max_to_keep=1)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(3):
        saver.save(sess, os.path.join(os.getcwd(), "model"), global_step=step)
tf.train.remove_checkpoint(os.path.join(os.getcwd(), "model-2"))
print(sorted(f for f in os.listdir(".") if f.startswith("model")))
""",
    "restored_session_announces_get_checkpoint_mtimes_first": """
import os
import tensorflow as tf
v = tf.Variable(1.0)
step = tf.train.get_or_create_global_step()
here = os.path.join(os.getcwd(), "ckpt")
with tf.train.MonitoredTrainingSession(checkpoint_dir=here) as sess:
    sess.run(v)
with tf.train.MonitoredTrainingSession(checkpoint_dir=here) as sess:
    sess.run(v)
print(tf.train.get_checkpoint_mtimes([tf.train.latest_checkpoint(here)])[0] > 0)
""",
    "prod_gradient_announces_setdiff1d_first": """
import tensorflow as tf
x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
g = tf.gradients(tf.reduce_prod(x, 0), x)
d = tf.setdiff1d([1, 2, 3], [2])
print("done")
""",
    "tensordot_of_tensor_axes_announces_setdiff1d_and_where_first": """
import tensorflow as tf
a = tf.placeholder(tf.float32)
t = tf.tensordot(a, tf.ones([2, 2]), [[1], [0]])
d = tf.setdiff1d([1, 2, 3], [2])
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
print("done")
""",
}


_FROM = re.compile(r"^WARNING:tensorflow:From (.*?):\d+: ")


def warning_records(stderr, continues=lambda line: True):
    """The WARNING records of stderr, each a list of its lines: a record's non-blank lines
    after its first, those `continues` accepts."""
    records = []
    for line in stderr.splitlines():
        if line.startswith("WARNING:"):
            records.append([line])
        elif records and line.strip() and continues(line):
            records[-1].append(line)
    return records


def program_or_library(records, where, watched):
    """[(whose, message)] of the "From <file>:<line>:" records holding one of `watched`:
    `whose` is "program" for the program's file, "library" for any other; the message
    without its From part."""
    out = []
    for lines in records:
        text = "\n".join(lines)
        match = _FROM.match(text)
        if not match or not any(w in text for w in watched):
            continue
        program = match.group(1) in ("prog.py", os.path.join(where, "prog.py"))
        out.append(["program" if program else "library", text[match.end() :]])
    return out


def warning_lines(stderr, where):
    """The deprecation warnings that name a file of the program (`where` dropped from their
    paths; those TF prints from its own files are left out), each with its instruction lines,
    as printed."""
    records = []
    for line in stderr.splitlines():
        if line.startswith("WARNING:"):
            records.append([line])
        elif records and line.strip():
            records[-1].append(line)
    kept = []
    for lines in records:
        text = "\n".join(lines).replace(where + os.sep, "")
        head = "WARNING:tensorflow:From "
        ours = text.startswith(head) and not text[len(head) :].startswith("/")
        if ours and " is deprecated" in text:
            kept.append(text)
    return kept


def run_case(python, module, name, env=None):
    """{"stdout": ..., "warnings": [...]} of the case run as `python prog.py` in a fresh
    directory (helper modules it writes are named relative to it)."""
    return run_program(python, CASES[name].replace("tensorflow", module), warning_lines, env)


def run_program(python, body, read_warnings, env=None):
    """{"stdout": ..., "warnings": read_warnings(stderr, folder)} of `body` run as
    `python prog.py` in a fresh folder."""
    with tempfile.TemporaryDirectory() as where:
        with open(os.path.join(where, "prog.py"), "w") as f:
            f.write(body)
        out = subprocess.run(
            [python, "prog.py"], capture_output=True, env=env, cwd=where, timeout=300
        )
        stderr = out.stderr.decode(errors="replace")
        if out.returncode:
            raise RuntimeError(stderr[-3000:])
        return {"stdout": out.stdout.decode(), "warnings": read_warnings(stderr, where)}
