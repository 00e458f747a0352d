"""Records TF 1.15's error classes and first message lines of runs failing on a task of a
two-task cluster (remote_error_cases.py): tests/unit/test_remote_error_messages.py compares.
Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_remote_errors.py
"""

import json
import os

import tensorflow as tf
from remote_error_cases import run_cases

if not tf.__version__.startswith("1."):
    raise SystemExit("record_remote_errors.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "data", "remote_errors.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": run_cases(tf)}, f, indent=1, sort_keys=True)
    f.write("\n")
