"""Records TF 1.15's op names and types of tf.data graphs (and a variable made after them)
for the programs of dataset_graph_names_cases.py: tests/unit/test_dataset_graph_names.py runs
the same programs on tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_dataset_graph_names.py
"""

import tensorflow as tf
from dataset_graph_names_cases import CASES
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_dataset_graph_names.py records TensorFlow 1.15")

rec = Recorder("dataset_graph_names")
for name, program in sorted(CASES.items()):
    tf.reset_default_graph()
    tf.set_random_seed(1)
    rec.add(name, **program(tf))
rec.save()
