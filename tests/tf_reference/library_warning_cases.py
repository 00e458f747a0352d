"""Deprecation warnings TF 1.15 prints from its own files while a program runs: Layer.apply,
announced at the first tf.layers function (their functional interfaces call layer.apply),
BaseResourceVariable.__init__'s `constraint`, announced at the first resource variable
(TF's variable creator passes it, None too), and the renamed names a tf.data function reads
(AutoGraph, converting it, announces them from its own file); tf.test.TestCase's
test_session, announced from contextlib (its context manager calls it); and what TF's RNN
code calls:
the cells' add_variable and the dtype of their bias initializers, dynamic_rnn and static_rnn
under the bidirectional ones, where in raw_rnn and a "div" partitioned lookup, div in a
variational DropoutWrapper, and the dtype of the RMSProp and Adagrad slot initializers; what
queue-based input calls (input_producer, limit_epochs, count_up_to, QueueRunner,
add_queue_runner, start_queue_runners), boolean_mask's where (a MonitoredSession's and a
Supervisor's readiness check), a hook's or moving average's initialized_value; and
build_tensor_info, announced at the first SignatureDef a builder makes (simple_save's),
extract_sub_graph that convert_variables_to_constants calls, the cells' logged warnings (a
concatenated state, one cell twice in a MultiRNNCell, LSTMCell's shards), the modules behind
tf.gfile, tf.logging and tf.nn imported by path (tensorflow.python.platform.gfile, ...): their
deprecated functions warn, their names do not; and initialize_all_variables,
initialize_variables, initialize_local_variables and batch_gather, whose deprecation TF
announces from the file of the decorator around it (tf_should_use's, dispatch's); the
distributions' Distribution.__init__ and multinomial, and the V1 initializers' `dtype` a saved
Keras model's config passes to from_config and Keras's random initializers pass their V1
parents. Every
"is deprecated" warning and the watched logged lines count, in order. Each program runs as a
script
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
    "test_case_test_session": """
import tensorflow as tf
class T(tf.test.TestCase):
    def test_add(self):
        with self.test_session() as sess:
            print(sess.run(tf.constant(1) + 1))
        with self.test_session() as sess:
            print(self.evaluate(tf.constant(3)))
