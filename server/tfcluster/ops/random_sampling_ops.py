"""Random sampling beyond uniform/normal (tf.multinomial, tf.random.categorical,
tf.random_gamma, tf.random_poisson) and the stateless ops (tf.random.stateless_*), with TF
1.15's op types, attrs and node names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, math_ops
from tfcluster.ops.array_ops import _partial_values
from tfcluster.ops.infer_util import check_dtype, shape_list, static_int, with_rank
from tfcluster.ops.op_util import FLOATS, Outputs, make_op
from tfcluster.ops.random_ops import _seeds, _shape_tensor


def _shape_from(t: Tensor) -> list[int | None] | None:
    dims = _partial_values(t)
    return None if dims is None else [None if d is None or d < 0 else d for d in dims]


def _multinomial_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    logits, num = inputs[0], inputs[1]
    dims = shape_list(with_rank(logits.shape, 2, "logits"))
    with_rank(num.shape, 0, "num_samples")
    batch = dims[0] if dims is not None else None
    return [(attrs.get("output_dtype", dtypes.int64), TensorShape([batch, static_int(num)]))]


def _sample_shape_infer(param_index: int, dtype_attr: str) -> Any:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        dims = _shape_from(inputs[0])
        param = shape_list(inputs[param_index].shape)
        dtype = attrs[dtype_attr] if dtype_attr in attrs else inputs[param_index].dtype.base_dtype
        if dims is None or param is None:
            return [(dtype, TensorShape(None))]
        return [(dtype, TensorShape(dims + param))]

    return infer


def _stateless_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    with_rank(inputs[1].shape, 1, "seed")
    dims = _shape_from(inputs[0])
    return [(attrs["dtype"], TensorShape(dims))]


op_def_registry.register("Multinomial", _multinomial_infer, stateful=True)
op_def_registry.register("StatelessMultinomial", _multinomial_infer)
op_def_registry.register("RandomGamma", _sample_shape_infer(1, "T"), stateful=True)
op_def_registry.register(
    "RandomGammaGrad", lambda inputs, attrs: [(inputs[0].dtype.base_dtype, inputs[1].shape)]
)
op_def_registry.register("RandomPoisson", _sample_shape_infer(1, "dtype"), stateful=True)
op_def_registry.register("RandomPoissonV2", _sample_shape_infer(1, "dtype"), stateful=True)
for _op in (
    "StatelessRandomUniform",
    "StatelessRandomNormal",
    "StatelessTruncatedNormal",
    "StatelessRandomUniformInt",
):
    op_def_registry.register(_op, _stateless_infer)


def _categorical(logits: Any, num_samples: Any, dtype: Any, seed: int | None) -> Tensor:
    t = convert_to_tensor(logits, name="logits")
    check_dtype(t, (*FLOATS, dtypes.int32, dtypes.int64), "Multinomial", "logits")
    seed1, seed2 = _seeds(seed)
    out = dtypes.as_dtype(dtype or dtypes.int64).base_dtype
    attrs = {"seed": seed1, "seed2": seed2, "T": t.dtype.base_dtype, "output_dtype": out}
    # num_samples is converted inside the op's own scope, as TF's generated wrapper does.
    with name_scope("Multinomial") as scope:
        n = convert_to_tensor(num_samples, dtype=dtypes.int32, name="num_samples")
        return make_op("Multinomial", [t, n], attrs, name=scope).outputs[0]


def multinomial(
    logits: Any,
    num_samples: Any,
    seed: int | None = None,
    name: str | None = None,
    output_dtype: Any = None,
) -> Tensor:
    """num_samples class indices per row, drawn from softmax(logits)."""
    with name_scope(name, "multinomial", [logits]):
        return _categorical(logits, num_samples, output_dtype, seed)


def categorical(
    logits: Any,
    num_samples: Any,
    dtype: Any = None,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "categorical", [logits]):
        return _categorical(logits, num_samples, dtype, seed)


def random_gamma(
    shape: Any,
    alpha: Any,
    beta: Any = None,
    dtype: Any = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Gamma(alpha, beta) samples of shape `shape + broadcast(alpha, beta).shape`."""
    dt = dtypes.as_dtype(dtype).base_dtype
    if dt not in FLOATS:
        raise ValueError(f"Invalid dtype {dt!r} for random_gamma: expected a floating point type")
    with name_scope(name, "random_gamma", [shape, alpha, beta]):
        shape_t = convert_to_tensor(shape, name="shape", dtype=dtypes.int32)
        alpha_t = convert_to_tensor(alpha, name="alpha", dtype=dt)
        beta_t = convert_to_tensor(1 if beta is None else beta, name="beta", dtype=dt)
        alpha_broadcast = alpha_t + array_ops.zeros_like(beta_t)
        seed1, seed2 = _seeds(seed)
        attrs = {"seed": seed1, "seed2": seed2, "S": shape_t.dtype.base_dtype, "T": dt}
        sample = make_op("RandomGamma", [shape_t, alpha_broadcast], attrs, name="RandomGamma")
        # A numpy scalar of the sample's dtype, as TF passes it (a Python float would make
        # Maximum's first input float32).
        tiny = np.finfo(dt.as_numpy_dtype).tiny
        return math_ops.maximum(tiny, sample.outputs[0] / beta_t)


def random_gamma_grad(alpha: Tensor, sample: Tensor) -> Tensor:
    attrs = {"T": alpha.dtype.base_dtype}
    return make_op("RandomGammaGrad", [alpha, sample], attrs, name="RandomGammaGrad").outputs[0]


