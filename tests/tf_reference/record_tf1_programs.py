"""Records TensorFlow 1.15's answers to the programs of tf1_program_cases.py (parts of TF's
own TF1 examples: candidate samplers, nce_loss, the gradient graph of an optimizer):
data/tf1_programs.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_tf1_programs.py
"""

from __future__ import annotations

import traceback

import tensorflow as real_tf
from recorder import Recorder
from tf1_program_cases import CASES

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_tf1_programs.py records TensorFlow 1.15 (see its docstring)")
tf = real_tf.compat.v1

rec = Recorder("tf1_programs")
for name, fn in sorted(CASES.items()):
    try:
        result = fn(tf)
    except Exception as e:
        traceback.print_exc()
        rec.add(name, skipped=f"{type(e).__name__}: {e}")
        continue
    rec.add(name, **result)
rec.save()
