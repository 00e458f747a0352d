"""Deprecation warnings TF 1.15 prints from its own files when a program reads input the TF1
way: queue input functions (string_input_producer calls input_producer, which calls
limit_epochs, QueueRunner and add_queue_runner; the batching functions make QueueRunners;
slice_input_producer calls range_input_producer; MonitoredSession starts the queue runners),
the v1 `where` that boolean_mask calls (a Scaffold's report_uninitialized_variables does), the
Variable.initialized_value that ExponentialMovingAverage.apply calls, the MNIST tutorial
reader (read_data_sets and every function it calls are deprecated), and the RNN cells' build
(Layer.add_variable, and the dtype their bias initializers are given). TF announces each once,
at its first call from anywhere, so a program's own later call says nothing. Each program
runs as a script file of its own; warnings are compared without their "From <file>:<line>:"
part, marked as the program's or a library's. Written once for TF 1.15
(record_input_library_warnings.py) and tfcluster (tests/unit/test_input_library_warnings.py);
kept runnable on Python 3.7."""

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference import deprecated_name_cases
except ImportError:
    import deprecated_name_cases

_FAKE_MNIST = """
import gzip, struct
import numpy as np
def write_mnist(folder, n_train=60, n_test=20):
    os.makedirs(folder, exist_ok=True)
    rng = np.random.RandomState(0)
    for name, n in (("train", n_train), ("t10k", n_test)):
        with gzip.open(os.path.join(folder, name + "-images-idx3-ubyte.gz"), "wb") as f:
            f.write(struct.pack(">IIII", 2051, n, 28, 28))
            f.write(rng.randint(0, 256, (n, 28, 28)).astype(np.uint8).tobytes())
        with gzip.open(os.path.join(folder, name + "-labels-idx1-ubyte.gz"), "wb") as f:
            f.write(struct.pack(">II", 2049, n))
            f.write(rng.randint(0, 10, n).astype(np.uint8).tobytes())
"""

PROGRAMS = {
    "string_input_producer_into_monitored_session": """
import tensorflow as tf
files = tf.train.string_input_producer(["a", "b", "c"], shuffle=False)
name = files.dequeue()
batch = tf.train.shuffle_batch([name], 2, capacity=6, min_after_dequeue=2, num_threads=1)
step = tf.train.get_or_create_global_step()
train = tf.assign_add(step, 1)
with tf.train.MonitoredTrainingSession() as sess:
    print(sess.run([batch, train])[0].shape)
q = tf.FIFOQueue(2, tf.float32)
tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue(1.0)]))
print(len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)))
""",
    "batch_first_then_program_queue_runner": """
import tensorflow as tf
x = tf.constant([1.0, 2.0])
b = tf.train.batch([x], 3)
q = tf.FIFOQueue(2, tf.float32)
tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue(1.0)]))
with tf.Session() as sess:
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    print(sess.run(b).tolist())
    coord.request_stop()
    sess.run(q.close(cancel_pending_enqueues=True))
    coord.join(threads)
""",
    "slice_input_producer_and_maybe_batch": """
import tensorflow as tf
images = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
labels = tf.constant([0, 1, 2])
image, label = tf.train.slice_input_producer([images, labels], shuffle=False)
first = len(tf.get_default_graph().get_operations())
kept = tf.train.maybe_batch([images, labels], keep_input=tf.constant([True, False, True]),
                            batch_size=2, enqueue_many=True)
print(sorted(set(op.type for op in tf.get_default_graph().get_operations()[first:])))
print(tf.train.limit_epochs(tf.constant(1), 2).op.type)
""",
    "boolean_mask_then_program_where": """
import tensorflow as tf
m = tf.boolean_mask(tf.constant([1, 2, 3]), tf.constant([True, False, True]))
w = tf.where(tf.constant([True, False]))
with tf.Session() as sess:
    print(sess.run(m).tolist(), sess.run(w).tolist())
""",
    "uninitialized_variables_report_then_program_where": """
import tensorflow as tf
v = tf.Variable(1.0)
r = tf.report_uninitialized_variables()
w = tf.where(tf.constant([True, False]))
print(r.op.type)
""",
    "moving_average_then_program_initialized_value": """
import tensorflow as tf
v = tf.Variable(1.0)
ema = tf.train.ExponentialMovingAverage(0.9)
op = ema.apply([v])
u = tf.Variable(2.0)
w = u.initialized_value()
print(ema.average(v).op.name)
""",
    "mnist_reader": _FAKE_MNIST
    + """
import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data
write_mnist("MNIST_data")
mnist = input_data.read_data_sets("MNIST_data/", one_hot=True, validation_size=10)
print(mnist.train.images.shape, mnist.train.labels.shape, mnist.test.num_examples)
again = input_data.read_data_sets("MNIST_data/", validation_size=5)
print(again.validation.labels.tolist())
""",
    "mnist_reader_fake_data_first": _FAKE_MNIST
    + """
import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data
fake = input_data.read_data_sets("unused", fake_data=True, one_hot=True)
print(fake.train.num_examples, fake.train.next_batch(2, fake_data=True)[1])
write_mnist("data")
d = input_data.read_data_sets("data", validation_size=0)
print(d.train.num_examples)
""",
    "rnn_cells_then_program_initializer_dtype": """
import numpy as np
import tensorflow as tf
x = tf.constant(np.ones((2, 3, 4), np.float32))
with tf.variable_scope("lstm"):
    out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(5), x, dtype=tf.float32)
with tf.variable_scope("gru"):
    out2, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), x, dtype=tf.float32)
z = tf.zeros_initializer(dtype=tf.float32)
c = tf.constant_initializer(2.0, dtype=tf.float32)
print(out.shape, out2.shape)
""",
    "program_initializer_dtype_then_rnn_cells": """
import numpy as np
import tensorflow as tf
z = tf.zeros_initializer(dtype=tf.float32)
x = tf.constant(np.ones((2, 3, 4), np.float32))
with tf.variable_scope("gru"):
    out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), x, dtype=tf.float32)
with tf.variable_scope("lstm"):
    cell = tf.nn.rnn_cell.LSTMCell(5, use_peepholes=True)
    out2, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
print(out.shape, out2.shape)
""",
}

_WATCHED = ("is deprecated and will be removed",)


def warnings_of(stderr, where):
    """[(whose, message)] of the deprecation warnings of functions: `whose` is "program" for
    the program's file, "library" for any other; the message without its From part."""
    records = deprecated_name_cases.warning_records(
        stderr, lambda line: not line.startswith(("W", "I", "E"))
    )
    return deprecated_name_cases.program_or_library(records, where, _WATCHED)


def run_program(python, module, name, env=None):
    body = PROGRAMS[name].replace("import tensorflow as tf", "import " + module + " as tf")
    body = body.replace("from tensorflow.examples", "from " + module + ".examples")
    return deprecated_name_cases.run_program(python, "import os\n" + body, warnings_of, env)
