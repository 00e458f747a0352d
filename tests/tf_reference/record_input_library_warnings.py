"""Records what TF 1.15 prints for the programs of input_library_warning_cases.py (each run as
a script file of its own): their stdout and the deprecation warnings of functions, from TF's
files or the program's: data/input_library_warnings.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_input_library_warnings.py
"""

import json
import os
import sys

import tensorflow as tf
from input_library_warning_cases import PROGRAMS, run_program

if not tf.__version__.startswith("1."):
    raise SystemExit("record_input_library_warnings.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
cases = {name: run_program(sys.executable, "tensorflow", name, env=env) for name in PROGRAMS}
with open(os.path.join(here, "data", "input_library_warnings.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1, sort_keys=True)
    f.write("\n")
