"""Records TensorFlow 1.15's answers to the programs of notebook_sweep2_cases.py (behaviours of
public TF1 tutorials: Eigen's scalar path through glibc's expf/logf/log1pf, bool() and
iteration of graph tensors, compute_gradient_error's type): data/notebook_sweep2.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_notebook_sweep2.py
"""

from __future__ import annotations

from case_tools import record_tf115
from notebook_sweep2_cases import CASES

record_tf115("notebook_sweep2", CASES)
