"""What tensorflow.python.tools.inspect_checkpoint prints for a checkpoint of a few variables,
for TF 1.15 (recorded by record_inspect_checkpoint.py) and tfcluster
(tests/unit/test_inspect_checkpoint.py); the checkpoint's directory is printed as <dir>.
Python 3.7 code."""

import contextlib
import io
import os

import numpy as np

# (function's keyword arguments) per case; file_name is relative to the checkpoint's prefix.
CASES = {
    "all_tensors": dict(file_name="", tensor_name="", all_tensors=True),
    "all_tensor_names": dict(
        file_name="", tensor_name="", all_tensors=False, all_tensor_names=True
    ),
    "one_tensor": dict(file_name="", tensor_name="v1", all_tensors=False),
    "dtypes_and_shapes": dict(file_name="", tensor_name="", all_tensors=False),
    "count_excluding": dict(
        file_name="",
        tensor_name="",
        all_tensors=False,
        all_tensor_names=True,
        count_exclude_pattern="^v",
    ),
    "missing_tensor": dict(file_name="", tensor_name="nope", all_tensors=False),
}


def write_checkpoint(tf, directory):
    """Saves v1 (ones [3]), v2 (-ones [5]), a 2x2 matrix, an int64 and a scalar; the prefix."""
    with tf.Graph().as_default():
        tf.Variable(tf.ones([3]), name="v1")
        tf.Variable(-tf.ones([5]), name="v2")
        tf.Variable(np.arange(4, dtype=np.float32).reshape(2, 2) / 3, name="layer/kernel")
        tf.Variable(np.array([7, 8], np.int64), name="steps")
        tf.Variable(2.5, name="scale")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return tf.train.Saver().save(sess, os.path.join(directory, "model.ckpt"))


def run_cases(print_tensors, prefix, directory):
    """{case: printed text} of `print_tensors` (print_tensors_in_checkpoint_file)."""
    out = {}
    for name, kwargs in sorted(CASES.items()):
        kwargs = dict(kwargs, file_name=prefix + kwargs["file_name"])
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            print_tensors(**kwargs)
        out[name] = buf.getvalue().replace(directory, "<dir>")
    return out
