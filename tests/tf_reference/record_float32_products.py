"""Records TensorFlow 1.15's answers to the programs of float32_product_cases.py (float32
matrix products as its CPU kernels round them, fused into a BiasAdd or not):
data/float32_products.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_float32_products.py
"""

from __future__ import annotations

from case_tools import record_tf115
from float32_product_cases import CASES

record_tf115("float32_products", CASES)
