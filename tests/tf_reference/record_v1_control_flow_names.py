"""Records TensorFlow 1.15's answers to the programs of v1_control_flow_name_cases.py (the
names of tf.cond's and tf.while_loop's results): data/v1_control_flow_names.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_v1_control_flow_names.py
"""

from __future__ import annotations

from case_tools import record_tf115
from v1_control_flow_name_cases import CASES

record_tf115("v1_control_flow_names", CASES)
