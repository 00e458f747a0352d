"""Records TensorFlow 1.15's answers to the programs of tutorial_program_cases.py (parts of
public TF1 tutorials): data/tutorial_programs.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_tutorial_programs.py
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import record
from recorder import Recorder
from tutorial_program_cases import CASES

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_tutorial_programs.py records TensorFlow 1.15 (see its docstring)")
tf = real_tf.compat.v1

rec = Recorder("tutorial_programs")
record(rec, CASES, tf)
