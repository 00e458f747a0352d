"""What a TF1 training-and-export program sees of TF 1.15 beside its numbers: the SavedModel
modules it imports by path (`from tensorflow.python.saved_model import builder, utils,
signature_def_utils, signature_constants, tag_constants`), the deprecation warnings TF prints
while it builds signatures, trains with Adagrad and exports with `legacy_init_op`, or builds
queue-based input (string_input_producer, shuffle_batch: TF's own calls of its deprecated
input_producer, limit_epochs, RefVariable.count_up_to, QueueRunner and add_queue_runner), and the
flags TF's import defines before the program's own (a program printing every flag's value
shows them). Each program runs as a script file of its own; every "... is deprecated"
warning is compared as (whose: "program" or "library", the message without its
"From <file>:<line>:" part). Written once for TF 1.15 (record_export_program_warnings.py) and
tfcluster (tests/unit/test_export_program_warnings.py); kept runnable on Python 3.7."""

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference import deprecated_name_cases
except ImportError:
    import deprecated_name_cases

PROGRAMS = {
    "saved_model_modules_imported_by_path": """
import tensorflow as tf
import tensorflow.python.saved_model as sm
from tensorflow.python.saved_model import builder, constants, loader, main_op
from tensorflow.python.saved_model import signature_constants, signature_def_utils
from tensorflow.python.saved_model import tag_constants, utils
print(utils.build_tensor_info is tf.compat.v1.saved_model.utils.build_tensor_info)
print(utils.get_tensor_from_tensor_info is tf.compat.v1.saved_model.get_tensor_from_tensor_info)
print(loader.load is tf.compat.v1.saved_model.loader.load)
print(main_op.main_op is tf.compat.v1.saved_model.main_op.main_op)
print(main_op.main_op_with_restore is tf.compat.v1.saved_model.main_op_with_restore)
print(signature_def_utils.predict_signature_def
      is tf.compat.v1.saved_model.predict_signature_def)
print(builder.SavedModelBuilder is tf.compat.v1.saved_model.Builder)
print(sm.simple_save is tf.compat.v1.saved_model.simple_save)
print(sm.load is tf.compat.v1.saved_model.load_v2, sm.save is tf.compat.v1.saved_model.save)
print(signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY,
      signature_constants.PREDICT_METHOD_NAME, tag_constants.SERVING, tag_constants.TRAINING)
print(constants.SAVED_MODEL_FILENAME_PB, constants.VARIABLES_DIRECTORY,
      constants.LEGACY_INIT_OP_KEY, constants.MAIN_OP_KEY)
""",
    "export_through_private_modules_with_legacy_init_op": """
import os, tempfile
import tensorflow as tf
from tensorflow.python.saved_model import builder as saved_model_builder
from tensorflow.python.saved_model import loader, main_op
from tensorflow.python.saved_model import signature_constants, signature_def_utils
from tensorflow.python.saved_model import tag_constants, utils
x = tf.placeholder(tf.float32, [None, 2], name="features")
w = tf.get_variable("w", [2, 1], initializer=tf.ones_initializer())
y = tf.identity(tf.matmul(x, w), name="score")
signature = signature_def_utils.build_signature_def(
    inputs={"features": utils.build_tensor_info(x)},
    outputs={"score": utils.build_tensor_info(y)},
    method_name=signature_constants.PREDICT_METHOD_NAME)
again = tf.saved_model.utils.build_tensor_info(y)
export_dir = os.path.join(tempfile.mkdtemp(), "1")
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    legacy_init_op = tf.group(tf.tables_initializer(), name="legacy_init_op")
    builder = saved_model_builder.SavedModelBuilder(export_dir)
    builder.add_meta_graph_and_variables(
        sess, [tag_constants.SERVING], clear_devices=True,
        signature_def_map={signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: signature},
        legacy_init_op=legacy_init_op)
    builder.add_meta_graph(["second"], legacy_init_op=None)
    try:
        builder.add_meta_graph(["third"], legacy_init_op=legacy_init_op)
    except ValueError as e:
        print(type(e).__name__, e)
    builder.save()
with tf.Session(graph=tf.Graph()) as sess:
    meta = loader.load(sess, [tag_constants.SERVING], export_dir)
    print(sorted(meta.signature_def), sorted(meta.collection_def))
    print(sess.run("score:0", {"features:0": [[1.0, 2.0]]}))
    init = main_op.main_op()
with tf.Session(graph=tf.Graph()) as sess:
    tf.saved_model.loader.load(sess, ["second"], export_dir)
    print(sess.run("score:0", {"features:0": [[3.0, 4.0]]}))
""",
    "adagrad_accumulators_made_with_dtype": """
import tensorflow as tf
x = tf.placeholder(tf.float32, [None, 2])
w = tf.Variable(tf.ones([2, 1]))
loss = tf.reduce_mean(tf.square(tf.matmul(x, w)))
step = tf.train.AdagradOptimizer(0.1).minimize(loss)
step2 = tf.train.AdagradOptimizer(0.2, name="Other").minimize(loss)
init = tf.constant_initializer(0.5, dtype=tf.float32)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    sess.run(step, {x: [[1.0, 2.0]]})
    print(sess.run(w).ravel().tolist())
""",
    "adagrad_accumulator_program_dtype_first": """
import tensorflow as tf
init = tf.constant_initializer(0.5, dtype=tf.float32)
w = tf.Variable(tf.ones([2]))
step = tf.train.AdagradOptimizer(0.1).minimize(tf.reduce_sum(w * w))
print("built")
""",
    "rmsprop_slots_made_with_dtype": """
import tensorflow as tf
w = tf.Variable(tf.ones([2]))
step = tf.train.RMSPropOptimizer(0.1).minimize(tf.reduce_sum(w * w))
step2 = tf.train.RMSPropOptimizer(0.1, centered=True, name="Centered").minimize(w[0] * w[1])
ones = tf.ones_initializer(dtype=tf.float32)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    sess.run(step)
    sess.run(step2)
    print(sess.run(w).tolist())
""",
    "keras_adagrad_accumulators_made_with_dtype": """
import numpy as np
import tensorflow as tf
m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,), kernel_initializer="ones")])
m.compile(tf.keras.optimizers.Adagrad(0.1), "mse")
m.fit(np.ones((4, 2)), np.zeros((4, 1)), verbose=0, epochs=2)
print(m.get_weights()[0].ravel().tolist())
""",
    "queue_input_builders": """
import tensorflow as tf
names = tf.train.string_input_producer(["a.tfrecords", "b.tfrecords"], num_epochs=2)
reader = tf.TFRecordReader()
_, record = reader.read(names)
value = tf.strings.length(record)
batch = tf.train.shuffle_batch([value], batch_size=4, capacity=20, min_after_dequeue=5)
more = tf.train.batch([value], batch_size=2)
rows = tf.train.slice_input_producer([tf.constant([1, 2, 3])], num_epochs=1)
limited = tf.train.limit_epochs(tf.constant([1.0]), 3)
again = tf.train.input_producer(tf.constant([[1.0]]))
runner = tf.train.QueueRunner(tf.FIFOQueue(2, tf.float32), [tf.no_op()])
tf.train.add_queue_runner(runner)
print(len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)))
""",
    "queue_input_without_epochs": """
import tensorflow as tf
names = tf.train.string_input_producer(["a.tfrecords"])
rows = tf.train.range_input_producer(10, num_epochs=3)
print(len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)))
""",
    "variables_count_up_to": """
import tensorflow as tf
v = tf.Variable(0, name="v")
c = v.count_up_to(3)
w = tf.get_variable("w", initializer=tf.constant(0, tf.int64), use_resource=True)
d = w.count_up_to(3)
e = tf.count_up_to(v, 4)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print([sess.run(c), sess.run(d), sess.run(e)])
""",
    "boolean_mask_then_where": """
import tensorflow as tf
x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
picked = tf.boolean_mask(x, [True, False])
w = tf.where(tf.constant([True, False]), [1.0, 2.0], [3.0, 4.0])
with tf.Session() as sess:
    print(sess.run(picked).tolist(), sess.run(w).tolist())
""",
    "supervisor_reports_uninitialized_variables": """
import tempfile
import tensorflow as tf
v = tf.Variable(1.0, name="v")
step = tf.train.get_or_create_global_step()
sv = tf.train.Supervisor(logdir=tempfile.mkdtemp(), save_model_secs=0, save_summaries_secs=0)
with sv.managed_session() as sess:
    print(sess.run(v))
""",
    "flags_defined_by_the_import": """
import tensorflow as tf
tf.app.flags.DEFINE_integer("epochs", 3, "Number of epochs")
FLAGS = tf.app.flags.FLAGS
print(FLAGS.epochs)
print(sorted(FLAGS.__flags.keys()))
print(FLAGS.op_conversion_fallback_to_while_loop, FLAGS.test_random_seed,
      FLAGS.test_randomize_ordering_seed, FLAGS.test_srcdir, FLAGS.xml_output_file)
""",
}


def warnings_of(stderr, where):
    """[(whose, message)] of the deprecation warnings: `whose` is "program" for the program's
    file, "library" for any other; the message without its From part."""
    records = deprecated_name_cases.warning_records(stderr)
    return deprecated_name_cases.program_or_library(records, where, (" is deprecated",))


def run_program(python, module, name, env=None):
    return deprecated_name_cases.run_program(
        python, PROGRAMS[name].replace("tensorflow", module), warnings_of, env
    )
