"""Records TensorFlow 1.15's distributed-dataset iterator under next() and iter()
(distributed_iterator_cases.py). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_distributed_iterator.py
"""

from __future__ import annotations

import tensorflow as tf
from distributed_iterator_cases import run
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_distributed_iterator.py records TensorFlow 1.15")

rec = Recorder("distributed_iterator")
rec.add("mirrored_initializable", **run(tf))
rec.save()
