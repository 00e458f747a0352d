"""Records TF 1.15's shuffle orders for the programs of shuffle_order_cases.py:
tests/unit/test_shuffle_order_tf115.py runs the same programs on tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_shuffle_order.py
"""

import tensorflow as tf
from recorder import Recorder
from shuffle_order_cases import CASES

if not tf.__version__.startswith("1."):
    raise SystemExit("record_shuffle_order.py records TensorFlow 1.15")

rec = Recorder("shuffle_order")
for name, program in sorted(CASES.items()):
    tf.reset_default_graph()
    rec.add(name, **program(tf))
rec.save()
