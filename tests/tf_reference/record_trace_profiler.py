"""Records TensorFlow 1.15's answers to trace_profiler_cases.py (the profiler of Keras's
TensorBoard callback and tensorflow.python.eager.profiler): data/trace_profiler.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_trace_profiler.py
"""

from __future__ import annotations

from case_tools import record_tf115
from trace_profiler_cases import CASES

record_tf115("trace_profiler", CASES)
