"""Records TensorFlow 1.15's answers to the programs of repo_sweep_cases.py (behaviours of
public TF1 repositories: tf.one_hot's ops and the op seeds after them): data/repo_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_repo_sweep.py
"""

from __future__ import annotations

from case_tools import record_tf115
from repo_sweep_cases import CASES

record_tf115("repo_sweep", CASES)
