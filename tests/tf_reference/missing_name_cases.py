"""What a program prints when it reads a name TF 1.15 does not have (tf.nn.deconv2d,
tf.Sesion, through tf.compat.v1 too, whose modules TF names as its own): the last line of its
traceback when it does not catch the AttributeError, or the message it prints. Each program
runs as a script file of its own, on TF 1.15 by record_missing_names.py and on tfcluster by
tests/unit/test_missing_names.py. Kept runnable on Python 3.7."""

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference import deprecated_name_cases
except ImportError:
    import deprecated_name_cases

PROGRAMS = {
    "nn_name_removed_before_1_0": """
import tensorflow as tf
print("start")
w = tf.nn.deconv2d
""",
    "top_level_misspelled": """
import tensorflow as tf
s = tf.Sesion()
""",
    "compat_v1_nn_name": """
import tensorflow as tf
w = tf.compat.v1.nn.deconv2d
""",
    "compat_v1_modules_caught": """
import tensorflow as tf
v1 = tf.compat.v1
for module in (v1, v1.flags, v1.estimator, v1.app, v1.layers, v1.keras.layers, v1.nn, tf.nn):
    try:
        module.nope
    except AttributeError as e:
        print(e)
print(hasattr(v1, "nope"), getattr(v1.train, "nope", 5))
""",
    "caught_and_printed": """
import tensorflow as tf
try:
    tf.train.SummaryWriter
except AttributeError as e:
    print(e)
""",
}


def last_line(stderr, where):
    """The last line of the program's stderr (its error, when it stopped at one)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def run_program(python, module, name, env=None):
    body = PROGRAMS[name].replace("tensorflow", module)
    try:
        return deprecated_name_cases.run_program(python, body, last_line, env)
    except RuntimeError as e:  # the program stopped at its error: its stderr's tail
        return {"stopped": last_line(str(e), None)}
