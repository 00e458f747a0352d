"""Records TensorFlow 1.15's answers to eigen_decomposition_cases.py (eigh, eigvalsh,
SelfAdjointEig, svd, qr: values and vector signs): data/eigen_decompositions.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_eigen_decompositions.py
"""

from __future__ import annotations

from case_tools import record_tf115
from eigen_decomposition_cases import CASES

record_tf115("eigen_decompositions", CASES)
