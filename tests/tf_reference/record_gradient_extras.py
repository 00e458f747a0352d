"""Records TensorFlow's answers to the programs of gradient_extras_cases.py.

Run under TensorFlow 1.15 (the reference; Python 3.7: /tmp/tf115 on the project's machine,
`python3.7 -m venv V && V/bin/pip install tensorflow-cpu==1.15.0 "numpy<1.19"`), it writes
data/gradient_extras.json, which the tests compare with:

    V/bin/python tests/tf_reference/record_gradient_extras.py

Run by run.py under TensorFlow 2.x (tf.compat.v1) it writes data/gradient_extras_tf2.json
instead, for reference only (2.x builds switch_case and custom_gradient differently).
"""

from __future__ import annotations

import tensorflow as real_tf
from gradient_extras_cases import recorded_cases, run
from recorder import Recorder

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "gradient_extras"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "gradient_extras_tf2"

rec = Recorder(area)
for case, (program, index) in recorded_cases().items():
    rec.add(case, **run(tf, program, index))
rec.save()
