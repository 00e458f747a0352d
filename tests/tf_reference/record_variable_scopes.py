"""Records TensorFlow's answers to the programs of variable_scope_cases.py into
data/variable_scopes.json under TF 1.15 (see recorder.reference_tf). Tests compare with
that file and, except for the cases where 2.x behaves differently from 1.15 (listed in the
test), with 2.x's data/variable_scopes_tf2.json too."""

from __future__ import annotations

from case_tools import record
from recorder import Recorder, reference_tf
from variable_scope_cases import CASES

tf, area = reference_tf("variable_scopes")
record(Recorder(area), CASES, tf)
