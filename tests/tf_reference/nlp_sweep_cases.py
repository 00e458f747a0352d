"""Behaviours public text and sequence TF1 programs (a Transformer encoder's position-wise
convolution, BERT's pieces, memory networks, SeqGAN) showed apart on tfcluster. Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_nlp_sweep.py and on tfcluster by
tests/unit/test_nlp_sweep_behaviours.py. Python 3.7 code."""

from __future__ import annotations


def _message(fn):
    """The class and first line of what fn raises."""
    try:
        fn()
    except Exception as e:  # the class is what is compared
        text = str(e.args[0]) if len(e.args) == 1 else str(e)
        return [type(e).__name__, text.split("\n")[0]]
    return None


def window_shape_error_messages(tf):
    """A convolution or pooling window larger than its input, or filter depths that do not
    match, found while the graph is built: TF's message names the node (scopes included),
    its op type and its input shapes (a Transformer's position-wise conv1d with the filter
    height of d_model over an input of depth 16 said 'for \'Conv2D\'' only)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3, 6, 16, 1])
        w = tf.zeros([1, 512, 1, 8])
        out = {}
        with tf.variable_scope("sub_layer_ff"):
            out["scoped_conv2d"] = _message(
                lambda: tf.nn.conv2d(x, w, [1, 1, 1, 1], "VALID", name="conv1")
            )
        out["conv1d"] = _message(
            lambda: tf.nn.conv1d(tf.zeros([2, 5, 3]), tf.zeros([7, 3, 4]), 1, "VALID")
        )
        out["conv3d"] = _message(
            lambda: tf.nn.conv3d(
                tf.zeros([1, 2, 4, 4, 1]), tf.zeros([3, 1, 1, 1, 2]), [1] * 5, "VALID"
            )
        )
        out["depthwise"] = _message(
            lambda: tf.nn.depthwise_conv2d(
                tf.zeros([1, 4, 4, 2]), tf.zeros([5, 5, 2, 1]), [1, 1, 1, 1], "VALID"
            )
        )
        out["strided_and_dilated"] = _message(
            lambda: tf.nn.conv2d(
                tf.zeros([1, 4, 9, 1]),
                tf.zeros([1, 3, 1, 1]),
                [1, 1, 1, 1],
                "VALID",
                dilations=[1, 1, 5, 1],
            )
        )
        with tf.name_scope("pool_scope"):
            out["max_pool"] = _message(
                lambda: tf.nn.max_pool(x, [1, 7, 1, 1], [1, 1, 1, 1], "VALID", name="pool")
            )
        out["avg_pool"] = _message(lambda: tf.nn.avg_pool(x, [1, 1, 17, 1], [1, 1, 1, 1], "VALID"))
        out["max_pool3d"] = _message(
            lambda: tf.nn.max_pool3d(tf.zeros([1, 2, 4, 4, 1]), [1, 3, 1, 1, 1], [1] * 5, "VALID")
        )
        out["depth_mismatch"] = _message(
            lambda: tf.nn.conv2d(x, tf.zeros([1, 1, 3, 2]), [1, 1, 1, 1], "SAME", name="deep")
        )
        out["conv_rank"] = _message(
            lambda: tf.nn.conv2d(tf.zeros([6, 16, 1]), w, [1, 1, 1, 1], "SAME", name="flat")
        )
        out["filter_rank"] = _message(
            lambda: tf.nn.conv2d(x, tf.zeros([1, 2, 8]), [1, 1, 1, 1], "SAME")
        )
        out["pool_rank"] = _message(
            lambda: tf.nn.avg_pool(tf.zeros([6, 16, 1]), [1, 2, 2, 1], [1, 1, 1, 1], "SAME")
        )
        out["unnamed_second"] = _message(
            lambda: tf.nn.conv2d(tf.zeros([1, 2, 2, 1]), tf.zeros([3, 3, 1, 1]), [1] * 4, "VALID")
        )
    return {"messages": out}


CASES = {
    "window_shape_error_messages": window_shape_error_messages,
}
