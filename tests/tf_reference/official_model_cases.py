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
