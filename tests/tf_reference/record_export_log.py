"""Records what TensorFlow 1.15 logs in the programs of export_log_cases.py (an Estimator's
export and a SavedModelBuilder's save): data/export_log.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_export_log.py
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import add_in_model_dirs
from export_log_cases import CASES
from recorder import Recorder

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_export_log.py records TensorFlow 1.15 (see its docstring)")
rec = Recorder("export_log")
add_in_model_dirs(rec, CASES, sorted(CASES), real_tf.compat.v1)
rec.save()
