"""Records TensorFlow 1.15's answers to the programs of run_config_vars_cases.py (what a
RunConfig holds, attribute by attribute): data/run_config_vars.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_run_config_vars.py
"""

from __future__ import annotations

from case_tools import record_tf115
from run_config_vars_cases import CASES

record_tf115("run_config_vars", CASES)
