"""tf.reshape's static shape inference and its errors, for TF 1.15 (recorded by
record_reshape_shapes.py) and tfcluster (tests/unit/test_reshape_shape_inference.py): the
static output shape or the error's class and message at graph construction, and, for graphs
that build, the value or error of a run. Python 3.7 code."""

import numpy as np

CASES = {
    "wildcard_not_divisible": ([4, 3, 5], "[13, 2, -1]", None),
    "sizes_differ": ([4, 3, 5], "[13, 2, 3]", None),
    "numpy_shape_sizes_differ": ([3], "np.array([2, 2])", None),
    "wildcard_beside_zero": ([4, 3, 5], "[0, -1]", None),
    "two_wildcards": ([4, 3, 5], "[-1, -1]", None),
    "unknown_entry_not_divisible": ([4, 3, 5], "tf.stack([tf.placeholder(tf.int32, []), 7])", None),
    "unknown_entry_inferred": ([4, 3, 5], "tf.stack([tf.placeholder(tf.int32, []), 6])", None),
    "size_below_minus_one": ([4], "[-2, 2]", None),
    "shape_of_rank_two": ([4], "[[2, 2]]", None),
    "empty_input_wildcard": ([0, 3], "[-1, 0]", None),
    "unknown_batch_to_fixed_sizes": ([None, 3], "[4, 3]", np.ones([4, 3], np.float32)),
    "unknown_batch_not_divisible": ([None, 3], "[5, 2]", None),
    "unknown_batch_both_unknown": ([None, 4], "[-1, 2]", np.ones([3, 4], np.float32)),
    "unknown_batch_flattened": ([None, 2, 3], "[-1, 6]", np.ones([2, 2, 3], np.float32)),
    "unknown_rank_input": (None, "[2, -1]", np.ones([2, 3], np.float32)),
    "two_wildcards_run": ([None, 6], "[-1, -1]", np.ones([2, 6], np.float32)),
    "unknown_batch_run_mismatch": ([None, 3], "[-1, 4]", np.ones([2, 3], np.float32)),
}


def run_cases(tf):
    out = {}
    for name, (in_shape, shape_src, feed) in sorted(CASES.items()):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, in_shape, name="x")
            try:
                y = tf.reshape(x, eval(shape_src, {"tf": tf, "np": np}))
            except Exception as e:
                out[name] = {"build": [type(e).__name__, str(e)]}
                continue
            result = {"build": ["ok", str(y.shape)]}
            if feed is not None:
                fed = {x: feed}
                fed.update(
                    {
                        op.outputs[0]: 2
                        for op in tf.get_default_graph().get_operations()
                        if op.type == "Placeholder" and op.name != "x"
                    }
                )
                with tf.Session() as sess:
                    try:
                        result["run"] = ["ok", list(sess.run(y, fed).shape)]
                    except tf.errors.OpError as e:
                        lines = e.message.split("\n")
                        result["run"] = [type(e).__name__, lines[0]]
            out[name] = result
    return out
