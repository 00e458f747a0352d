"""Records TensorFlow 1.15's answers to the programs of repo_sweep_cases.py (behaviours of
public TF1 repositories: tf.one_hot's ops and the op seeds after them): data/repo_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_repo_sweep.py
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import record
from recorder import Recorder
from repo_sweep_cases import CASES

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_repo_sweep.py records TensorFlow 1.15 (see its docstring)")
tf = real_tf.compat.v1

rec = Recorder("repo_sweep")
record(rec, CASES, tf)
