"""Records TensorFlow 1.15's behaviour for the ops it defines without any kernel (cases in
no_kernel_op_cases.py): output dtypes and static shapes, attrs after defaults, and the errors
of building or running each.

Run with TF 1.15 itself (Python 3.7): `cd tests/tf_reference && /tmp/tf115/bin/python
record_no_kernel_ops.py`."""

import no_kernel_op_cases
import tensorflow.compat.v1 as tf
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("no_kernel_ops")
for name, build in sorted(no_kernel_op_cases.CASES.items()):
    rec.add(name, **no_kernel_op_cases.describe(tf, build))
rec.save()
