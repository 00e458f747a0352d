"""Records TensorFlow 1.15's answers to the programs of notebook_sweep_cases.py (behaviours of
a TF1 book's notebooks: float32 sin/cos/tan bits, Estimator.evaluate's metric order):
data/notebook_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_notebook_sweep.py
"""

from __future__ import annotations

from case_tools import record_tf115
from notebook_sweep_cases import CASES

record_tf115("notebook_sweep", CASES)
