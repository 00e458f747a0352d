"""Records TensorFlow 1.15's answers to the programs of png_encoding_cases.py (the bytes of the
PNG files its EncodePng writes): data/png_encoding.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_png_encoding.py
"""

from __future__ import annotations

from case_tools import record_tf115
from png_encoding_cases import CASES

record_tf115("png_encoding", CASES)
