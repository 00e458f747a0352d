"""Records TF 1.15's gradient graphs through the TPU ops (tpu_gradient_cases.py) into
data/tpu_gradients.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_tpu_gradients.py
"""

from case_tools import record_tf115
from tpu_gradient_cases import CASES

record_tf115("tpu_gradients", CASES)
