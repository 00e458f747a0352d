"""Records TensorFlow 1.15's answers to the programs of image_distortion_cases.py:
data/image_distortions.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_image_distortions.py
"""

from __future__ import annotations

from case_tools import record_tf115
from image_distortion_cases import CASES

record_tf115("image_distortions", CASES)
