"""The tf.functions over int64 scalars that the dataset raw-op cases hand to the
transformations taking functions (map, take_while, flat_map/interleave, group_by_reducer,
group_by_window), defined once for dataset_form_ops_cases.py and raw_function_ops_cases.py.
Made with `tf` inside the graph being built (TF 1.15 under the recorders, tfcluster in the
tests). Python 3.7 code."""

from types import SimpleNamespace


def int64_functions(tf):
    """square, small (v < 3), upto (range(v) as a dataset), parity, and the reducer's init,
    reduce_fn and finalize; pairs (a window batched by 2) and window_size for
    group_by_window."""
    types, shapes = [tf.int64], [[]]

    @tf.function
    def square(v):
        return v * v

    @tf.function
    def small(v):
        return v < 3

    @tf.function
    def upto(v):
        return tf.raw_ops.RangeDataset(
            start=0, stop=v, step=1, output_types=types, output_shapes=shapes
        )

    @tf.function
    def parity(v):
        return v % 2

    @tf.function
    def init(key):
        return key * 100

    @tf.function
    def reduce_fn(state, v):
        return state + v

    @tf.function
    def finalize(state):
        return state + 1

    @tf.function
    def pairs(key, window):
        return tf.raw_ops.BatchDatasetV2(
            input_dataset=window,
            batch_size=tf.constant(2, tf.int64),
            drop_remainder=tf.constant(False),
            output_types=types,
            output_shapes=[[None]],
        )

    @tf.function
    def window_size(key):
        return tf.constant(2, tf.int64)

    return SimpleNamespace(
        square=square,
        small=small,
        upto=upto,
        parity=parity,
        init=init,
        reduce_fn=reduce_fn,
        finalize=finalize,
        pairs=pairs,
        window_size=window_size,
    )
