"""Records TF 1.15's raw ops taking functions (raw_function_ops_cases.py) for
tests/unit/test_raw_function_ops.py. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_raw_function_ops.py
"""

import tensorflow as tf
from raw_function_ops_cases import CASES, unknown_function_name
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_raw_function_ops.py records TensorFlow 1.15")

rec = Recorder("raw_function_ops")
for name, program in sorted(CASES.items()):
    with tf.Graph().as_default():
        rec.add(name, **program(tf))
with tf.Graph().as_default():
    rec.add("unknown_function_name", error_class=unknown_function_name(tf))
rec.save()