def random_poisson(
    lam: Any,
    shape: Any,
    dtype: Any = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Poisson(lam) samples of shape `shape + lam.shape`."""
    with name_scope(name, "random_poisson", [lam, shape]):
        shape_t = convert_to_tensor(shape, name="shape", dtype=dtypes.int32)
        # The seed is taken before lam is converted (the op seed counts the ops made so
        # far); a lam that is no tensor becomes the op's input "rate" inside the op's own
        # scope, float64 unless it cannot be (the R attr's default), as TF's op_def_library
        # converts it.
        seed1, seed2 = _seeds(seed)
        with name_scope("RandomPoissonV2") as scope:
            rate = convert_to_tensor(lam, name="rate", preferred_dtype=dtypes.float64)
        attrs = {
            "seed": seed1,
            "seed2": seed2,
            "S": shape_t.dtype.base_dtype,
            "R": rate.dtype.base_dtype,
            "dtype": dtypes.as_dtype(dtype).base_dtype,
        }
        return make_op("RandomPoissonV2", [shape_t, rate], attrs, name=scope).outputs[0]


# ---- stateless ------------------------------------------------------------------------------
def _seed_tensor(seed: Any) -> Tensor:
    t = convert_to_tensor(seed, name="seed", preferred_dtype=dtypes.int64)
    if t.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"seed must be int32 or int64, got {t.dtype.base_dtype.name}")
    return t


def _stateless(
    op_type: str, shape_t: Tensor, seed: Any, dtype: dtypes.DType, extra: list[Tensor]
) -> Tensor:
    seed_t = _seed_tensor(seed)
    attrs = {"dtype": dtype, "T": shape_t.dtype.base_dtype, "Tseed": seed_t.dtype.base_dtype}
    return make_op(op_type, [shape_t, seed_t, *extra], attrs, name=op_type).outputs[0]


def stateless_random_uniform(
    shape: Any,
    seed: Any,
    minval: Any = 0,
    maxval: Any = None,
    dtype: Any = dtypes.float32,
    name: str | None = None,
) -> Tensor:
    """Uniform values determined by `seed` alone (TF's Philox stream: TF's very numbers)."""
    dt = dtypes.as_dtype(dtype).base_dtype
    if dt not in (*FLOATS, dtypes.int32, dtypes.int64):
        raise ValueError(f"Invalid dtype {dt!r}")
    if maxval is None:
        if dt.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dt!r}")
        maxval = 1
    with name_scope(name, "stateless_random_uniform", [shape, seed, minval, maxval]) as scope:
        shape_t = _shape_tensor(shape)
        lo = convert_to_tensor(minval, dtype=dt, name="min")
        hi = convert_to_tensor(maxval, dtype=dt, name="max")
        if dt.is_integer:
            seed_t = _seed_tensor(seed)
            attrs = {"dtype": dt, "T": shape_t.dtype.base_dtype, "Tseed": seed_t.dtype.base_dtype}
            return make_op(
                "StatelessRandomUniformInt", [shape_t, seed_t, lo, hi], attrs, name=scope
            ).outputs[0]
        rnd = _stateless("StatelessRandomUniform", shape_t, seed, dt, [])
        return math_ops.add(rnd * (hi - lo), lo, name=scope)


def stateless_random_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dtypes.float32,
    name: str | None = None,
) -> Tensor:
    dt = dtypes.as_dtype(dtype).base_dtype
    with name_scope(name, "stateless_random_normal", [shape, seed, mean, stddev]) as scope:
        shape_t = _shape_tensor(shape)
        mean_t = convert_to_tensor(mean, dtype=dt, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dt, name="stddev")
        rnd = _stateless("StatelessRandomNormal", shape_t, seed, dt, [])
        return math_ops.add(rnd * stddev_t, mean_t, name=scope)


def stateless_truncated_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dtypes.float32,
    name: str | None = None,
) -> Tensor:
    dt = dtypes.as_dtype(dtype).base_dtype
    with name_scope(name, "stateless_truncated_normal", [shape, seed, mean, stddev]) as scope:
        shape_t = _shape_tensor(shape)
        mean_t = convert_to_tensor(mean, dtype=dt, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dt, name="stddev")
        rnd = _stateless("StatelessTruncatedNormal", shape_t, seed, dt, [])
        return math_ops.add(rnd * stddev_t, mean_t, name=scope)


def _stateless_categorical(logits: Any, num_samples: Any, dtype: Any, seed: Any) -> Tensor:
    t = convert_to_tensor(logits, name="logits")
    n = convert_to_tensor(num_samples, dtype=dtypes.int32, name="num_samples")
    seed_t = _seed_tensor(seed)
    attrs = {
        "T": t.dtype.base_dtype,
        "Tseed": seed_t.dtype.base_dtype,
        "output_dtype": dtypes.as_dtype(dtype).base_dtype,
    }
    return make_op(
        "StatelessMultinomial", [t, n, seed_t], attrs, name="StatelessMultinomial"
    ).outputs[0]


def stateless_multinomial(
    logits: Any,
    num_samples: Any,
    seed: Any,
    output_dtype: Any = dtypes.int64,
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "stateless_multinomial", [logits, seed]):
        return _stateless_categorical(logits, num_samples, output_dtype, seed)


def stateless_categorical(
    logits: Any,
    num_samples: Any,
    seed: Any,
    dtype: Any = dtypes.int64,
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "stateless_categorical", [logits, seed]):
        return _stateless_categorical(logits, num_samples, dtype, seed)


__all__ = ["multinomial", "random_gamma", "random_poisson"]
