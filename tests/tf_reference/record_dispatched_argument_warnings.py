"""Records what TF 1.15 prints for the programs of dispatched_argument_warning_cases.py (each run as
a script file of its own): their stdout and the deprecated-argument warnings TF prints from its
decorators' files: data/dispatched_argument_warnings.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_dispatched_argument_warnings.py
"""

import json
import os
import sys

import tensorflow as tf
from dispatched_argument_warning_cases import PROGRAMS, run_program

if not tf.__version__.startswith("1."):
    raise SystemExit("record_dispatched_argument_warnings.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
cases = {name: run_program(sys.executable, "tensorflow", name, env=env) for name in PROGRAMS}
with open(os.path.join(here, "data", "dispatched_argument_warnings.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1, sort_keys=True)
    f.write("\n")
