"""Records TF 1.15's errors for dataset transformations given a non-function
(dataset_callable_cases.py): tests/unit/test_dataset_callable_errors.py compares. Run under
TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_dataset_callable_errors.py
"""

import json
import os

import tensorflow as tf
from dataset_callable_cases import run_cases

if not tf.__version__.startswith("1."):
    raise SystemExit("record_dataset_callable_errors.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "data", "dataset_callable_errors.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": run_cases(tf)}, f, indent=1, sort_keys=True)
    f.write("\n")
