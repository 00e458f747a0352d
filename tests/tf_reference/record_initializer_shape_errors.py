"""Records the error classes of TF 1.15's initializers given a shape with an unknown dimension
(initializer_shape_error_cases.py): tests/unit/test_initializer_shape_errors.py compares. Run
under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_initializer_shape_errors.py
"""

import json
import os

import tensorflow as tf
from initializer_shape_error_cases import run_cases

if not tf.__version__.startswith("1."):
    raise SystemExit("record_initializer_shape_errors.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "data", "initializer_shape_errors.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": run_cases(tf)}, f, indent=1, sort_keys=True)
    f.write("\n")
