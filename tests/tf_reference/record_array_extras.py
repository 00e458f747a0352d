"""Records TensorFlow's values for cases_array_extras.py (run by run.py under bench/.venv-tf,
TF 2.x's compat.v1 with v2 behaviour disabled), plus the dtype traits, the error-code tables and
the TF1 behaviour switches' state."""

from __future__ import annotations

import cases_array_extras
import tensorflow.compat.v1 as tf
from casebook import run_case
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("array_extras")
for name, case in cases_array_extras.BOOK.cases.items():
    rec.add(name, **run_case(tf, case))

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


def _limit(dtype: tf.DType, which: str) -> object:
    try:
        return str(getattr(dtype, which))
    except TypeError as e:
        return e


for name in DTYPES:
    dt = getattr(tf, name)
    rec.add(
        f"dtype_{name}",
        name=dt.name,
        enum=dt.as_datatype_enum,
        size=dt.size,
        flags=[
            dt.is_integer,
            dt.is_unsigned,
            dt.is_quantized,
            dt.is_floating,
            dt.is_complex,
            dt.is_numpy_compatible,
        ],
        min=_limit(dt, "min"),
        max=_limit(dt, "max"),
        real=dt.real_dtype.name,
        ref=dt._as_ref.name,
        as_dtype_of_numpy=tf.as_dtype(dt.as_numpy_dtype).name,
    )
rec.add("quantized_dtypes", names=sorted(d.name for d in tf.QUANTIZED_DTYPES))

errors = tf.errors
classes = [
    c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, errors.OpError)
]
rec.add(
    "error_codes",
    by_class={c.__name__: errors.error_code_from_exception_type(c) for c in classes},
    by_code={
        str(code): errors.exception_type_from_error_code(code).__name__ for code in range(1, 17)
    },
    unknown_code=rec.catch(lambda: errors.exception_type_from_error_code(99)),
    unknown_class=type(errors.error_code_from_exception_type(ValueError)).__name__,
    op_error_is_errors_op_error=tf.OpError is errors.OpError,
)
tf.disable_resource_variables()
tf.disable_v2_tensorshape()
tf.disable_tensor_equality()
tf.disable_control_flow_v2()
rec.add(
    "tf1_behaviour_switches",
    resource_variables_enabled=tf.resource_variables_enabled(),
    control_flow_v2_enabled=tf.control_flow_v2_enabled(),
    dimension_type=type(tf.TensorShape([3])[0]).__name__,
    equal_tensors_are_equal=tf.constant(1) == tf.constant(1),
)


def _specs() -> dict[str, object]:
    """What TensorSpec/SparseTensorSpec/TypeSpec answer (reprs, comparisons, merges)."""
    with tf.Graph().as_default():
        s = tf.TensorSpec([2, None], tf.int32, "x")
        sp = tf.SparseTensorSpec([2, 3], tf.int64)
        z = tf.zeros([2, 3], name="zz")
        merged = tf.TensorSpec([2, 3]).most_specific_compatible_type(tf.TensorSpec([2, 4]))
        return {
            "reprs": [
                repr(s),
                repr(tf.TensorSpec(None)),
                repr(tf.TensorSpec([])),
                repr(tf.TensorSpec.from_tensor(z)),
                repr(tf.TensorSpec.from_spec(s, "y")),
                repr(merged),
                str(sp.shape),
                sp.dtype.name,
                str(tf.SparseTensorSpec.from_value(tf.SparseTensor([[0, 0]], [1.0], [2, 2])).shape),
            ],
            "compatible": [
                tf.TensorSpec([2, 3]).is_compatible_with(tf.TensorSpec([2, None])),
                tf.TensorSpec([2, 3]).is_compatible_with(tf.TensorSpec([3, 3])),
                tf.TensorSpec([2, 3]).is_compatible_with(z),
                tf.TensorSpec([2, 3], tf.int32).is_compatible_with(z),
                tf.SparseTensorSpec([2, 3]).is_compatible_with(tf.SparseTensorSpec([2, None])),
                tf.SparseTensorSpec([2, 3]).is_compatible_with(tf.TensorSpec([2, 3])),
            ],
            "equal": [
                tf.TensorSpec([2, 3]) == tf.TensorSpec([2, 3]),
                tf.TensorSpec([2, 3]) == tf.TensorSpec([2, 3], name="a"),
                tf.TensorSpec([2, 3]) != tf.TensorSpec([2, 3], tf.int32),
                sp == tf.SparseTensorSpec([2, 3], tf.int64),
                hash(tf.TensorSpec([2, 3])) == hash(tf.TensorSpec([2, 3])),
            ],
            "is_type_spec": [isinstance(s, tf.TypeSpec), isinstance(sp, tf.TypeSpec)],
            "value_types": [s.value_type.__name__, sp.value_type.__name__],
            "from_non_tensor": rec.catch(lambda: tf.TensorSpec.from_tensor(3)),
            "incompatible_merge": rec.catch(
                lambda: tf.TensorSpec([2]).most_specific_compatible_type(
                    tf.TensorSpec([2], tf.int32)
                )
            ),
        }


rec.add("type_specs", **_specs())
rec.save()
