"""Records TensorFlow 1.15's answers to model_checkpoint_cases.py: data/model_checkpoint.json.

cd tests/tf_reference && /tmp/tf115/bin/python record_model_checkpoint.py
"""

from __future__ import annotations

from case_tools import record_tf115
from model_checkpoint_cases import CASES

record_tf115("model_checkpoint", CASES)
