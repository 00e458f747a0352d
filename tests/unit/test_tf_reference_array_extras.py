"""TF 1.15's remaining top-level array and dtype names against TensorFlow's recorded values:
the casebook (tests/tf_reference/cases_array_extras.py) case by case, then the dtype traits,
the error-code tables and the TF1 behaviour switches."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import cases_array_extras, reference
from tf_reference.compare import assert_case_matches

CASES = sorted(cases_array_extras.BOOK.cases)
DTYPES = [
    "uint32",
    "uint64",
    "complex128",
    "qint8",
    "quint8",
    "qint16",
    "quint16",
    "qint32",
    "uint16",
    "complex64",
    "float16",
    "int8",
    "bfloat16",
]


@pytest.mark.parametrize("name", CASES)
def test_array_extras_case_matches_tensorflow(name: str) -> None:
    assert_case_matches("array_extras", cases_array_extras.BOOK, name)


def test_repeat_with_scalar_repeats_has_tf115_names() -> None:
    """TF 1.15's names (recorded with TF 1.15.0; TF 2.x's compat.v1 adds a Reshape)."""
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        names = [
            tf.repeat(x, 2, axis=1).name,
            tf.repeat(x, 2).name,
            tf.repeat(x, [1, 3], axis=0).name,
            tf.repeat(x, [2, 0, 1], axis=1).name,
        ]
    assert names == [
        "Repeat/Reshape:0",
        "Repeat_1/Reshape:0",
        "Repeat_2/boolean_mask/GatherV2:0",
        "Repeat_3/Reshape:0",
    ]


def test_tf115_names_of_aliases() -> None:
    """Names TF 1.15.0 gives (TF 2.x's compat.v1 builds these differently)."""
    with tf.Graph().as_default():
        confusion = tf.math.confusion_matrix([0, 2, 1, 2], [0, 1, 1, 2])
        parsed = tf.parse_example(
            ["x"],
            {"sp": tf.SparseFeature("ix", "val", tf.float32, 6), "ix": tf.VarLenFeature(tf.int64)},
        )
    assert confusion.name == "confusion_matrix/SparseTensorDenseAdd:0"
    assert sorted(parsed) == ["ix", "sp"]
    assert parsed["ix"].indices.name == "ParseExample/ParseExample:0"


# str() of float16 limits as TF 1.15 prints them (checked with TF 1.15.0 on numpy 1.18).
TF_115_LIMITS = {("float16", "min"): "-65500.0", ("float16", "max"): "65500.0"}


def _limit(dtype: tf.DType, which: str) -> object:
    try:
        return str(getattr(dtype, which))
    except TypeError as e:
        return {"error": type(e).__name__}


@pytest.mark.parametrize("name", DTYPES)
def test_dtype_traits_match_tensorflow(name: str) -> None:
    want = reference.case("array_extras", f"dtype_{name}")
    dt = getattr(tf, name)
    assert dt.name == want["name"]
    assert dt.as_datatype_enum == want["enum"]
    assert dt.size == want["size"]
    flags = [
        dt.is_integer,
        dt.is_unsigned,
        dt.is_quantized,
        dt.is_floating,
        dt.is_complex,
        dt.is_numpy_compatible,
    ]
    assert flags == want["flags"]
    for which in ("min", "max"):
        got = _limit(dt, which)
        if (name, which) in TF_115_LIMITS:
            # Recorded under TF 2.x on numpy 2; TF 1.15 (numpy 1.x print rules) prints this.
            assert got == TF_115_LIMITS[name, which]
        elif isinstance(want[which], dict):
            assert got == {"error": reference.error_class(want[which])}
        else:
            assert got == want[which]
    assert dt.real_dtype.name == want["real"]
    assert dt._as_ref.name == want["ref"]
    assert tf.as_dtype(dt.as_numpy_dtype).name == want["as_dtype_of_numpy"]
    assert tf.dtypes.as_dtype(name) is dt


def test_quantized_dtypes_are_tensorflows() -> None:
    want = reference.case("array_extras", "quantized_dtypes")["names"]
    assert sorted(d.name for d in tf.QUANTIZED_DTYPES) == want
    assert tf.dtypes.QUANTIZED_DTYPES is tf.QUANTIZED_DTYPES


def test_quantized_values_hold_their_integers() -> None:
    raw = np.array([-3, 7], np.int8).astype(tf.qint8.as_numpy_dtype)
    with tf.Session() as sess:
        out = sess.run(tf.constant(raw))
    assert out.dtype == tf.qint8.as_numpy_dtype
    assert out["qint8"].tolist() == [-3, 7]


def test_error_code_tables_match_tensorflow() -> None:
    want = reference.case("array_extras", "error_codes")
    errors = tf.errors
    for cls_name, code in want["by_class"].items():
        if isinstance(code, dict):  # OpError itself: TF warns and answers an UnknownError
            with pytest.warns(UserWarning, match="Unknown class exception"):
                got = errors.error_code_from_exception_type(getattr(errors, cls_name))
            assert type(got).__name__ == reference.error_class(code)
        else:
            assert errors.error_code_from_exception_type(getattr(errors, cls_name)) == code
    for code, cls_name in want["by_code"].items():
        assert errors.exception_type_from_error_code(int(code)).__name__ == cls_name
    with pytest.raises(KeyError):
        errors.exception_type_from_error_code(99)
    assert reference.error_class(want["unknown_code"]) == "KeyError"
    with pytest.warns(UserWarning, match="Unknown class exception"):
        unknown = errors.error_code_from_exception_type(ValueError)
    assert type(unknown).__name__ == want["unknown_class"]
    assert (tf.OpError is errors.OpError) is want["op_error_is_errors_op_error"]


def test_raise_exception_on_not_ok_status_raises_the_status_class() -> None:
    with tf.errors.raise_exception_on_not_ok_status() as status:
        pass
    with (
        pytest.raises(tf.errors.NotFoundError, match="no such file"),
        tf.errors.raise_exception_on_not_ok_status() as status,
    ):
        status.set(tf.errors.NOT_FOUND, "no such file")


def test_tf1_behaviour_switches_keep_tf1_state() -> None:
    want = reference.case("array_extras", "tf1_behaviour_switches")
    tf.disable_resource_variables()
    tf.disable_v2_tensorshape()
    tf.disable_tensor_equality()
    assert tf.resource_variables_enabled() is want["resource_variables_enabled"]
    assert type(tf.TensorShape([3])[0]).__name__ == want["dimension_type"]
    with tf.Graph().as_default():
        assert (tf.constant(1) == tf.constant(1)) is want["equal_tensors_are_equal"]


def test_control_flow_v2_is_what_tfcluster_builds() -> None:
    """TF1 builds Switch/Merge (control_flow_v2_enabled() is False there); tfcluster's tf.cond
    and tf.while_loop are functional If/While ops, control flow v2's, and say so."""
    assert (
        reference.case("array_extras", "tf1_behaviour_switches")["control_flow_v2_enabled"] is False
    )
    tf.enable_control_flow_v2()
    assert tf.control_flow_v2_enabled() is True
    with tf.Graph().as_default():
        out = tf.cond(tf.constant(True), lambda: tf.constant(1), lambda: tf.constant(2))
        # The result is an Identity named as TF1's Merge, reading the If op.
        assert out.name == "cond/Merge:0" and out.op.type == "Identity"
        assert out.op.inputs[0].op.type in ("If", "StatelessIf")


@pytest.mark.parametrize(
    "switch",
    [
        "enable_v2_tensorshape",
        "enable_tensor_equality",
        "disable_control_flow_v2",
    ],
)
def test_switching_to_v2_behaviour_says_it_is_not_implemented(switch: str) -> None:
    with pytest.raises(tf.errors.UnimplementedError, match=switch):
        getattr(tf, switch)()


def test_type_specs_match_tensorflow() -> None:
    want = reference.case("array_extras", "type_specs")
    with tf.Graph().as_default():
        s = tf.TensorSpec([2, None], tf.int32, "x")
        sp = tf.SparseTensorSpec([2, 3], tf.int64)
        z = tf.zeros([2, 3], name="zz")
        merged = tf.TensorSpec([2, 3]).most_specific_compatible_type(tf.TensorSpec([2, 4]))
        reprs = [
            repr(s),
            repr(tf.TensorSpec(None)),
            repr(tf.TensorSpec([])),
            repr(tf.TensorSpec.from_tensor(z)),
            repr(tf.TensorSpec.from_spec(s, "y")),
            repr(merged),
            str(sp.shape),
            sp.dtype.name,
            str(tf.SparseTensorSpec.from_value(tf.SparseTensor([[0, 0]], [1.0], [2, 2])).shape),
        ]
        compatible = [
            tf.TensorSpec([2, 3]).is_compatible_with(tf.TensorSpec([2, None])),
            tf.TensorSpec([2, 3]).is_compatible_with(tf.TensorSpec([3, 3])),
            tf.TensorSpec([2, 3]).is_compatible_with(z),
            tf.TensorSpec([2, 3], tf.int32).is_compatible_with(z),
            tf.SparseTensorSpec([2, 3]).is_compatible_with(tf.SparseTensorSpec([2, None])),
            tf.SparseTensorSpec([2, 3]).is_compatible_with(tf.TensorSpec([2, 3])),
        ]
    assert reprs == want["reprs"]
    assert compatible == want["compatible"]
    assert [
        tf.TensorSpec([2, 3]) == tf.TensorSpec([2, 3]),
        tf.TensorSpec([2, 3]) == tf.TensorSpec([2, 3], name="a"),
        tf.TensorSpec([2, 3]) != tf.TensorSpec([2, 3], tf.int32),
        sp == tf.SparseTensorSpec([2, 3], tf.int64),
        hash(tf.TensorSpec([2, 3])) == hash(tf.TensorSpec([2, 3])),
    ] == want["equal"]
    assert [isinstance(s, tf.TypeSpec), isinstance(sp, tf.TypeSpec)] == want["is_type_spec"]
    assert [s.value_type.__name__, sp.value_type.__name__] == want["value_types"]
    with pytest.raises(ValueError, match="should be a tf\\.Tensor"):
        tf.TensorSpec.from_tensor(3)
    assert reference.error_class(want["from_non_tensor"]) == "ValueError"
    with pytest.raises(ValueError, match="Types are not compatible"):
        tf.TensorSpec([2]).most_specific_compatible_type(tf.TensorSpec([2], tf.int32))
    assert reference.error_class(want["incompatible_merge"]) == "ValueError"
