"""Records TensorFlow's op counts and seeded random values after the graphs of
op_count_cases.py into data/op_counts.json under TF 1.15, the reference tfcluster follows
(see recorder.reference_tf; 2.x's file is not committed)."""

from __future__ import annotations

from case_tools import record
from op_count_cases import CASES
from recorder import Recorder, reference_tf

tf, area = reference_tf("op_counts")
record(Recorder(area), CASES, tf)
