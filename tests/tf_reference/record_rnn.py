"""Records TensorFlow 1.15's answers to the programs of rnn_cases.py into data/rnn.json, and a
checkpoint of an LSTM model that TensorFlow trained into data/rnn_checkpoint/ with its
outputs (rnn_checkpoint_model.py builds the model on both sides).

Run with TensorFlow 1.15 (Python 3.7: `python3.7 -m venv V && V/bin/pip install
tensorflow-cpu==1.15.0 "numpy<1.19"`), from this folder:

    V/bin/python tests/tf_reference/record_rnn.py
    V/bin/python tests/tf_reference/record_rnn.py CASE ...   # only these cases, the rest kept

(run.py's TensorFlow 2.x is not the reference here: its compat.v1 RNN cells are Keras layers
whose names and scopes differ from 1.15's.)
"""

from __future__ import annotations

import json
import os
import sys
import traceback

import tensorflow as real_tf

if not real_tf.__version__.startswith("1."):
    sys.exit("record_rnn.py records TensorFlow 1.15's behaviour: run it with TensorFlow 1.15")

import rnn_checkpoint_model
from recorder import DATA_DIR, Recorder
from rnn_cases import CASES

tf = real_tf.compat.v1

rec = Recorder("rnn")
only = set(sys.argv[1:])
if only:
    unknown = only - set(CASES) - {"checkpoint_model"}
    if unknown:
        sys.exit(f"no such cases: {sorted(unknown)}")
    with open(os.path.join(DATA_DIR, "rnn.json")) as f:
        rec.cases = {k: v for k, v in json.load(f)["cases"].items() if k not in only}
for name, fn in sorted(CASES.items()):
    if only and name not in only:
        continue
    try:
        result = fn(tf)
    except Exception as e:
        traceback.print_exc()
        rec.add(name, skipped=f"{type(e).__name__}: {e}")
        continue
    rec.add(name, **result)
if not only or "checkpoint_model" in only:
    rec.add(
        "checkpoint_model",
        **rnn_checkpoint_model.train_and_save(tf, os.path.join(DATA_DIR, "rnn_checkpoint")),
    )
rec.cases = dict(sorted(rec.cases.items()))
rec.save()
