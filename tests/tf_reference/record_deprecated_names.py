"""Records what TF 1.15 prints for the programs of deprecated_name_cases.py (each run as a
script file of its own): their stdout and the "The name tf.X is deprecated" warnings;
tests/unit/test_deprecated_names.py runs them on tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_deprecated_names.py
"""

import json
import os
import sys

import tensorflow as tf
from deprecated_name_cases import CASES, run_case

if not tf.__version__.startswith("1."):
    raise SystemExit("record_deprecated_names.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
cases = {name: run_case(sys.executable, "tensorflow", name, env=env) for name in CASES}
with open(os.path.join(here, "data", "deprecated_names.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1, sort_keys=True)
    f.write("\n")
