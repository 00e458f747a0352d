"""tf.data.DatasetSpec / tf.OptionalSpec programs run on TF 1.15 by record_data_specs.py and
on tfcluster by tests/unit/test_data_type_specs.py (reprs and comparisons). Python 3.7 too."""

from __future__ import annotations


def data_specs(tf):
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(3)
        pairs = tf.data.Dataset.from_tensors(
            ({"a": tf.constant([1.0, 2.0])}, tf.constant("s"))
        ).batch(2)
        spec = tf.data.DatasetSpec.from_value(ds)
        pair_spec = tf.data.DatasetSpec.from_value(pairs)
        opt = tf.data.experimental.Optional.from_value(tf.constant([1.0, 2.0]))
        opt_spec = tf.OptionalSpec.from_value(opt)
        loose = tf.OptionalSpec(tf.TensorSpec([None], tf.float32))
        return {
            "dataset_reprs": [
                repr(spec),
                repr(pair_spec),
                repr(tf.data.DatasetSpec({"a": tf.TensorSpec([2], tf.float32)}, [5])),
            ],
            "dataset_equal": [
                spec == tf.data.DatasetSpec(tf.TensorSpec([], tf.int64)),
                spec == pair_spec,
            ],
            "dataset_compatible": [
                spec.is_compatible_with(ds),
                spec.is_compatible_with(pairs),
                pair_spec.is_compatible_with(pairs),
            ],
            "optional_reprs": [repr(opt_spec), repr(loose)],
            "optional_equal": [
                opt_spec == tf.OptionalSpec(tf.TensorSpec([2], tf.float32)),
                opt_spec == loose,
            ],
            "optional_compatible": [
                loose.is_compatible_with(opt_spec),
                opt_spec.is_compatible_with(loose),
                loose.is_compatible_with(opt),
            ],
            "optional_merged": repr(loose.most_specific_compatible_type(opt_spec)),
        }
