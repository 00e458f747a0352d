"""Learning-rate schedules of the global step (TF1's learning_rate_decay)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.ops import math_ops


def _require_step(global_step: Any, fn: str) -> None:
    if global_step is None:
        raise ValueError(f"global_step is required for {fn}.")


def exponential_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    decay_rate: Any,
    staircase: bool = False,
    name: str | None = None,
) -> Tensor:
    """learning_rate * decay_rate ^ (global_step / decay_steps), floored when staircase."""
    _require_step(global_step, "exponential_decay")
    with name_scope(name, "ExponentialDecay", [learning_rate, global_step]) as scope:
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = lr.dtype.base_dtype
        p = math_ops.truediv(math_ops.cast(global_step, dtype), math_ops.cast(decay_steps, dtype))
        if staircase:
            p = math_ops.floor(p)
        return math_ops.multiply(lr, math_ops.pow(math_ops.cast(decay_rate, dtype), p), name=scope)


def natural_exp_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    decay_rate: Any,
    staircase: bool = False,
    name: str | None = None,
) -> Tensor:
    """learning_rate * exp(-decay_rate * global_step / decay_steps)."""
    _require_step(global_step, "natural_exp_decay")
    with name_scope(name, "NaturalExpDecay", [learning_rate, global_step]) as scope:
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = lr.dtype.base_dtype
        p = math_ops.truediv(math_ops.cast(global_step, dtype), math_ops.cast(decay_steps, dtype))
        if staircase:
            p = math_ops.floor(p)
        exponent = math_ops.exp(
            math_ops.multiply(math_ops.negative(math_ops.cast(decay_rate, dtype)), p)
        )
        return math_ops.multiply(lr, exponent, name=scope)


def inverse_time_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    decay_rate: Any,
    staircase: bool = False,
    name: str | None = None,
) -> Tensor:
    """learning_rate / (1 + decay_rate * global_step / decay_steps)."""
    _require_step(global_step, "inverse_time_decay")
    with name_scope(name, "InverseTimeDecay", [learning_rate, global_step]) as scope:
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = lr.dtype.base_dtype
        p = math_ops.truediv(math_ops.cast(global_step, dtype), math_ops.cast(decay_steps, dtype))
        if staircase:
            p = math_ops.floor(p)
        denom = math_ops.add(
            convert_to_tensor(1.0, dtype=dtype),
            math_ops.multiply(math_ops.cast(decay_rate, dtype), p),
        )
        return math_ops.truediv(lr, denom, name=scope)


def polynomial_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    end_learning_rate: Any = 0.0001,
    power: Any = 1.0,
    cycle: bool = False,
    name: str | None = None,
) -> Tensor:
    """(lr - end) * (1 - step / decay_steps) ^ power + end, with step capped at decay_steps;
    with cycle, decay_steps grows to the first multiple of itself past the step instead."""
    _require_step(global_step, "polynomial_decay")
    with name_scope(name, "PolynomialDecay", [learning_rate, global_step]) as scope:
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = lr.dtype.base_dtype
        end = math_ops.cast(end_learning_rate, dtype)
        steps = math_ops.cast(decay_steps, dtype)
        step = math_ops.cast(global_step, dtype)
        one = convert_to_tensor(1.0, dtype=dtype)
        if cycle:
            # ceil(step / decay_steps), and 1 at step 0 (as TF's cond does).
            multiplier = math_ops.maximum(math_ops.ceil(math_ops.truediv(step, steps)), one)
            steps = math_ops.multiply(steps, multiplier)
        else:
            step = math_ops.minimum(step, steps)
        frac = math_ops.subtract(one, math_ops.truediv(step, steps))
        scaled = math_ops.multiply(
            math_ops.subtract(lr, end), math_ops.pow(frac, math_ops.cast(power, dtype))
        )
        return math_ops.add(scaled, end, name=scope)


def piecewise_constant(
    x: Any, boundaries: Sequence[Any], values: Sequence[Any], name: str | None = None
) -> Tensor:
    """values[0] while x <= boundaries[0], values[1] while x <= boundaries[1], ..."""
    if len(values) != len(boundaries) + 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    with name_scope(name, "PiecewiseConstant", [x]):
        x_t = convert_to_tensor(x)
        vals = [convert_to_tensor(v) for v in values]
        result = vals[0]
        for b, v in zip(boundaries, vals[1:]):
            past = math_ops.greater(x_t, convert_to_tensor(b, dtype=x_t.dtype.base_dtype))
            result = math_ops.select(past, v, result)
        return result


__all__ = [
    "exponential_decay",
    "inverse_time_decay",
    "natural_exp_decay",
    "piecewise_constant",
    "polynomial_decay",
]
