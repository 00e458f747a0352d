"""Records TF 1.15's answers for the BoostedTrees raw-op programs of boosted_trees_cases.py:
tests/unit/test_boosted_trees_ops.py runs the same programs on tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_boosted_trees.py
"""

import tensorflow as tf
from boosted_trees_cases import CASES
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_boosted_trees.py records TensorFlow 1.15")

rec = Recorder("boosted_trees")
for name, program in sorted(CASES.items()):
    tf.reset_default_graph()
    rec.add(name, **program(tf))
rec.save()
