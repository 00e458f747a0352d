"""Records TF 1.15's tf.data.DatasetSpec / tf.OptionalSpec behaviour (data_spec_cases.py).
Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_data_specs.py
"""

from __future__ import annotations

import tensorflow as tf
from data_spec_cases import data_specs
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_data_specs.py records TensorFlow 1.15")

rec = Recorder("data_specs")
rec.add("data_specs", **data_specs(tf))
rec.save()
