"""Records TensorFlow's answers to the programs of variable_scope_cases.py.

Run under TensorFlow 1.15 (the reference tfcluster follows; needs Python 3.7:
`python3.7 -m venv V && V/bin/pip install tensorflow-cpu==1.15.0 "numpy<1.19"`), it writes
data/variable_scopes.json:

    V/bin/python tests/tf_reference/record_variable_scopes.py

Run by run.py under the project's TensorFlow 2.x (tf.compat.v1), it writes
data/variable_scopes_tf2.json; tests compare with the 1.15 file and, except for the cases
where 2.x behaves differently from 1.15 (listed in the test), with the 2.x file too.
"""

from __future__ import annotations

from case_tools import record
from recorder import Recorder, reference_tf
from variable_scope_cases import CASES

tf, area = reference_tf("variable_scopes")
record(Recorder(area), CASES, tf)
