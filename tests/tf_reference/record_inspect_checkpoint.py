"""Records what TF 1.15's inspect_checkpoint prints (inspect_checkpoint_cases.py):
tests/unit/test_inspect_checkpoint.py compares. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_inspect_checkpoint.py
"""

import json
import os
import tempfile

import tensorflow as tf
from inspect_checkpoint_cases import run_cases, write_checkpoint
from tensorflow.python.tools.inspect_checkpoint import print_tensors_in_checkpoint_file

if not tf.__version__.startswith("1."):
    raise SystemExit("record_inspect_checkpoint.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
with tempfile.TemporaryDirectory() as d:
    prefix = write_checkpoint(tf, d)
    cases = run_cases(print_tensors_in_checkpoint_file, prefix, d)
with open(os.path.join(here, "data", "inspect_checkpoint.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1, sort_keys=True)
    f.write("\n")
