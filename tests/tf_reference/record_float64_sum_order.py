"""Records TF 1.15's float64 sums of float64_sum_order_cases.py, as bytes,
into data/float64_sum_order.json: tests/unit/test_float64_sum_order.py runs the same programs
on tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_float64_sum_order.py
"""

import tensorflow as tf
from float64_sum_order_cases import CASES
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_float64_sum_order.py records TensorFlow 1.15")

rec = Recorder("float64_sum_order")
for name, program in sorted(CASES.items()):
    rec.add(name, **program(tf))
rec.save()
