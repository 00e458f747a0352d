"""A first recorder: a few core values, so the recording path itself is exercised."""

from __future__ import annotations

import numpy as np
import tensorflow.compat.v1 as tf
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("smoke")

x_value = np.arange(6, dtype=np.float32).reshape(2, 3)
with tf.Graph().as_default():
    x = tf.constant(x_value, name="x")
    y = tf.nn.softmax(x, name="y")
    s = tf.reduce_sum(y * y, name="s")
    (g,) = tf.gradients(s, [x])
    with tf.Session() as sess:
        out = sess.run({"y": y, "g": g})
    rec.add("softmax_and_gradient", x=x_value, y=out["y"], grad=out["g"], name=y.name)

with tf.Graph().as_default():
    a = tf.placeholder(tf.float32)
    b = tf.reshape(a, [4, 2])
    with tf.Session() as sess:
        err = rec.catch(lambda: sess.run(b, {a: x_value}))
    rec.add("reshape_wrong_size", error=err)

rec.save()
