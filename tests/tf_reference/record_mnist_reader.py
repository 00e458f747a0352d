"""Records what TensorFlow 1.15's MNIST tutorial reader gives for mnist_reader_cases.py.

TF 2.x no longer ships tensorflow.examples.tutorials, so this recorder runs under TF 1.15 only
(Python 3.7: `python3.7 -m venv V && V/bin/pip install tensorflow-cpu==1.15.0 "numpy<1.19"`):

    V/bin/python tests/tf_reference/record_mnist_reader.py

It writes data/mnist_reader.json.
"""

from __future__ import annotations

import tempfile

import tensorflow as tf
from mnist_reader_cases import CASES, write_idx_files
from recorder import Recorder
from tensorflow.examples.tutorials.mnist import input_data

if not tf.__version__.startswith("1."):
    raise SystemExit("record_mnist_reader.py needs TensorFlow 1.x (tutorial modules)")

rec = Recorder("mnist_reader")
with tempfile.TemporaryDirectory() as directory:
    write_idx_files(directory)
    for name, fn in sorted(CASES.items()):
        rec.add(name, **fn(tf, input_data, directory))
rec.save()
