"""Records TensorFlow 1.15's errors for operands that cannot become tensors
(conversion_error_cases.py): data/conversion_errors.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_conversion_errors.py
"""

from __future__ import annotations

from case_tools import record_tf115
from conversion_error_cases import CASES


def _raised(case):
    return lambda tf: {"raised": case(tf)}


record_tf115("conversion_errors", {name: _raised(case) for name, case in CASES.items()})
