"""Records TF 1.15's tf.IndexedSlicesSpec / tf.TensorArraySpec behaviour
(composite_spec_cases.py). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_composite_specs.py
"""

from __future__ import annotations

import tensorflow as tf
from composite_spec_cases import indexed_slices_specs, tensor_array_specs
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_composite_specs.py records TensorFlow 1.15")

rec = Recorder("composite_specs")
rec.add("indexed_slices_specs", **indexed_slices_specs(tf))
rec.add("tensor_array_specs", **tensor_array_specs(tf))
rec.save()
