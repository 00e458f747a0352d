"""Records TensorFlow 1.15's tensorflow.python.lib.io.file_io functions on the cases of
file_io_cases.py (results, files left, errors). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_file_io.py
"""

from __future__ import annotations

import tempfile

import tensorflow as tf
from file_io_cases import CASES
from recorder import Recorder
from tensorflow.python.lib.io import file_io

if not tf.__version__.startswith("1."):
    raise SystemExit("record_file_io.py records TensorFlow 1.15")

rec = Recorder("file_io")
for name, fn in sorted(CASES.items()):
    with tempfile.TemporaryDirectory() as root:
        rec.add(name, **fn(file_io, root))
rec.save()
