"""Records TensorFlow 1.15's answers to the programs of sampled_crop_cases.py (the crops
SampleDistortedBoundingBox draws for a seed): data/sampled_crop.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_sampled_crop.py
"""

from __future__ import annotations

from case_tools import record_tf115
from sampled_crop_cases import CASES

record_tf115("sampled_crop", CASES)
