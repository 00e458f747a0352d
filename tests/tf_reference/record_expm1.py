"""Records TensorFlow 1.15's tf.math.expm1 bits on expm1_cases.py's inputs. Run under TF 1.15:

cd tests/tf_reference && /tmp/tf115/bin/python record_expm1.py
"""

from __future__ import annotations

from case_tools import record_tf115
from expm1_cases import CASES

record_tf115("expm1", CASES)
