"""Records TF 1.15's serialized constant TensorProtos and GraphDef text for the programs of
constant_proto_cases.py: tests/unit/test_constant_protos_like_tf.py runs the same programs on
tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_constant_protos.py
"""

import tensorflow as tf
from constant_proto_cases import CASES
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_constant_protos.py records TensorFlow 1.15")

rec = Recorder("constant_protos")
for name, program in sorted(CASES.items()):
    tf.reset_default_graph()
    tf.set_random_seed(1)
    rec.add(name, **program(tf))
rec.save()
