"""Records TensorFlow's op counts and seeded random values after the graphs of op_count_cases.py.

Run under TensorFlow 1.15 (the reference tfcluster follows; needs Python 3.7:
`python3.7 -m venv V && V/bin/pip install tensorflow-cpu==1.15.0 "numpy<1.19"`), it writes
data/op_counts.json:

    V/bin/python tests/tf_reference/record_op_counts.py

Run by run.py under the project's TensorFlow 2.x (tf.compat.v1), it writes
data/op_counts_tf2.json (not committed: the test compares with the 1.15 file).
"""

from __future__ import annotations

from case_tools import record
from op_count_cases import CASES
from recorder import Recorder, reference_tf

tf, area = reference_tf("op_counts")
record(Recorder(area), CASES, tf)
