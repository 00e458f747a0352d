"""Records TensorFlow 1.15's float32 tanh and sigmoid (eigen_activation_cases.py):
data/eigen_activations.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_eigen_activations.py
"""

from __future__ import annotations

from case_tools import record_tf115
from eigen_activation_cases import CASES

record_tf115("eigen_activations", CASES)
