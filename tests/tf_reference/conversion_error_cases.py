"""The errors TF 1.15 raises when an operand cannot become a tensor of the op's dtype: a
string added to a float tensor (`+` builds AddV2, tf.add builds Add, each naming itself), and
a list holding tf.Dimension values (TF lists the contents and suggests casting). Each case is
`fn(tf) -> {"error": class, "message": first line}`, recorded under TF 1.15 by
record_conversion_errors.py and run on tfcluster by tests/unit/test_conversion_errors_as_tf1.py.
Python 3.7 code."""

from __future__ import annotations

try:
    from tf_reference.case_tools import error
except ImportError:  # run by the recorder from tests/tf_reference
    from case_tools import error


def _float(tf):
    return tf.constant([1.0, 2.0])


CASES = {
    "float_plus_string": lambda tf: error(lambda: _float(tf) + "a"),
    "string_plus_float": lambda tf: error(lambda: "a" + _float(tf)),
    "float_times_string": lambda tf: error(lambda: _float(tf) * "a"),
    "add_float_and_string": lambda tf: error(lambda: tf.add(_float(tf), "a")),
    "multiply_float_and_string": lambda tf: error(lambda: tf.multiply(_float(tf), "a")),
    "dimension_and_float": lambda tf: error(lambda: tf.convert_to_tensor([tf.Dimension(3), 2.5])),
    "dimension_and_unknown": lambda tf: error(
        lambda: tf.constant([tf.Dimension(3), tf.Dimension(None)])
    ),
    "nested_dimension_and_int": lambda tf: error(
        lambda: tf.convert_to_tensor([[tf.Dimension(3)], [2]])
    ),
}
