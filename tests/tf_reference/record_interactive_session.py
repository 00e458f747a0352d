"""Records TensorFlow 1.15's answers to the programs of interactive_session_cases.py (an
InteractiveSession's pruned graphs left alone by grappler; L2Loss's Eigen sums):
data/interactive_session.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_interactive_session.py
"""

from __future__ import annotations

from case_tools import record_tf115
from interactive_session_cases import CASES

record_tf115("interactive_session", CASES)
