"""Records TensorFlow 1.15's answers to the programs of hvass_sweep_cases.py (behaviours of
public TF1 tutorials: Eigen's scalar path through glibc's expf/logf/log1pf, bool() and
iteration of graph tensors, compute_gradient_error's type): data/hvass_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_hvass_sweep.py
"""

from __future__ import annotations

from case_tools import record_tf115
from hvass_sweep_cases import CASES

record_tf115("hvass_sweep", CASES)
