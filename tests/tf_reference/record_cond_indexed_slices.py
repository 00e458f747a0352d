"""Records TF 1.15 on cond_indexed_slices_cases.py (tf.cond branches returning
IndexedSlices). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_cond_indexed_slices.py
"""

import json
import os

import tensorflow as tf
from cond_indexed_slices_cases import run_all

if not tf.__version__.startswith("1."):
    raise SystemExit("record_cond_indexed_slices.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "data", "cond_indexed_slices.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": run_all(tf)}, f, indent=1, sort_keys=True)
    f.write("\n")
