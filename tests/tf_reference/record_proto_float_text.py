"""Records what TF 1.15 prints for protos with float fields and its Int64List built from bools
(proto_float_text_cases.py): tests/unit/test_proto_float_text_like_tf.py runs the same programs on
tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_proto_float_text.py
"""

import tensorflow as tf
from proto_float_text_cases import CASES
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_proto_float_text.py records TensorFlow 1.15")

rec = Recorder("proto_float_text")
for name, program in sorted(CASES.items()):
    tf.reset_default_graph()
    tf.set_random_seed(1)
    rec.add(name, **program(tf))
rec.save()
