"""Records TF 1.15's answers for the programs of misc_names_cases.py (Session.partial_run,
GetSessionHandleV2, the last random / dataset / ragged / quantized raw ops, tf.config
devices, ...): tests/unit/test_misc_names.py runs the same programs on tfcluster. Run under
TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_misc_names.py [case ...]
"""

import json
import os
import sys

import tensorflow as tf
from misc_names_cases import CASES
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_misc_names.py records TensorFlow 1.15")

rec = Recorder("misc_names")
wanted = sys.argv[1:] or sorted(CASES)
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "misc_names.json")
if sys.argv[1:] and os.path.exists(path):
    # Recording some cases again keeps the others' values.
    with open(path) as f:
        rec.cases.update(json.load(f)["cases"])
    for name in wanted:
        rec.cases.pop(name, None)
for name in wanted:
    tf.reset_default_graph()
    tf.set_random_seed(1)
    rec.add(name, **CASES[name](tf))
rec.save()
