"""Learning-rate schedules of the global step (TF1's learning_rate_decay)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor, get_default_graph
from tfcluster.ops import control_flow_ops, math_ops, random_ops
from tfcluster.ops.constant_op import constant


def _require_step(global_step: Any, fn: str) -> None:
    if global_step is None:
        raise ValueError(f"global_step is required for {fn}.")


# Each schedule builds TF 1.15's graph (its keras learning_rate_schedule classes, called at
# once): the name scope `name or "<Default>"` opened as a plain graph name scope (unique: a
# second call makes "ExponentialDecay_1"), the result named after the scope itself.


def _exponential(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    decay_rate: Any,
    staircase: bool,
    name: str | None,
) -> Tensor:
    with get_default_graph().name_scope(name or "ExponentialDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        steps = math_ops.cast(decay_steps, dtype)
        rate = math_ops.cast(decay_rate, dtype)
        p = math_ops.cast(global_step, dtype) / steps
        if staircase:
            p = math_ops.floor(p)
        return math_ops.multiply(lr, math_ops.pow(rate, p), name=scope)


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
    return _exponential(learning_rate, global_step, decay_steps, decay_rate, staircase, name)


def natural_exp_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    decay_rate: Any,
    staircase: bool = False,
    name: str | None = None,
) -> Tensor:
    """learning_rate * exp(-decay_rate * global_step / decay_steps): TF 1.15 builds it as an
    exponential decay of rate exp(-decay_rate) (so its scope is "ExponentialDecay")."""
    _require_step(global_step, "natural_exp_decay")
    rate = math_ops.exp(math_ops.negative(decay_rate))
    return _exponential(learning_rate, global_step, decay_steps, rate, staircase, name)


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
    with get_default_graph().name_scope(name or "InverseTimeDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        steps = math_ops.cast(decay_steps, dtype)
        rate = math_ops.cast(decay_rate, dtype)
        p = math_ops.cast(global_step, dtype) / steps
        if staircase:
            p = math_ops.floor(p)
        one = math_ops.cast(constant(1), dtype)
        denom = math_ops.add(one, math_ops.multiply(rate, p))
        return math_ops.divide(lr, denom, name=scope)


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
    with get_default_graph().name_scope(name or "PolynomialDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        end = math_ops.cast(end_learning_rate, dtype)
        power_t = math_ops.cast(power, dtype)
        step = math_ops.cast(global_step, dtype)
        steps = math_ops.cast(decay_steps, dtype)
        if cycle:
            # ceil(step / decay_steps), and 1 at step 0.
            multiplier = control_flow_ops.cond(
                math_ops.equal(step, 0),
                lambda: constant(1.0),
                lambda: math_ops.ceil(step / decay_steps),
            )
            steps = math_ops.multiply(steps, multiplier)
        else:
            step = math_ops.minimum(step, decay_steps)
        p = math_ops.divide(step, steps)
        return math_ops.add(
            math_ops.multiply(lr - end, math_ops.pow(1 - p, power_t)), end, name=scope
        )


def piecewise_constant(
    x: Any, boundaries: Sequence[Any], values: Sequence[Any], name: str | None = None
) -> Tensor:
    """values[0] while x <= boundaries[0], values[1] while x <= boundaries[1], ...: TF 1.15
    converts the boundaries, values and x first (int32 boundaries cast to an int64 x's
    dtype), then calls its keras PiecewiseConstantDecay at x (piecewise_constant_schedule)."""
    if len(values) != len(boundaries) + 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    bounds = [convert_to_tensor(b) for b in boundaries]
    vals = [convert_to_tensor(v) for v in values]
    x_recomp = convert_to_tensor(x)
    for i, b in enumerate(bounds):
        if b.dtype.base_dtype != x_recomp.dtype.base_dtype:
            if b.dtype.base_dtype == dtypes.int32 and x_recomp.dtype.base_dtype == dtypes.int64:
                bounds[i] = math_ops.cast(b, x_recomp.dtype.base_dtype)
            else:
                raise ValueError(
                    f"Boundaries ({b.dtype.base_dtype.name}) must have the same dtype as x "
                    f"({x_recomp.dtype.base_dtype.name})."
                )
    for v in vals[1:]:
        if v.dtype.base_dtype != vals[0].dtype.base_dtype:
            raise ValueError(
                "Values must have elements all with the same dtype "
                f"({vals[0].dtype.base_dtype.name} vs {v.dtype.base_dtype.name})."
            )
    return piecewise_constant_schedule(x, bounds, vals, name)


def piecewise_constant_schedule(
    step: Any, boundaries: Sequence[Any], values: Sequence[Any], name: str | None = None
) -> Any:
    """TF 1.15's keras PiecewiseConstantDecay at `step`: an exclusive tf.case of
    x <= b0, x > b_last and each b_i < x <= b_i+1 (its default values[0] never taken)."""
    with get_default_graph().name_scope(name or "PiecewiseConstant"):
        bounds = [convert_to_tensor(b) for b in boundaries]
        vals = [convert_to_tensor(v) for v in values]
        x = convert_to_tensor(step)
        for i, b in enumerate(bounds):
            if b.dtype.base_dtype != x.dtype.base_dtype:
                bounds[i] = math_ops.cast(b, x.dtype.base_dtype)
        pairs: list[tuple[Any, Any]] = [
            (x <= bounds[0], lambda: vals[0]),
            (x > bounds[-1], lambda: vals[-1]),
        ]
        for low, high, v in zip(bounds[:-1], bounds[1:], vals[1:-1]):
            pairs.append(((x > low) & (x <= high), lambda v=v: v))
        return control_flow_ops.case(pairs, lambda: vals[0], exclusive=True)


# ---- TF 1.15's cosine schedules (its keras learning_rate_schedule classes, called at once) ----
# Each opens the name scope `name or "<Default>"` as a plain graph name scope (unique: a
# second call makes "CosineDecay_1"), as TF's name_scope_v2 does.


def cosine_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    alpha: Any = 0.0,
    name: str | None = None,
) -> Tensor:
    """lr * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps)) + alpha)."""
    with get_default_graph().name_scope(name or "CosineDecay"):
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        steps = math_ops.cast(decay_steps, dtype)
        step = math_ops.minimum(math_ops.cast(global_step, dtype), steps)
        fraction = step / steps
        cosine = 0.5 * (1.0 + math_ops.cos(constant(math.pi) * fraction))
        decayed = (1 - alpha) * cosine + alpha
        return math_ops.multiply(lr, decayed)


def cosine_decay_restarts(
    learning_rate: Any,
    global_step: Any,
    first_decay_steps: Any,
    t_mul: Any = 2.0,
    m_mul: Any = 1.0,
    alpha: Any = 0.0,
    name: str | None = None,
) -> Tensor:
    """SGDR: cosine decay restarted after first_decay_steps, then periods t_mul times longer
    each, each restart at m_mul times the previous peak."""
    with get_default_graph().name_scope(name or "SGDRDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        first_steps = math_ops.cast(first_decay_steps, dtype)
        alpha_t = math_ops.cast(alpha, dtype)
        t_mul_t = math_ops.cast(t_mul, dtype)
        m_mul_t = math_ops.cast(m_mul, dtype)
        fraction = math_ops.cast(global_step, dtype) / first_steps

        def restart_and_fraction(geometric: bool) -> tuple[Tensor, Tensor]:
            if geometric:
                # Periods 1, t, t^2...: restart i starts at (1 - t^i) / (1 - t).
                i_restart = math_ops.floor(
                    math_ops.log(1.0 - fraction * (1.0 - t_mul_t)) / math_ops.log(t_mul_t)
                )
                sum_r = (1.0 - t_mul_t**i_restart) / (1.0 - t_mul_t)
                return i_restart, (fraction - sum_r) / t_mul_t**i_restart
            i_restart = math_ops.floor(fraction)
            return i_restart, fraction - i_restart

        i_restart, in_period = control_flow_ops.cond(
            math_ops.equal(t_mul_t, 1.0),
            lambda: restart_and_fraction(False),
            lambda: restart_and_fraction(True),
        )
        m_fac = m_mul_t**i_restart
        cosine = 0.5 * m_fac * (1.0 + math_ops.cos(constant(math.pi) * in_period))
        decayed = (1 - alpha_t) * cosine + alpha_t
        return math_ops.multiply(lr, decayed, name=scope)


def _linear_cosine(
    default: str,
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    num_periods: Any,
    alpha: Any,
    beta: Any,
    noise: tuple[Any, Any] | None,
    name: str | None,
) -> Tensor:
    with get_default_graph().name_scope(name or default) as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        steps = math_ops.cast(decay_steps, dtype)
        if noise is not None:
            initial_variance = math_ops.cast(noise[0], dtype)
            variance_decay = math_ops.cast(noise[1], dtype)
        periods = math_ops.cast(num_periods, dtype)
        alpha_t = math_ops.cast(alpha, dtype)
        beta_t = math_ops.cast(beta, dtype)
        step = math_ops.minimum(math_ops.cast(global_step, dtype), steps)
        linear = (steps - step) / steps
        if noise is not None:
            variance = initial_variance / math_ops.pow(1.0 + step, variance_decay)
            std = math_ops.sqrt(variance)
            linear = linear + random_ops.random_normal(linear.shape, stddev=std)
        completed = step / steps
        fraction = 2.0 * periods * completed
        cosine = 0.5 * (1.0 + math_ops.cos(constant(math.pi) * fraction))
        decayed = (alpha_t + linear) * cosine + beta_t
        return math_ops.multiply(lr, decayed, name=scope)


def linear_cosine_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    num_periods: Any = 0.5,
    alpha: Any = 0.0,
    beta: Any = 0.001,
    name: str | None = None,
) -> Tensor:
    """lr * ((alpha + linear) * cosine + beta), linear = (decay_steps - step) / decay_steps,
    cosine = 0.5 * (1 + cos(pi * 2 * num_periods * step / decay_steps)), step capped."""
    return _linear_cosine(
        "LinearCosineDecay",
        learning_rate,
        global_step,
        decay_steps,
        num_periods,
        alpha,
        beta,
        None,
        name,
    )


def noisy_linear_cosine_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    initial_variance: Any = 1.0,
    variance_decay: Any = 0.55,
    num_periods: Any = 0.5,
    alpha: Any = 0.0,
    beta: Any = 0.001,
    name: str | None = None,
) -> Tensor:
    """linear_cosine_decay with normal noise of variance
    initial_variance / (1 + step) ** variance_decay added to its linear part."""
    return _linear_cosine(
        "NoisyLinearCosineDecay",
        learning_rate,
        global_step,
        decay_steps,
        num_periods,
        alpha,
        beta,
        (initial_variance, variance_decay),
        name,
    )


piecewise_constant_decay = piecewise_constant

__all__ = [
    "cosine_decay",
    "cosine_decay_restarts",
    "linear_cosine_decay",
    "noisy_linear_cosine_decay",
    "piecewise_constant_decay",
    "exponential_decay",
    "inverse_time_decay",
    "natural_exp_decay",
    "piecewise_constant",
    "polynomial_decay",
]
