"""Deprecation warnings TF 1.15 prints from its own files while a program runs: Layer.apply,
announced at the first tf.layers function (their functional interfaces call layer.apply),
BaseResourceVariable.__init__'s `constraint`, announced at the first resource variable
(TF's variable creator passes it, None too), and the renamed names a tf.data function reads
(AutoGraph, converting it, announces them from its own file), and build_tensor_info,
announced at the first SignatureDef a builder makes (simple_save's), Layer.add_variable and the
initializers' `dtype` that tf.nn.rnn_cell's cells use when built, extract_sub_graph that
convert_variables_to_constants calls, and the cells' logged warnings (a concatenated state,
one cell twice in a MultiRNNCell, LSTMCell's shards), and the modules behind tf.gfile,
tf.logging and tf.nn imported by path (tensorflow.python.platform.gfile, ...): their deprecated
functions warn, their names do not; and initialize_all_variables, initialize_variables,
initialize_local_variables and batch_gather, whose deprecation TF announces from the file of
the decorator around it (tf_should_use's, dispatch's). Each program runs as a script
file of its own; the warnings that name a library file (TF's, or tfcluster's where tfcluster
says them) are compared without that "From <file>:<line>:" part, and so are the program's
own. Written once for TF 1.15 (record_library_warnings.py) and tfcluster
(tests/unit/test_library_warnings.py); kept runnable on Python 3.7."""

import os
import re

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference import deprecated_name_cases
except ImportError:
    import deprecated_name_cases

PROGRAMS = {
    "tf_layers_then_keras_apply": """
import tensorflow as tf
x = tf.placeholder(tf.float32, [None, 4])
h = tf.layers.dense(x, 3)
h = tf.layers.dropout(h, training=True)
y = tf.keras.layers.Dense(2).apply(h)
print(y.shape)
""",
    "keras_apply_first": """
import tensorflow as tf
x = tf.placeholder(tf.float32, [None, 4])
y = tf.keras.layers.Dense(2).apply(x)
z = tf.layers.dense(y, 3)
print(z.shape)
""",
    "keras_model_resource_variables": """
import numpy as np
import tensorflow as tf
m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
m.compile("sgd", "mse")
m.fit(np.ones((4, 3)), np.ones((4, 2)), verbose=0)
v = tf.Variable(1.0, use_resource=True)
print("done")
""",
    "names_read_in_dataset_functions": """
import tensorflow as tf
def parse(record):
    features = tf.parse_single_example(record, {"a": tf.FixedLenFeature([], tf.int64)})
    return tf.cast(features["a"], tf.float32)
data = tf.data.Dataset.from_tensors(tf.constant(b"")).map(lambda r: tf.random_normal([]))
more = tf.data.Dataset.from_tensors(tf.constant(b"")).map(parse)
x = tf.random_normal([])
print("done")
""",
    "simple_save_then_build_tensor_info": """
import tensorflow as tf
x = tf.placeholder(tf.float32, [None, 3], name="x")
w = tf.Variable(tf.ones([3, 2]), name="w")
y = tf.matmul(x, w, name="y")
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    tf.saved_model.simple_save(sess, "model", inputs={"x": x}, outputs={"y": y})
info = tf.saved_model.utils.build_tensor_info(y)
print(info.name)
""",
    "build_tensor_info_then_predict_signature": """
import tensorflow as tf
x = tf.placeholder(tf.float32, [None, 3], name="x")
info = tf.saved_model.utils.build_tensor_info(x)
sig = tf.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"y": x * 2})
print(info.name, sig.method_name)
""",
    "regression_signature_from_compat_v1": """
import tensorflow as tf
v1 = tf.compat.v1
examples = v1.placeholder(tf.string, [None], name="examples")
scores = v1.placeholder(tf.float32, [None], name="scores")
sig = v1.saved_model.regression_signature_def(examples, scores)
info = v1.saved_model.build_tensor_info(scores)
print(sig.method_name, info.name)
""",
    "rnn_cells_built_by_static_rnn": """
import tensorflow as tf
x = tf.placeholder(tf.float32, [2, 3])
cells = [tf.nn.rnn_cell.BasicLSTMCell(4, state_is_tuple=False), tf.nn.rnn_cell.GRUCell(4)]
cell = tf.nn.rnn_cell.MultiRNNCell(cells, state_is_tuple=False)
out, state = tf.nn.static_rnn(cell, [x, x], dtype=tf.float32)
same = tf.nn.rnn_cell.BasicRNNCell(2)
first = tf.nn.rnn_cell.MultiRNNCell([same, same])
second = tf.nn.rnn_cell.MultiRNNCell([same, same])
lstm = tf.nn.rnn_cell.LSTMCell(3, state_is_tuple=False, num_proj_shards=1)
y, _ = lstm(x, lstm.zero_state(2, tf.float32))
print(out[-1].shape, state.shape, y.shape)
""",
    "program_initializer_dtype_before_cells": """
import tensorflow as tf
init = tf.zeros_initializer(dtype=tf.float32)
x = tf.placeholder(tf.float32, [2, 3])
cell = tf.nn.rnn_cell.BasicRNNCell(4)
y, _ = cell(x, cell.zero_state(2, tf.float32))
gru = tf.nn.rnn_cell.GRUCell(2)
z, _ = gru(y, gru.zero_state(2, tf.float32))
print(z.shape)
""",
    "frozen_graph_then_extract_sub_graph": """
import tensorflow as tf
w = tf.Variable([1.0, 2.0], name="w")
y = tf.identity(w * 2.0, name="y")
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    frozen = tf.graph_util.convert_variables_to_constants(sess, sess.graph_def, ["y"])
sub = tf.graph_util.extract_sub_graph(frozen, ["y"])
print(sorted(n.op for n in sub.node))
""",
    "gfile_and_logging_by_module_path": """
from tensorflow.python.platform import gfile
from tensorflow.python.platform import tf_logging as logging
import tensorflow as tf
with gfile.FastGFile("prog.py", "rb") as f:
    n = len(f.read())
logging.set_verbosity(logging.INFO)
logging.info("read %d", n > 0)
print(gfile.Exists("prog.py"), gfile.IsDirectory("."))
tf.logging.info("again")
print(tf.gfile.Exists("prog.py"))
""",
    "nn_module_by_path_then_tf_nn": """
from tensorflow.python.ops import nn
import tensorflow as tf
logits = tf.constant([[1.0, 2.0]])
labels = tf.constant([[0.0, 1.0]])
a = nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
b = nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
c = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
print(a.shape, b.shape, c.shape)
""",
    "initializers_by_deprecated_names": """
import tensorflow as tf
v = tf.Variable(1.0)
init = tf.initialize_all_variables()
again = tf.initialize_all_variables()
local = tf.initialize_local_variables()
some = tf.initialize_variables([v])
g = tf.batch_gather(tf.constant([[1, 2], [3, 4]]), tf.constant([[1], [0]]))
init2 = tf.global_variables_initializer()
with tf.Session() as sess:
    sess.run(init)
    print(init.name, again.name, local.name, some.name, init2.name, sess.run(g).tolist())
""",
    "ref_variables_only": """
import tensorflow as tf
v = tf.Variable(1.0)
w = tf.get_variable("w", [2])
print("done")
""",
}

