"""Records TensorFlow 1.15's answers to the programs of summary_proto_cases.py (Summary protos
holding tensors): data/summary_protos.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_summary_protos.py
"""

from __future__ import annotations

from case_tools import record_tf115
from summary_proto_cases import CASES

record_tf115("summary_protos", CASES)
