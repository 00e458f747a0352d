"""Records TensorFlow 1.15's answers to the programs of tf1_program_cases.py (parts of TF's
own TF1 examples: candidate samplers, nce_loss, the gradient graph of an optimizer):
data/tf1_programs.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_tf1_programs.py
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import record
from recorder import Recorder
from tf1_program_cases import CASES

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_tf1_programs.py records TensorFlow 1.15 (see its docstring)")
tf = real_tf.compat.v1

rec = Recorder("tf1_programs")
record(rec, CASES, tf)
