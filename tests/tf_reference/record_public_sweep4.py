"""Records TensorFlow 1.15's answers to the programs of public_sweep4_cases.py (behaviours of
openai/gpt-2, roatienza, ematvey, GraphSAGE and DeepFM): data/public_sweep4.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_public_sweep4.py
"""

from __future__ import annotations

from case_tools import record_tf115
from public_sweep4_cases import CASES

record_tf115("public_sweep4", CASES)
