"""Records TensorFlow 1.15's answers to the programs of decode_image_seed_cases.py (random ops
after tf.image.decode_image, in a graph and in a tf.data map function):
data/decode_image_seed.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_decode_image_seed.py
"""

from __future__ import annotations

from case_tools import record_tf115
from decode_image_seed_cases import CASES

record_tf115("decode_image_seed", CASES)
