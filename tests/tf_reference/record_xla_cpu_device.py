"""Records TF 1.15 on xla_cpu_device_cases.py (the XLA_CPU device every task of TF 1.15's
pip wheels has: device lists, nodes asked onto it, placement errors). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_xla_cpu_device.py
"""

import json
import os

import tensorflow as tf
from xla_cpu_device_cases import run_all

if not tf.__version__.startswith("1."):
    raise SystemExit("record_xla_cpu_device.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "data", "xla_cpu_device.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": run_all(tf)}, f, indent=1, sort_keys=True)
    f.write("\n")
