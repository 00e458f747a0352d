"""Records what TF 1.15 prints for the programs of server_log_cases.py (each in a process of
its own): their stdout and the C++ log lines about their servers on stderr;
tests/unit/test_server_log.py runs them on tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_server_log.py
"""

import json
import os
import sys

import tensorflow as tf
from server_log_cases import CASES, run_case

if not tf.__version__.startswith("1."):
    raise SystemExit("record_server_log.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
cases = {name: run_case(sys.executable, "tensorflow", name, env=env, cwd=here) for name in CASES}
with open(os.path.join(here, "data", "server_log.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1, sort_keys=True)
    f.write("\n")