case = T("test_add")
case.setUp()
case.test_add()
case.tearDown()
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
    "bidirectional_dynamic_rnn_announces_dynamic_rnn_and_the_cells_deprecations": """
import tensorflow as tf
cell_fw = tf.nn.rnn_cell.LSTMCell(3)
cell_bw = tf.nn.rnn_cell.LSTMCell(3)
x = tf.zeros([2, 4, 5])
out = tf.nn.bidirectional_dynamic_rnn(cell_fw, cell_bw, x, sequence_length=[4, 2], dtype=tf.float32)
print("done")
""",
    "static_bidirectional_rnn_of_gru_cells_announces_static_rnn_and_initializer_dtypes": """
import tensorflow as tf
cell_fw = tf.nn.rnn_cell.GRUCell(3)
cell_bw = tf.nn.rnn_cell.GRUCell(3)
xs = [tf.zeros([2, 5])] * 3
out = tf.nn.static_bidirectional_rnn(cell_fw, cell_bw, xs, dtype=tf.float32)
print("done")
""",
    "multi_rnn_cell_of_basic_lstm_cells_announces_add_variable_and_zeros_dtype": """
import tensorflow as tf
cells = [tf.nn.rnn_cell.BasicLSTMCell(3) for _ in range(2)]
out = tf.nn.dynamic_rnn(tf.nn.rnn_cell.MultiRNNCell(cells), tf.zeros([2, 4, 5]), dtype=tf.float32)
print("done")
""",
    "variational_dropout_wrapper_announces_div": """
import tensorflow as tf
cell = tf.nn.rnn_cell.GRUCell(3)
cell = tf.nn.rnn_cell.DropoutWrapper(
    cell, output_keep_prob=0.5, variational_recurrent=True, dtype=tf.float32
)
out = tf.nn.dynamic_rnn(cell, tf.zeros([2, 4, 5]), dtype=tf.float32)
print("done")
""",
    "raw_rnn_announces_where": """
import tensorflow as tf
cell = tf.nn.rnn_cell.BasicRNNCell(3)
inputs = tf.TensorArray(tf.float32, size=4).unstack(tf.zeros([4, 2, 5]))


def loop_fn(time, cell_output, cell_state, loop_state):
    state = cell.zero_state(2, tf.float32) if cell_output is None else cell_state
    finished = time >= 4
    nxt = tf.cond(
        tf.reduce_all(finished),
        lambda: tf.zeros([2, 5]),
        lambda: inputs.read(tf.minimum(time, 3)),
    )
    return finished, nxt, state, cell_output, None


out = tf.nn.raw_rnn(cell, loop_fn)
print("done")
""",
    "rmsprop_and_adagrad_slots_announce_initializer_dtypes": """
import tensorflow as tf
v = tf.Variable(1.0)
optimizers = (tf.train.RMSPropOptimizer(0.1), tf.train.AdagradOptimizer(0.1))
steps = [o.minimize(v * v) for o in optimizers]
print("done")
""",
    "embedding_lookup_partitioned_by_div_announces_where": """
import tensorflow as tf
with tf.variable_scope("e", partitioner=tf.fixed_size_partitioner(2)):
    emb = tf.get_variable("emb", [10, 3])
rows = tf.nn.embedding_lookup(emb, [1, 7], partition_strategy="div")
print("done")
""",
    "a_programs_own_cell_announces_add_variable_from_its_build": """
import tensorflow as tf
class Cell(tf.nn.rnn_cell.RNNCell):
    @property
    def state_size(self):
        return 2

    @property
    def output_size(self):
        return 2

    def build(self, shape):
        self.w = self.add_variable("w", [int(shape[-1]) + 2, 2])
        self.built = True

    def call(self, x, s):
        o = tf.tanh(tf.matmul(tf.concat([x, s], 1), self.w))
        return o, o


out = tf.nn.dynamic_rnn(Cell(), tf.zeros([2, 3, 4]), dtype=tf.float32)
print("done")
""",
    "string_input_producer_and_shuffle_batch_with_queue_runners": """
import os
import tempfile
import tensorflow as tf
path = os.path.join(tempfile.mkdtemp(), "lines.txt")
with open(path, "w") as f:
    f.write("1\\n2\\n3\\n4\\n")
queue = tf.train.string_input_producer([path], num_epochs=1)
_, line = tf.TextLineReader().read(queue)
batch = tf.train.shuffle_batch([line], 2, 10, 2)
with tf.Session() as sess:
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    print(len(sess.run(batch)))
    coord.request_stop()
    coord.join(threads)
""",
    "slice_input_producer_batch_in_a_monitored_session": """
import tensorflow as tf
x, y = tf.train.slice_input_producer([tf.range(10), tf.range(10)], shuffle=False)
batch = tf.train.batch([x, y], 2)
with tf.train.MonitoredSession() as sess:
    print(sess.run(batch)[0].tolist())
""",
    "estimator_trained_from_numpy_input_fn": """
import tempfile
import numpy as np
import tensorflow as tf


def model_fn(features, labels, mode):
    logits = tf.layers.dense(features["x"], 2)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss, tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=step)


x = {"x": np.arange(16, dtype=np.float32).reshape(8, 2)}
y = np.array([0, 1] * 4)
estimator = tf.estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp())
estimator.train(tf.estimator.inputs.numpy_input_fn(x, y, 4, num_epochs=1, shuffle=False))
print("done")
""",
    "monitored_training_session_with_checkpoints": """
import tempfile
import tensorflow as tf
step = tf.train.get_or_create_global_step()
increment = tf.assign_add(step, 1)
hooks = [tf.train.StopAtStepHook(last_step=3)]
with tf.train.MonitoredTrainingSession(checkpoint_dir=tempfile.mkdtemp(), hooks=hooks) as sess:
    while not sess.should_stop():
        sess.run(increment)
print("done")
""",
    "supervisor_managed_session": """
import tempfile
import tensorflow as tf
v = tf.Variable(1.0)
supervisor = tf.train.Supervisor(logdir=tempfile.mkdtemp())
with supervisor.managed_session() as sess:
    print(sess.run(v))
supervisor.stop()
""",
    "boolean_mask_and_moving_averages": """
import tensorflow as tf
kept = tf.boolean_mask(tf.constant([1, 2, 3]), [True, False, True])
v = tf.Variable(1.0)
average = tf.train.ExponentialMovingAverage(0.9).apply([v])
print("done")
""",
    "count_up_to_queue_runner_made_by_the_program": """
import tensorflow as tf
v = tf.Variable(0, dtype=tf.int64)
counted = v.count_up_to(3)
r = tf.Variable(0, dtype=tf.int64, use_resource=True)
counted_too = r.count_up_to(3)
queue = tf.FIFOQueue(3, tf.float32)
runner = tf.train.QueueRunner(queue, [queue.enqueue([1.0])])
tf.train.add_queue_runner(runner)
print("done")
""",
    "distributions_announce_their_base_and_multinomial": """
import tensorflow as tf
normal = tf.distributions.Normal(0.0, 1.0)
draws = normal.sample(2, seed=1)
categorical = tf.distributions.Categorical(logits=[0.0, 1.0])
picks = categorical.sample(seed=3)
counts = tf.distributions.Multinomial(3.0, probs=[0.2, 0.8]).sample(2, seed=1)
print("done")
""",
    "keras_model_saved_and_loaded_announces_initializer_dtypes": """
import os
import tempfile
import numpy as np
import tensorflow as tf
inputs = tf.keras.Input((4,))
outputs = tf.keras.layers.Dense(2, activation="softmax")(inputs)
model = tf.keras.Model(inputs, outputs)
model.compile("adam", "sparse_categorical_crossentropy")
path = os.path.join(tempfile.mkdtemp(), "model.h5")
model.save(path)
loaded = tf.keras.models.load_model(path)
print(loaded.predict(np.zeros((1, 4))).shape)
""",
    "keras_recurrent_models_announce_initializer_dtypes": """
import numpy as np
import tensorflow as tf
model = tf.keras.Sequential(
    [
        tf.keras.layers.Embedding(10, 3, input_length=4),
        tf.keras.layers.GRU(2, return_sequences=True),
        tf.keras.layers.SimpleRNN(2),
        tf.keras.layers.Dense(1, activation="sigmoid"),
    ]
)
model.compile("rmsprop", "binary_crossentropy", metrics=["acc"])
model.fit(np.zeros((4, 4)), np.zeros((4, 1)), epochs=1, verbose=0)
lstm = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2), input_shape=(3, 2))
other = tf.keras.Sequential([lstm, tf.keras.layers.Dense(1)])
other.compile(tf.keras.optimizers.Adagrad(), "mse")
other.fit(np.zeros((2, 3, 2)), np.zeros((2, 1)), verbose=0)
print("done")
""",
    "keras_random_initializers_made_by_the_program": """
import tensorflow as tf
uniform = tf.keras.initializers.RandomUniform()
truncated = tf.keras.initializers.TruncatedNormal(stddev=0.1)
normal = tf.keras.initializers.RandomNormal()
v1 = tf.random_uniform_initializer(dtype=tf.float32)
print("done")
""",
    "boosted_trees_over_an_indicator_column_announces_to_int32": """
import tempfile
import numpy as np
import tensorflow as tf

fc = tf.feature_column
x = np.linspace(0, 1, 8).astype(np.float32)
columns = [
    fc.bucketized_column(fc.numeric_column("x"), [0.5]),
    fc.indicator_column(fc.categorical_column_with_vocabulary_list("c", ["a", "b"])),
]


def input_fn():
    features = {"x": x, "c": np.array(["a", "b"] * 4)}
    return tf.data.Dataset.from_tensor_slices((features, (x > 0.5).astype(np.int32))).batch(8)


estimator = tf.estimator.BoostedTreesClassifier(
    columns, n_batches_per_layer=1, n_trees=1, max_depth=1, model_dir=tempfile.mkdtemp()
)
estimator.train(input_fn, max_steps=1)
print("done")
""",
    "deprecation_warnings_switched_off_then_on": """
from tensorflow.python.util import deprecation
import tensorflow as tf

deprecation._PRINT_DEPRECATION_WARNINGS = False
x = tf.to_float(tf.constant(1))
y = tf.nn.dropout(tf.ones([2]), keep_prob=0.5)
z = tf.layers.dense(tf.ones([1, 2]), 1)
sess = tf.Session()
deprecation._PRINT_DEPRECATION_WARNINGS = True
x2 = tf.to_float(tf.constant(2))
w = tf.to_int32(tf.constant(2.0))
with deprecation.silence():
    v = tf.to_int64(tf.constant(3))
v2 = tf.to_int64(tf.constant(4))
print("done")
""",
    "freeze_graph_announces_what_it_calls": """
import os
import tempfile
import tensorflow as tf
from tensorflow.python.tools import freeze_graph

folder = tempfile.mkdtemp()
v = tf.Variable([1.0, 2.0], name="v")
out = tf.multiply(v, 2.0, name="out")
with tf.Session() as sess:
    sess.run(v.initializer)
    prefix = tf.train.Saver().save(sess, os.path.join(folder, "model"))
tf.train.write_graph(tf.get_default_graph().as_graph_def(), folder, "graph.pbtxt")
frozen = freeze_graph.freeze_graph(
    os.path.join(folder, "graph.pbtxt"), "", False, prefix, "out", "", "",
    os.path.join(folder, "frozen.pb"), True, "",
)
print(sorted(n.op for n in frozen.node))
""",
    "variables_frozen_into_constants_are_logged_at_info": """
import tensorflow as tf
tf.logging.set_verbosity(tf.logging.INFO)
w = tf.Variable([1.0, 2.0], name="w")
r = tf.get_variable("r", initializer=[3.0], use_resource=True)
kept = tf.Variable([5.0], name="kept")
y = tf.identity(w * 2.0 + r + kept, name="y")
c = tf.constant(1.0, name="c")
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    frozen = tf.graph_util.convert_variables_to_constants(
        sess, sess.graph_def, ["y"], variable_names_blacklist=["kept"]
    )
    nothing = tf.graph_util.convert_variables_to_constants(sess, sess.graph_def, ["c"])
print(sorted((n.name, n.op) for n in frozen.node))
print(len(nothing.node))
""",
    "linear_sdca_reads_v2_columns_and_announces_its_casts": """
import tempfile
import numpy as np
import tensorflow as tf

fc = tf.feature_column
x = np.linspace(0, 1, 8).astype(np.float32)
columns = [fc.numeric_column("x"), fc.categorical_column_with_vocabulary_list("c", ["a", "b"])]


def input_fn():
    features = {"x": x, "c": np.array(["a", "b"] * 4), "id": np.array([str(i) for i in range(8)])}
    return tf.data.Dataset.from_tensor_slices((features, (x > 0.5).astype(np.int32))).batch(8)


sdca = tf.estimator.experimental.LinearSDCA(example_id_column="id", symmetric_l2_regularization=0.1)
estimator = tf.estimator.LinearClassifier(columns, optimizer=sdca, model_dir=tempfile.mkdtemp())
estimator.train(input_fn, max_steps=1)
print("done")
""",
}

