"""tf.keras HDF5 saves and loads on paths where the file cannot be made or read: TF 1.15
(h5py 2.10, HDF5 1.10) raises a plain OSError "Unable to create file (...)" / "Unable to open
file (...)". Paths in messages are written relative to a temporary folder (`<tmp>`). Run on
TF 1.15 by record_keras_hdf5_path.py and on tfcluster by tests/unit/test_keras_hdf5_path.py.
Python 3.7 code."""

from __future__ import annotations

import os


def _model(tf):
    return tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])


def _save_to_folder(tf, tmp):
    _model(tf).save(os.path.join(tmp, "saved_model") + "/")


def _save_into_missing_folder(tf, tmp):
    _model(tf).save(os.path.join(tmp, "absent", "model.h5"))


def _save_weights_to_folder(tf, tmp):
    _model(tf).save_weights(os.path.join(tmp, "saved_model") + "/", save_format="h5")


def _load_weights_missing_file(tf, tmp):
    _model(tf).load_weights(os.path.join(tmp, "absent.h5"))


CASES = {
    "save_to_folder": _save_to_folder,
    "save_into_missing_folder": _save_into_missing_folder,
    "save_weights_to_folder": _save_weights_to_folder,
    "load_weights_missing_file": _load_weights_missing_file,
}


def run(tf, case, tmp):
    os.makedirs(os.path.join(tmp, "saved_model"), exist_ok=True)
    graph = tf.Graph()
    with graph.as_default():
        try:
            CASES[case](tf, tmp)
            return {"error": None}
        except Exception as e:  # the class, errno and message are what is compared
            return {
                "error": type(e).__name__,
                "errno": getattr(e, "errno", None),
                "message": str(e).replace(tmp, "<tmp>"),
            }
