"""Records what TF 1.15 prints for the programs of task_output_cases.py (stdout and stderr in
one stream, each program run as a script file of its own): data/task_output.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_task_output.py
"""

import json
import os
import sys

import tensorflow as tf
from task_output_cases import PROGRAMS, run_program

if not tf.__version__.startswith("1."):
    raise SystemExit("record_task_output.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
cases = {name: run_program(sys.executable, "tensorflow", name) for name in PROGRAMS}
with open(os.path.join(here, "data", "task_output.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1, sort_keys=True)
    f.write("\n")
