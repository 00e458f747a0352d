"""ResizeNearestNeighborGrad of integer upsamplings (UpSampling2D's and resize_nearest_neighbor's
gradient), as TF 1.15's kernel sums each output's f x f positions: in its loop order, rows
then columns. Recorded by record_upsampling_grad.py; tests/unit/test_upsampling_grad.py
compares the float32 bits.

Python 3.7 code (the recorder runs under TF 1.15).
"""

import numpy as np

try:
    from tf_reference.case_tools import registrar
except ImportError:  # the recorder, run from tests/tf_reference under TF 1.15
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True)
SHAPES = [
    ((2, 8, 8, 3), (4, 4), False, False),
    ((2, 8, 8, 3), (4, 4), False, True),
    ((1, 9, 12, 2), (3, 4), False, False),
    ((1, 9, 12, 2), (3, 4), False, True),
]


@case
def nearest_upsampling_gradients(tf):
    rs = np.random.RandomState(0)
    out = {}
    with tf.Session() as sess:
        for shape, size, align, half in SHAPES:
            g = (rs.randn(*shape) * 100).astype(np.float32)
            r = tf.raw_ops.ResizeNearestNeighborGrad(
                grads=g, size=list(size), align_corners=align, half_pixel_centers=half
            )
            key = "{}_{}_{:d}{:d}".format(
                "x".join(map(str, shape)), "x".join(map(str, size)), align, half
            )
            out[key] = sess.run(r).reshape(-1).view(np.int32).tolist()
    return out
