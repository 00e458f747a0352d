"""tf.nest (and friends) as TF 1.15 itself does it. Run with TF 1.15:
`cd tests/tf_reference && /tmp/tf115/bin/python record_nest_lookup.py`."""

import tensorflow.compat.v1 as tf
from nest_lookup_cases import run_nest_cases
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("nest_lookup")
for name, outcome in run_nest_cases(tf).items():
    rec.add("nest_" + name, **outcome)
rec.save()
