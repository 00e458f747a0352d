"""Records TensorFlow 1.15's errors for the fetches of fetch_error_cases.py:
data/fetch_errors.json, and the exceptions the traceback of each of its programs shows:
data/fetch_error_programs.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_fetch_errors.py
"""

from __future__ import annotations

import json
import os
import sys

from case_tools import record_tf115
from fetch_error_cases import CASES, PROGRAMS, run_program

record_tf115("fetch_errors", CASES)

here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
programs = {name: run_program(sys.executable, "tensorflow", name, env=env) for name in PROGRAMS}
with open(os.path.join(here, "data", "fetch_error_programs.json"), "w") as f:
    json.dump({"tensorflow": "1.15.0", "cases": programs}, f, indent=1, sort_keys=True)
    f.write("\n")
