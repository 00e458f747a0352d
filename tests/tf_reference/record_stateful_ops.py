"""Records TF 1.15's answers for the programs of stateful_ops_cases.py (the first versions of
the queue / reader / stack / table ops, mutable tables, barriers, staging areas...):
tests/unit/test_stateful_raw_ops.py runs the same programs on tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_stateful_ops.py
"""

import json
import os
import sys

import tensorflow as tf
from recorder import DATA_DIR, Recorder
from stateful_ops_cases import CASES

if not tf.__version__.startswith("1."):
    raise SystemExit("record_stateful_ops.py records TensorFlow 1.15")

rec = Recorder("stateful_ops")
only = sys.argv[1:]  # case names to record again; the others keep their recorded values
if only:
    with open(os.path.join(DATA_DIR, "stateful_ops.json")) as f:
        rec.cases = {k: v for k, v in json.load(f)["cases"].items() if k not in only}
for name, program in sorted(CASES.items()):
    if only and name not in only:
        continue
    tf.reset_default_graph()
    tf.set_random_seed(1)
    rec.add(name, **program(tf))
rec.save()
