"""tf.random.experimental (TF 1.15): Generator, a random number generator whose state is a
variable (so draws continue across steps and the state can be saved and restored), and the
global generator. Philox only, with TF's streams: a generator made from a seed gives the
numbers TF 1.15's gives."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.ops import array_ops, math_ops, parameterized_random_ops
from tfcluster.ops import stateful_random_ops as ops
from tfcluster.ops.variables import Variable

RNG_ALG_PHILOX = ops.RNG_ALG_PHILOX
RNG_ALG_THREEFRY = ops.RNG_ALG_THREEFRY
_STATE_SIZES = {RNG_ALG_PHILOX: 3, RNG_ALG_THREEFRY: 2}
_MASK64 = (1 << 64) - 1


def _state_size(alg: int) -> int:
    if alg not in _STATE_SIZES:
        raise ValueError(f"Unsupported algorithm id: {alg}")
    return _STATE_SIZES[alg]


def _as_int64(n: int) -> int:
    return n - (1 << 64) if n > 2**63 - 1 else n


def create_rng_state(seed: Any, algorithm: int) -> np.ndarray:
    """The state a seed gives: an int split into 64-bit words (least significant first),
    or a list of words, right-aligned and zero-padded to the algorithm's state size."""
    size = _state_size(algorithm)
    if isinstance(seed, int):
        words = []
        for _ in range(size):
            words.append(seed & _MASK64)
            seed >>= 64
        seed = words
    state = np.asarray([_as_int64(int(s)) for s in seed], dtype=np.int64)
    if state.ndim != 1:
        raise ValueError(f"seed should only have one dimension; got shape: {state.shape}")
    state = state[:size]
    if state.shape[0] < size:
        state = np.pad(state, [(size - state.shape[0], 0)], mode="constant")
    return state


def _state_tensor(value: Any) -> Tensor:
    if isinstance(value, list):
        value = [_as_int64(int(v)) for v in value]
    return convert_to_tensor(value, dtype=dtypes.int64)


def _shape_tensor(shape: Any) -> Tensor:
    dtype = dtypes.int64 if isinstance(shape, (tuple, list)) and not shape else None
    return convert_to_tensor(shape, dtype=dtype, name="shape")


