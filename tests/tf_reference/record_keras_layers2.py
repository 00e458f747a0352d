"""Records TensorFlow 1.15's answers for the tf.keras layers of keras_layers2_cases.py:
outputs, shapes, variable names, configs and gradients, into data/keras_layers2.json.

    /tmp/tf115/bin/python tests/tf_reference/record_keras_layers2.py

TensorFlow 2.x's tf.keras is Keras 3 (no graph-mode sessions), so only 1.15 is recorded.
"""

from __future__ import annotations

import traceback

import tensorflow as real_tf
from keras_layers2_cases import CASES, FUNCTIONS, run_case
from recorder import Recorder

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_keras_layers2.py needs TensorFlow 1.15 (tf.keras in graph mode)")
tf = real_tf.compat.v1
real_tf.logging.set_verbosity(real_tf.logging.ERROR)

rec = Recorder("keras_layers2")
for name in sorted(CASES):
    try:
        rec.add(name, **run_case(tf, name))
    except Exception as e:
        traceback.print_exc()
        rec.add(name, skipped=f"{type(e).__name__}: {e}")
for name in sorted(FUNCTIONS):
    try:
        rec.add("function_" + name, **FUNCTIONS[name](tf))
    except Exception as e:
        traceback.print_exc()
        rec.add("function_" + name, skipped=f"{type(e).__name__}: {e}")
rec.save()
