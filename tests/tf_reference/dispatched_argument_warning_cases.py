"""Deprecated arguments of functions TF 1.15 wraps in another decorator too (tf.squeeze's
squeeze_dims, tf.expand_dims's dim, tf.count_nonzero's reduction_indices,
tf.reverse_sequence's batch_dim, tf.sparse_reduce_sum's reduction_axes): TF announces them
once each, from the outer decorator's file (dispatch.py or deprecation.py) rather than the
program's line. Each program runs as a script file of its own; warnings are compared without
their "From <file>:<line>:" part, marked as the program's or a library's. Written once for
TF 1.15 (record_dispatched_argument_warnings.py) and tfcluster
(tests/unit/test_dispatched_argument_warnings.py); kept runnable on Python 3.7."""

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference import deprecated_name_cases
except ImportError:
    import deprecated_name_cases

PROGRAMS = {
    "squeeze_and_expand_dims_by_their_old_names": """
import tensorflow as tf
x = tf.ones([1, 1, 3])
a = tf.squeeze(x, squeeze_dims=[0, 1])
b = tf.squeeze(x, squeeze_dims=[0])
c = tf.expand_dims(a, dim=0)
d = tf.expand_dims(a, 1)
print(a.shape, b.shape, c.shape, d.shape)
""",
    "reductions_and_sequences_by_their_old_names": """
import tensorflow as tf
x = tf.ones([2, 3])
n = tf.count_nonzero(x, reduction_indices=0)
m = tf.count_nonzero(x, axis=1)
r = tf.reverse_sequence(tf.ones([2, 3, 1]), [1, 2], seq_dim=1, batch_dim=0)
s = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
t = tf.sparse_reduce_sum(s, reduction_axes=1)
u = tf.sparse_reduce_max(s, reduction_axes=0)
with tf.Session() as sess:
    print(sess.run([n, m, t, u]))
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
    return deprecated_name_cases.run_program(python, body, warnings_of, env)
