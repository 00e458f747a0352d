"""Records TensorFlow 1.15's answers to the programs of float32_blocked_product_cases.py
(float32 products whose contracted dimension TF cuts in blocks): data/float32_blocked_products.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_float32_blocked_products.py
"""

from __future__ import annotations

from case_tools import record_tf115
from float32_blocked_product_cases import CASES

record_tf115("float32_blocked_products", CASES)
