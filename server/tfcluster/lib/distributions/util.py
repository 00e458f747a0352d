"""Helpers shared by the distributions: logits/probs, argument checks embedded as control
dependencies (validate_args), log multinomial coefficients and seed salting."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.ops import array_ops, check_ops, control_flow_ops, math_ops, nn_ops, special_math_ops
from tfcluster.ops.constant_op import constant


def _largest_integer(dt: dtypes.DType) -> int:
    """The largest integer dt holds exactly (floats: 2**(mantissa bits + 1))."""
    dt = dt.base_dtype
    if dt.is_floating:
        return int(2 ** (np.finfo(dt.as_numpy_dtype).nmant + 1))
    if dt.is_integer:
        return int(np.iinfo(dt.as_numpy_dtype).max)
    if dt == dtypes.bool_:
        return 1
    raise TypeError(f"Unrecognized dtype: {dt.name}")


def _integer_like(dt: dtypes.DType) -> bool:
    return dt.is_integer or dt.base_dtype == dtypes.bool_


def assert_integer_form(
    x: Any, message: str | None = None, int_dtype: Any = None, name: str = "assert_integer_form"
) -> Any:
    """An assertion that x holds whole numbers (x == cast(cast(x, int), x.dtype))."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_integer:
            return control_flow_ops.no_op()
        message = message or f"{x} has non-integer components"
        if int_dtype is None:
            by_float = {dtypes.float16: dtypes.int16, dtypes.float32: dtypes.int32}
            int_dtype = by_float.get(x.dtype.base_dtype, dtypes.int64)
        return check_ops.assert_equal(
            x, math_ops.cast(math_ops.cast(x, int_dtype), x.dtype), message=message, name=name
        )


def embed_check_nonnegative_integer_form(
    x: Any, name: str = "embed_check_nonnegative_integer_form"
) -> Tensor:
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        checks = [check_ops.assert_non_negative(x, message=f"'{x}' must be non-negative.")]
        if not x.dtype.is_integer:
            checks.append(
                assert_integer_form(x, message=f"'{x}' cannot contain fractional components.")
            )
        return control_flow_ops.with_dependencies(checks, x)


