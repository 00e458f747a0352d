"""Records TF 1.15's segment reductions of segment_order_cases.py, as bytes, into
data/segment_order.json: tests/unit/test_segment_order.py runs the same programs on
tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_segment_order.py
"""

import tensorflow as tf
from recorder import Recorder
from segment_order_cases import CASES

if not tf.__version__.startswith("1."):
    raise SystemExit("record_segment_order.py records TensorFlow 1.15")

rec = Recorder("segment_order")
for name, program in sorted(CASES.items()):
    rec.add(name, **program(tf))
rec.save()
