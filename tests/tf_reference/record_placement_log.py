"""Records what TF 1.15 prints on stdout with ConfigProto(log_device_placement=True) for the
programs of placement_log_cases.py (each in a process of its own; a grpc case with its server
in another): tests/unit/test_placement_log.py runs them on tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_placement_log.py
"""

import json
import os
import sys

import tensorflow as tf
from placement_log_cases import all_names, run_case

if not tf.__version__.startswith("1."):
    raise SystemExit("record_placement_log.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="0")
cases = {
    name: run_case(sys.executable, "tensorflow", name, env=env, cwd=here) for name in all_names()
}
with open(os.path.join(here, "data", "placement_log.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1, sort_keys=True)
    f.write("\n")