_FROM = re.compile(r"^WARNING:tensorflow:From (.*?):\d+: ")
_WATCHED = (
    "Layer.apply (from",
    "BaseResourceVariable.__init__",
    "The name tf.",
    "build_tensor_info (from",
    "simple_save (from",
    "Layer.add_variable (from",
    "with dtype is deprecated",
    "extract_sub_graph (from",
    "convert_variables_to_constants (from",
    "Using a concatenated state",
    "At least two cells",
    "num_unit_shards",
    "FastGFile.__init__",
    "softmax_cross_entropy_with_logits",
    "INFO:tensorflow:",
    "initialize_all_variables (from",
    "initialize_local_variables (from",
    "initialize_variables (from",
    "batch_gather (from",
)
# An object's default repr in a logged message: its class name only (TF's module path and the
# address are TensorFlow's own).
_OBJECT = re.compile(r"<[\w.]+\.(\w+) object at 0x[0-9a-fA-F]+>")


def warnings_of(stderr, where):
    """[(whose, message)] of the watched deprecation warnings: `whose` is "program" for the
    program's file, "library" for any other; the message without its From part."""
    records = []
    for line in stderr.splitlines():
        if line.startswith(("WARNING:", "INFO:")):
            records.append([line])
        elif records and line.strip():
            records[-1].append(line)
    out = []
    for lines in records:
        text = "\n".join(lines)
        if not any(w in text for w in _WATCHED):
            continue
        match = _FROM.match(text)
        if not match:
            out.append(["log", _OBJECT.sub(r"<\1 object>", text)])
            continue
        program = match.group(1) in ("prog.py", os.path.join(where, "prog.py"))
        whose = "program" if program else "library"
        out.append([whose, text[match.end() :]])
    return out


def run_program(python, module, name, env=None):
    return deprecated_name_cases.run_program(
        python, PROGRAMS[name].replace("tensorflow", module), warnings_of, env
    )
