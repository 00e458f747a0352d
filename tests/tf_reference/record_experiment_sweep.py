"""Records TensorFlow 1.15's answers to the programs of experiment_sweep_cases.py (behaviours
of small public TF1 experiment scripts): data/experiment_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_experiment_sweep.py
"""

from __future__ import annotations

from case_tools import record_tf115
from experiment_sweep_cases import CASES

record_tf115("experiment_sweep", CASES)
