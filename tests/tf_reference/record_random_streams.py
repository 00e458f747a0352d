"""Records TensorFlow 1.15's numbers for the programs of random_stream_cases.py into
data/random_streams.json. Run with TF 1.15 itself (the stateful ops' op seeds come from the
op count, which 2.x's compat.v1 need not share):

    cd tests/tf_reference && /tmp/tf115/bin/python record_random_streams.py
"""

from __future__ import annotations

import tensorflow as tf
from random_stream_cases import CASES
from recorder import Recorder

assert tf.__version__.startswith("1."), "record with TensorFlow 1.15"
rec = Recorder("random_streams")
for name, fn in sorted(CASES.items()):
    rec.add(name, **fn(tf))
rec.save()