class Generator:
    def __init__(self, copy_from: Generator | None = None, state: Any = None, alg: Any = None):
        if copy_from is not None:
            if alg is not None or state is not None:
                raise ValueError("copy_from is given with state or alg")
            self._state_var = Variable(copy_from.state, dtype=dtypes.int64, trainable=False)
            self._alg = copy_from.algorithm
            return
        if alg is None or state is None:
            raise ValueError("Generator needs either copy_from, or both state and alg")
        state = _state_tensor(state)
        state.shape.assert_is_compatible_with([_state_size(alg)])
        self._state_var = Variable(state, dtype=dtypes.int64, trainable=False)
        self._alg = alg

    @classmethod
    def from_state(cls, state: Any, alg: int) -> Generator:
        return cls(alg=alg, state=state)

    @classmethod
    def from_seed(cls, seed: Any, alg: int | None = None) -> Generator:
        alg = RNG_ALG_PHILOX if alg is None else alg
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg: int | None = None) -> Generator:
        alg = RNG_ALG_PHILOX if alg is None else alg
        shape = convert_to_tensor([_state_size(alg)], dtype=dtypes.int32)
        return cls(state=ops.non_deterministic_ints(shape, dtypes.int64), alg=alg)

    @classmethod
    def from_key_counter(cls, key: Any, counter: Any, alg: int) -> Generator:
        return cls(state=_key_counter_state(key, counter, alg), alg=alg)

    # reset*/skip add their op and return nothing, as TF 1.15 (in graph mode nothing runs
    # that op unless the program finds it in the graph).
    def reset(self, state: Any) -> None:
        state = _state_tensor(state)
        state.shape.assert_is_compatible_with([_state_size(self.algorithm)])
        self._state_var.assign(state)

    def reset_from_seed(self, seed: Any) -> None:
        self._state_var.assign(create_rng_state(seed, self.algorithm))

    def reset_from_key_counter(self, key: Any, counter: Any) -> None:
        self._state_var.assign(_key_counter_state(key, counter, self.algorithm))

    @property
    def state(self) -> Variable:
        return self._state_var

    @property
    def algorithm(self) -> int:
        return self._alg

    @property
    def key(self) -> Any:
        return self._state_var[-1]  # type: ignore[index]

    def skip(self, delta: Any) -> None:
        """Adds an op moving the state on as `delta` outputs of any distribution would."""
        ops.rng_skip(self._state_var, self.algorithm, delta)

    def _draw(
        self, op_type: str, shape: Tensor, dtype: Any, bounds: tuple = (), name: str | None = None
    ) -> Tensor:  # type: ignore[type-arg]
        return ops.stateful_sample(
            op_type, self._state_var, self.algorithm, shape, dtype, bounds, name=name
        )

    def normal(
        self,
        shape: Any,
        mean: Any = 0.0,
        stddev: Any = 1.0,
        dtype: Any = dtypes.float32,
        name: str | None = None,
    ) -> Tensor:
        with name_scope(name, "stateful_normal", [shape, mean, stddev]) as scope:
            shape_t = _shape_tensor(shape)
            mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
            stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
            rnd = self._draw("StatefulStandardNormalV2", shape_t, dtype)
            return math_ops.add(rnd * stddev_t, mean_t, name=scope)

    def truncated_normal(
        self,
        shape: Any,
        mean: Any = 0.0,
        stddev: Any = 1.0,
        dtype: Any = dtypes.float32,
        name: str | None = None,
    ) -> Tensor:
        with name_scope(name, "truncated_normal", [shape, mean, stddev]) as scope:
            shape_t = _shape_tensor(shape)
            mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
            stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
            rnd = self._draw("StatefulTruncatedNormal", shape_t, dtype)
            return math_ops.add(rnd * stddev_t, mean_t, name=scope)

    def uniform(
        self,
        shape: Any,
        minval: Any = 0,
        maxval: Any = None,
        dtype: Any = dtypes.float32,
        name: str | None = None,
    ) -> Tensor:
        dtype = dtypes.as_dtype(dtype)
        if maxval is None:
            if dtype.is_integer:
                raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
            maxval = 1
        with name_scope(name, "stateful_uniform", [shape, minval, maxval]) as scope:
            shape_t = _shape_tensor(shape)
            lo = convert_to_tensor(minval, dtype=dtype, name="min")
            hi = convert_to_tensor(maxval, dtype=dtype, name="max")
            if dtype.is_integer:
                return self._draw("StatefulUniformInt", shape_t, dtype, (lo, hi), name=scope)
            rnd = self._draw("StatefulUniform", shape_t, dtype)
            return math_ops.add(rnd * (hi - lo), lo, name=scope)

    def uniform_full_int(
        self, shape: Any, dtype: Any = dtypes.uint64, name: str | None = None
    ) -> Tensor:
        with name_scope(name, "stateful_uniform_full_int", [shape]) as scope:
            shape_t = _shape_tensor(shape)
            return self._draw("StatefulUniformFullInt", shape_t, dtype, name=scope)

    def binomial(
        self,
        shape: Any,
        counts: Any,
        probs: Any,
        dtype: Any = dtypes.int32,
        name: str | None = None,
    ) -> Tensor:
        """Draws of Binomial(counts[i], probs[i]) for each row i of `shape` (counts and probs
        scalars or vectors over shape[0])."""
        dtype = dtypes.as_dtype(dtype)
        with name_scope(name, "binomial", [shape, counts, probs]) as scope:
            counts_t = convert_to_tensor(counts, name="counts")
            probs_t = convert_to_tensor(probs, name="probs")
            shape_t = _shape_tensor(shape)
            return parameterized_random_ops.stateful_random_binomial(
                self._state_var, self.algorithm, shape_t, counts_t, probs_t, dtype, name=scope
            )

    def make_seeds(self, count: int = 1) -> Tensor:
        """[2, count] seeds for the stateless ops: random keys over zeros."""
        keys = self.uniform_full_int(shape=[count], dtype=dtypes.int64)
        return array_ops.stack([keys, array_ops.zeros_like(keys)])

    def split(self, count: int = 1) -> list[Generator]:
        # TF 1.15 reads the new keys eagerly (keys.numpy()): in graph mode that is an
        # AttributeError there too.
        raise AttributeError(
            "Generator.split reads its new keys eagerly ('Tensor' object has no attribute "
            "'numpy' in graph mode); use make_seeds with the stateless random ops"
        )


def _key_counter_state(key: Any, counter: Any, alg: int) -> Tensor:
    counter_t = _state_tensor(counter)
    key_t = _state_tensor(key)
    counter_t.shape.assert_is_compatible_with([_state_size(alg) - 1])
    key_t.shape.assert_is_compatible_with([])
    return array_ops.concat([counter_t, array_ops.reshape(key_t, [1])], 0)


class _Global:
    generator: Generator | None = None


def get_global_generator() -> Generator:
    if _Global.generator is None:
        _Global.generator = Generator.from_non_deterministic_state()
    return _Global.generator


def set_global_generator(generator: Generator) -> None:
    _Global.generator = generator
