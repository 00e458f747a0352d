"""Records TF 1.15's answers for the programs of later_names_cases.py (Keras's CTC backend,
...): tests/unit/test_later_names.py runs the same programs on tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_later_names.py
"""

import tensorflow as tf
from later_names_cases import CASES
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_later_names.py records TensorFlow 1.15")

rec = Recorder("later_names")
for name, program in sorted(CASES.items()):
    tf.reset_default_graph()
    tf.set_random_seed(1)
    rec.add(name, **program(tf))
rec.save()
