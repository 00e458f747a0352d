"""Records TensorFlow 1.15's answers to the programs of involution_cases.py (pairs of Neg,
Reciprocal, LogicalNot or Invert around value-preserving ops, as grappler's RemoveInvolution
leaves them): data/involutions.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_involutions.py
"""

from __future__ import annotations

from case_tools import record_tf115
from involution_cases import CASES

record_tf115("involutions", CASES)
