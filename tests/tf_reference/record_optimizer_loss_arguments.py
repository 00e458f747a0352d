"""Records TF 1.15 on optimizer_loss_argument_cases.py (compute_gradients of losses that are
not float tensors). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_optimizer_loss_arguments.py
"""

import json
import os

import tensorflow as tf
from optimizer_loss_argument_cases import run_all

if not tf.__version__.startswith("1."):
    raise SystemExit("record_optimizer_loss_arguments.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "data", "optimizer_loss_arguments.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": run_all(tf)}, f, indent=1, sort_keys=True)
    f.write("\n")