def embed_check_integer_casting_closed(
    x: Any, target_dtype: Any, name: str = "embed_check_casting_closed"
) -> Tensor:
    """x with checks that it is non-negative and survives a cast to target_dtype."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        if not _integer_like(x.dtype) and not x.dtype.is_floating:
            raise TypeError(f"{x.dtype.name}.dtype must be floating- or integer-type.")
        if not _integer_like(x.dtype) and not _integer_like(target_dtype):
            raise TypeError(
                f"At least one of {x}.dtype ({x.dtype.name}) and target_dtype "
                f"({target_dtype.name}) must be integer-type."
            )
        checks = [check_ops.assert_non_negative(x, message="Elements must be non-negative.")]
        if x.dtype.is_floating:
            checks.append(
                assert_integer_form(
                    x,
                    int_dtype=target_dtype,
                    message=f"Elements must be {target_dtype.name}-equivalent.",
                )
            )
        elif _largest_integer(x.dtype) > _largest_integer(target_dtype):
            top = _largest_integer(target_dtype)
            checks.append(
                check_ops.assert_less_equal(x, top, message=f"Elements cannot exceed {top}.")
            )
        return control_flow_ops.with_dependencies(checks, x)


def embed_check_categorical_event_shape(
    categorical_param: Any, name: str = "embed_check_categorical_event_shape"
) -> Tensor:
    """The parameter, checked to have at least two classes, and no more than its float dtype
    can count exactly."""
    with name_scope(name, values=[categorical_param]):
        x = convert_to_tensor(categorical_param, name="categorical_param")
        dt = x.dtype.base_dtype
        max_event_size = _largest_integer(dt) if dt.is_floating else 0
        if max_event_size == 0:
            raise TypeError(f"Unable to validate size of unrecognized dtype ({dt.name}).")
        try:
            static = x.shape.with_rank_at_least(1)
        except ValueError:
            raise ValueError(
                "A categorical-distribution parameter must have at least 1 dimension."
            ) from None
        last = static.dims[-1].value if static.dims is not None else None
        if last is not None:
            if last < 2:
                raise ValueError(
                    "A categorical-distribution parameter must have at least 2 events."
                )
            if last > max_event_size:
                raise ValueError(
                    f"Number of classes exceeds `dtype` precision, i.e., {dt.name} implies shape "
                    f"({last}) cannot exceed {max_event_size}."
                )
            return x
        event_size = array_ops.shape(x, name="x_shape")[-1]
        checks = [
            check_ops.assert_rank_at_least(
                x, 1, message="A categorical-distribution parameter must have at least 1 dimension."
            ),
            check_ops.assert_greater_equal(
                array_ops.shape(x)[-1],
                2,
                message="A categorical-distribution parameter must have at least 2 events.",
            ),
            check_ops.assert_less_equal(
                event_size,
                max_event_size,
                message=f"Number of classes exceeds `dtype` precision, i.e., {dt.name} dtype "
                f"cannot exceed {max_event_size} shape.",
            ),
        ]
        return control_flow_ops.with_dependencies(checks, x)


def get_logits_and_probs(
    logits: Any = None,
    probs: Any = None,
    multidimensional: bool = False,
    validate_args: bool = False,
    name: str = "get_logits_and_probs",
) -> tuple[Tensor, Tensor]:
    """(logits, probs) from exactly one of them: softmax/sigmoid one way, log the other."""
    with name_scope(name, values=[probs, logits]):
        if (probs is None) == (logits is None):
            raise ValueError("Must pass probs or logits, but not both.")
        if probs is None:
            logits = convert_to_tensor(logits, name="logits")
            if not logits.dtype.is_floating:
                raise TypeError("logits must having floating type.")
            if multidimensional:
                if validate_args:
                    logits = embed_check_categorical_event_shape(logits)
                return logits, nn_ops.softmax(logits, name="probs")
            return logits, math_ops.sigmoid(logits, name="probs")
        probs = convert_to_tensor(probs, name="probs")
        if not probs.dtype.is_floating:
            raise TypeError("probs must having floating type.")
        if validate_args:
            with name_scope("validate_probs"):
                one = constant(1.0, probs.dtype)
                checks = [check_ops.assert_non_negative(probs)]
                if multidimensional:
                    probs = embed_check_categorical_event_shape(probs)
                    checks.append(
                        check_ops.assert_near(
                            math_ops.reduce_sum(probs, -1), one, message="probs does not sum to 1."
                        )
                    )
                else:
                    checks.append(
                        check_ops.assert_less_equal(
                            probs, one, message="probs has components greater than 1."
                        )
                    )
                probs = control_flow_ops.with_dependencies(checks, probs)
        with name_scope("logits"):
            if multidimensional:
                return math_ops.log(probs), probs
            return math_ops.log(probs) - math_ops.log1p(-1.0 * probs), probs


def log_combinations(n: Any, counts: Any, name: str = "log_combinations") -> Tensor:
    """log(n! / prod(counts!)), the multinomial coefficient over the last axis."""
    with name_scope(name, values=[n, counts]):
        n = convert_to_tensor(n, name="n")
        counts = convert_to_tensor(counts, name="counts")
        total_permutations = special_math_ops.lgamma(n + 1)
        redundant = math_ops.reduce_sum(special_math_ops.lgamma(counts + 1), axis=[-1])
        return total_permutations - redundant


def gen_new_seed(seed: int | None, salt: str) -> int | None:
    """A second seed derived from seed and salt (the same md5 rule as TF, so seeded programs
    give the same op seeds)."""
    if seed is None:
        return None
    digest = hashlib.md5((str(seed) + salt).encode("utf-8")).hexdigest()
    return int(digest[:8], 16) & 0x7FFFFFFF


def pick_vector(cond: Any, true_vector: Any, false_vector: Any, name: str = "pick_vector") -> Any:
    """true_vector if cond else false_vector, where the vectors may differ in length."""
    with name_scope(name, values=(cond, true_vector, false_vector)):
        cond = convert_to_tensor(cond, name="cond")
        if cond.dtype != dtypes.bool_:
            raise TypeError(f"{cond}.dtype={cond.dtype} which is not {dtypes.bool_}")
        static = tensor_util.constant_value(cond)
        if static is not None:
            return true_vector if static else false_vector
        true_vector = convert_to_tensor(true_vector, name="true_vector")
        false_vector = convert_to_tensor(false_vector, name="false_vector")
        if true_vector.dtype != false_vector.dtype:
            raise TypeError(
                f"{true_vector}.dtype={true_vector.dtype} does not match "
                f"{false_vector}.dtype={false_vector.dtype}"
            )
        n = array_ops.shape(true_vector)[0]
        both = array_ops.concat([true_vector, false_vector], 0)
        return array_ops.slice(
            both, [array_ops.where_v2(cond, 0, n)], [array_ops.where(cond, n, -1)]
        )