_FROM = re.compile(r"^WARNING:tensorflow:From (.*?):\d+: ")
_WATCHED = (
    " is deprecated",
    "Using a concatenated state",
    "At least two cells",
    "num_unit_shards",
    "INFO:tensorflow:",
)
# Python's warnings ("<file>:<line>: UserWarning: ..."), compared without the file, line and
# code line, which are the library's.
_PYTHON_WARNING = re.compile(r"^(\S.*:\d+: )(\w*Warning: .*)$")
# An object's default repr in a logged message: its class name only (TF's module path and the
# address are TensorFlow's own).
_OBJECT = re.compile(r"<[\w.]+\.(\w+) object at 0x[0-9a-fA-F]+>")


def warnings_of(stderr, where):
    """[(whose, message)] of the watched deprecation warnings: `whose` is "program" for the
    program's file, "library" for any other; the message without its From part."""
    records = []
    source_next = False
    for line in stderr.splitlines():
        if source_next and line.startswith("  "):
            source_next = False  # the library's own code line Python prints under a warning
            continue
        source_next = bool(_PYTHON_WARNING.match(line))
        if line.startswith(("WARNING:", "INFO:")):
            records.append([line])
        elif records and line.strip():
            records[-1].append(_PYTHON_WARNING.sub(r"\2", line))
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
