"""Records TF 1.15's static shapes and errors of tf.reshape (reshape_shape_cases.py):
tests/unit/test_reshape_shape_inference.py compares. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_reshape_shapes.py
"""

import json
import os

import tensorflow as tf
from reshape_shape_cases import run_cases

if not tf.__version__.startswith("1."):
    raise SystemExit("record_reshape_shapes.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "data", "reshape_shapes.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": run_cases(tf)}, f, indent=1, sort_keys=True)
    f.write("\n")
