"""Records TensorFlow's answers to the programs of quantization_cases.py.

Run under TensorFlow 1.15 (the reference; Python 3.7: /tmp/tf115 on the project's machine,
`python3.7 -m venv V && V/bin/pip install tensorflow-cpu==1.15.0 "numpy<1.19"`), it writes
data/quantization.json, which the tests compare with:

    V/bin/python tests/tf_reference/record_quantization.py

Run by run.py under TensorFlow 2.x (tf.compat.v1) it writes data/quantization_tf2.json
instead, for reference only (2.x's QuantizeV2 has more attrs and other range rules).
"""

from __future__ import annotations

from quantization_cases import PROGRAMS, run
from recorder import record_programs

record_programs("quantization", PROGRAMS, run)
