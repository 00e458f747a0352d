"""Records TensorFlow's answers to the programs of quantization_cases.py into
data/quantization.json, the file the tests compare with, under TF 1.15 (see
recorder.reference_tf); 2.x's file is for reference only (its QuantizeV2 has more attrs
and other range rules)."""

from __future__ import annotations

from quantization_cases import PROGRAMS, run
from recorder import record_programs

record_programs("quantization", PROGRAMS, run)
