"""tf.keras.models.load_model on paths that hold no model: TF 1.15 reads a path that is not
an HDF5 file as a SavedModel directory and raises its OSError (SavedModel file does not
exist at ...). Paths in messages are written relative to a temporary folder (`<tmp>`). Run
on TF 1.15 by record_keras_load_model_path.py and on tfcluster by
tests/unit/test_keras_load_model_path.py. Python 3.7 code."""

from __future__ import annotations

import os


def _empty_folder(tmp):
    os.makedirs(os.path.join(tmp, "saved_model"))
    return os.path.join(tmp, "saved_model") + "/"


def _missing(tmp):
    return os.path.join(tmp, "absent")


def _text_file(tmp):
    path = os.path.join(tmp, "notes.txt")
    with open(path, "w") as f:
        f.write("not a model")
    return path


CASES = {"empty_folder": _empty_folder, "missing_path": _missing, "text_file": _text_file}


def run(tf, case, tmp):
    path = CASES[case](tmp)
    try:
        tf.keras.models.load_model(path)
        return {"error": None}
    except Exception as e:  # the class and message are what is compared
        return {"error": type(e).__name__, "message": str(e).replace(tmp, "<tmp>")}
