"""Random ops made after tf.image.decode_image draw TF 1.15's numbers: their op seeds derive
from the graph's op count, and 1.15's decode_image makes a chain of conds (more ops for
another dtype, expand_animations=False or a Python string). Also its result's name
(`decode_image/cond_jpeg/Merge:0`). In a graph and in a tf.data map function. Written once
for TF 1.15 (record_decode_image_seed.py) and tfcluster (tests/unit/test_decode_image_seed.py);
kept runnable on Python 3.7."""

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True, graph_seed=5)

_PIXELS = (np.arange(4 * 5 * 3) * 7 % 256).astype(np.uint8).reshape(4, 5, 3)


def _after_decode(tf, **kwargs):
    png = tf.image.encode_png(tf.constant(_PIXELS))
    image = tf.image.decode_image(png, **kwargs)
    noise = tf.random_uniform([4])
    with tf.Session() as sess:
        decoded, drawn = sess.run([image, noise])
    return {"name": image.name, "sum": float(np.sum(decoded)), "noise": drawn.tolist()}


@case
def uint8_image_then_noise(tf):
    return _after_decode(tf)


@case
def float_image_then_noise(tf):
    return _after_decode(tf, dtype=tf.float32)


@case
def uint16_still_image_then_noise(tf):
    return _after_decode(tf, dtype=tf.uint16, expand_animations=False)


@case
def named_decode_then_noise(tf):
    return _after_decode(tf, channels=3, name="photo")


@case
def python_bytes_then_noise(tf):
    with tf.Session() as sess:
        png = sess.run(tf.image.encode_png(tf.constant(_PIXELS)))
    image = tf.image.decode_image(png)
    noise = tf.random_uniform([3])
    with tf.Session() as sess:
        return {"name": image.name, "noise": sess.run(noise).tolist()}


@case
def map_function_flips_after_decode(tf):
    with tf.Session() as sess:
        png = sess.run(tf.image.encode_png(tf.constant(_PIXELS)))

    def load(data):
        image = tf.image.decode_image(data, channels=3, expand_animations=False)
        return tf.image.random_flip_left_right(image), tf.random_uniform([2])

    dataset = tf.data.Dataset.from_tensors(png).repeat(6).map(load)
    first, noise = tf.data.make_one_shot_iterator(dataset).get_next()
    flips, draws = [], []
    with tf.Session() as sess:
        for _ in range(6):
            image, drawn = sess.run([first, noise])
            flips.append(bool(image[0, 0, 0] != _PIXELS[0, 0, 0]))
            draws.append(drawn.tolist())
    return {"flips": flips, "noise": draws}
