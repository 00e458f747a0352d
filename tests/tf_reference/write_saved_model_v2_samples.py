"""Writes the programs of saved_model_v2_cases.py with tfcluster's tf.saved_model.save into
data/saved_model_v2/tfcluster_{keras,module}, for record_saved_model_v2.py to load with
TF 1.15. Run with tfcluster's Python, before the recorder:

    PYTHONPATH=server python tests/tf_reference/write_saved_model_v2_samples.py
"""

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import saved_model_v2_cases as cases
import tfcluster as tf

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "saved_model_v2")
for kind, save, _ in cases.PROGRAMS:
    path = os.path.join(root, "tfcluster_" + kind)
    shutil.rmtree(path, ignore_errors=True)
    save(tf, path)
    print("wrote", path)
