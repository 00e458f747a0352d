"""Records what TF 1.15 prints for the programs of official_model_cases.py (each run as a
script file of its own); tests/unit/test_official_model.py runs them on tfcluster. Run under
TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_official_model.py
"""

import json
import os
import sys

import tensorflow as tf
from official_model_cases import CASES, run_case

if not tf.__version__.startswith("1."):
    raise SystemExit("record_official_model.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
cases = {name: run_case(sys.executable, "tensorflow", name, env=env) for name in CASES}
with open(os.path.join(here, "data", "official_model.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1, sort_keys=True)
    f.write("\n")
