"""Records TensorFlow 1.15's answers to the programs of gamma_poisson_stream_cases.py (seeded
gamma and poisson draws): data/gamma_poisson_streams.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_gamma_poisson_streams.py
"""

from __future__ import annotations

from case_tools import record_tf115
from gamma_poisson_stream_cases import CASES

record_tf115("gamma_poisson_streams", CASES)
