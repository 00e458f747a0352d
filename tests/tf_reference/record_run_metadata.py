"""Records TensorFlow 1.15's answers to the programs of run_metadata_cases.py (what
Session.run leaves in a run_metadata): data/run_metadata.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_run_metadata.py
"""

from __future__ import annotations

from case_tools import record_tf115
from run_metadata_cases import CASES

record_tf115("run_metadata", CASES)
