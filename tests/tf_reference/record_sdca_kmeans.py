"""Records TF 1.15's answers for the programs of sdca_cases.py (the SDCA ops, LinearSDCA in
the linear estimators) and kmeans_cases.py (the clustering ops, tf.estimator.experimental
.KMeans): tests/unit/test_sdca_reference.py and test_kmeans_reference.py run the same programs
on tfcluster. The estimators' model directories (TF's checkpoints, which tfcluster restores)
go to data/sdca_kmeans/tf/. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_sdca_kmeans.py
"""

import os
import shutil

import tensorflow as tf
from kmeans_cases import CASES as KMEANS_CASES
from kmeans_cases import RESTORE_CASES as KMEANS_RESTORE_CASES
from recorder import Recorder
from sdca_cases import CASES as SDCA_CASES
from sdca_cases import DATA_DIR, RESTORE_CASES

if not tf.__version__.startswith("1."):
    raise SystemExit("record_sdca_kmeans.py records TensorFlow 1.15")

AREAS = (("sdca", [SDCA_CASES, RESTORE_CASES]), ("kmeans", [KMEANS_CASES, KMEANS_RESTORE_CASES]))
for area, cases in AREAS:
    rec = Recorder(area)
    for group in cases:
        for name, program in sorted(group.items()):
            tf.reset_default_graph()
            tf.set_random_seed(1)
            rec.add(name, **program(tf))
    if rec.cases:
        rec.save()


def _keep_latest_checkpoint(model_dir):
    """Only what a restore reads: the checkpoint state file and the latest checkpoint's
    index and data (no events, graphs or metagraphs)."""
    latest = tf.train.latest_checkpoint(model_dir)
    keep = {"checkpoint"}
    for name in os.listdir(model_dir):
        path = os.path.join(model_dir, name)
        if name in keep or (latest and path.startswith(latest) and not name.endswith(".meta")):
            continue
        if os.path.isdir(path):
            shutil.rmtree(path)
        else:
            os.remove(path)


# The tests restore these checkpoints; the other model directories are not kept.
KEPT = ("classifier", "given")
for name in sorted(os.listdir(os.path.join(DATA_DIR, "tf"))):
    model_dir = os.path.join(DATA_DIR, "tf", name)
    if name in KEPT:
        _keep_latest_checkpoint(model_dir)
    else:
        shutil.rmtree(model_dir)
