"""Records TensorFlow 1.15's answers to the programs of loop_frame_name_cases.py (the GraphDef
of v1 while loops): data/loop_frame_names.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_loop_frame_names.py
"""

from __future__ import annotations

from case_tools import record_tf115
from loop_frame_name_cases import CASES

record_tf115("loop_frame_names", CASES)
