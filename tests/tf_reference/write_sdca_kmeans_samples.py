"""Writes the model directories tfcluster trains (LinearClassifier with LinearSDCA, KMeans)
into data/sdca_kmeans/tfcluster/, for record_sdca_kmeans.py to restore in TF 1.15
(`*_restores_tfcluster_checkpoint` cases). Run with tfcluster first:

    PYTHONPATH=server python tests/tf_reference/write_sdca_kmeans_samples.py
"""

import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import kmeans_cases  # noqa: E402
import sdca_cases  # noqa: E402
import tfcluster as tf  # noqa: E402

OUT = os.path.join(sdca_cases.DATA_DIR, "tfcluster")


def _keep_latest_checkpoint(model_dir):
    latest = tf.train.latest_checkpoint(model_dir)
    for name in os.listdir(model_dir):
        path = os.path.join(model_dir, name)
        if name == "checkpoint" or (path.startswith(latest) and not name.endswith(".meta")):
            continue
        if os.path.isdir(path):
            shutil.rmtree(path)
        else:
            os.remove(path)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    tf.logging.set_verbosity(tf.logging.ERROR)
    classifier = os.path.join(OUT, "classifier")
    est = sdca_cases.classifier_estimator(tf, classifier)
    input_fn, _, _ = sdca_cases._features(tf, sdca_cases._CLASS)
    est.train(input_fn, steps=9)
    _keep_latest_checkpoint(classifier)
    tf.reset_default_graph()
    given = os.path.join(OUT, "given")
    pts = kmeans_cases._points()
    km = kmeans_cases.given_kmeans(tf, given)
    km.train(lambda: (tf.constant(pts), None), steps=3)
    _keep_latest_checkpoint(given)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
