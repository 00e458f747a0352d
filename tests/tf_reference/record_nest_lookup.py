"""tf.nest, tf.lookup.StaticVocabularyTable, tf.manip's space/batch ops, tf.audio and tf.config's
soft placement and device lists as TF 1.15
itself does them. Run with TF 1.15:
`cd tests/tf_reference && /tmp/tf115/bin/python record_nest_lookup.py`."""

import numpy as np
import tensorflow.compat.v1 as tf
from nest_lookup_cases import config_cases, lookup_audio_cases, run_nest_cases
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("nest_lookup")
for name, outcome in run_nest_cases(tf).items():
    rec.add("nest_" + name, **outcome)
cases = lookup_audio_cases(tf, np)
rec.add("lookup_manip_audio", **cases["values"])
rec.add("lookup_manip_audio_names", **cases["names"])
rec.add("config", **config_cases(tf))  # last: it turns soft placement on
rec.save()
