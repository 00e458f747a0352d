"""The stateful random ops draw TensorFlow's own numbers: every program of
tf_reference/random_stream_cases.py runs on tfcluster and must give what TensorFlow 1.15
gave (normal, truncated normal, uniform floats and ints, shuffles, dropout masks and
initializers; each run continuing the stream, a new session replaying it; op seeds derived
from the op count where only the graph seed is set)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.random_stream_cases import CASES

# Box-Muller goes through logf/sincosf: glibc's (TF's) and numpy's float results can be an
# ulp or two apart; integers, shuffles and uniform floats are bit for bit.
_FLOAT_RTOL = {np.float16: 1e-3, np.float32: 1e-6, np.float64: 1e-12}


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_draws_tensorflows_numbers(name: str) -> None:
    want = reference.case("random_streams", name)
    got = CASES[name](tf)
    assert sorted(got) == sorted(want)
    for key, expected in want.items():
        expected = np.asarray(expected)
        actual = np.asarray(got[key])
        assert actual.dtype == expected.dtype, key
        assert actual.shape == expected.shape, key
        if expected.dtype.kind == "f":
            rtol = _FLOAT_RTOL[expected.dtype.type]
            np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * 1e-1, err_msg=key)
        else:
            assert actual.tolist() == expected.tolist(), key


def test_uniform_floats_are_bit_for_bit() -> None:
    want = reference.case("random_streams", "explicit_op_seeds")
    got = CASES["explicit_op_seeds"](tf)
    for key in [k for k in want if k.startswith("uniform")]:
        assert np.asarray(got[key]).tobytes() == np.asarray(want[key]).tobytes(), key


def test_each_run_continues_the_stream_and_a_new_session_replays_it() -> None:
    got = CASES["explicit_op_seeds"](tf)
    assert not np.array_equal(got["normal_s0_r0"], got["normal_s0_r1"])
    np.testing.assert_array_equal(got["normal_s0_r0"], got["normal_s1_r0"])
    np.testing.assert_array_equal(got["shuffle_s0_r1"], got["shuffle_s1_r1"])
    assert sorted(got["shuffle_s0_r0"].tolist()) == list(range(10))


def test_get_seed_truncates_and_moves_zero_seeds_as_tensorflow() -> None:
    with tf.Graph().as_default():
        tf.set_random_seed(2**40 + 5)
        assert tf.get_seed(2**33 + 1) == ((2**40 + 5) % (2**31 - 1), (2**33 + 1) % (2**31 - 1))
        tf.set_random_seed(0)
        assert tf.get_seed(0) == (0, 2**31 - 1)
        tf.set_random_seed(None)
        assert tf.get_seed(None) == (None, None)
        assert tf.get_seed(4) == (87654321, 4)


def test_unseeded_ops_differ_between_sessions() -> None:
    with tf.Graph().as_default():
        x = tf.random_uniform([8])
        with tf.Session() as a, tf.Session() as b:
            assert not np.array_equal(a.run(x), b.run(x))


def test_small_draws_take_the_same_philox_words_as_large_ones() -> None:
    from tfcluster.kernels import _philox

    rng = np.random.default_rng(0)
    counters = rng.integers(0, 2**32, size=(5, 4), dtype=np.uint64).astype(np.uint32)
    key = (0x12345678, 0x9ABCDEF0)
    # 5 rows go through Python integers, 20 rows (the same 5 four times) through numpy.
    small = _philox.philox(counters, key)
    large = _philox.philox(np.concatenate([counters] * 4), key)
    assert small.dtype == np.uint32 and small.shape == (5, 4)
    np.testing.assert_array_equal(large, np.concatenate([small] * 4))


@pytest.mark.parametrize("rows", [9, 300, 4096])
def test_numpy_philox_rounds_give_the_python_integer_rounds_words(rows: int) -> None:
    from tfcluster.kernels import _philox

    rng = np.random.default_rng(rows)
    counters = rng.integers(0, 2**32, size=(rows, 4), dtype=np.uint64).astype(np.uint32)
    counters[0] = 0xFFFFFFFF  # every word at its largest
    for key in [(0, 0), (0xFFFFFFFF, 0xFFFFFFFF), (0x6C078965, 0x2545F491)]:
        got = _philox.philox(counters, key)
        assert got.dtype == np.uint32 and got.shape == (rows, 4)
        np.testing.assert_array_equal(got, _philox._philox_small(counters, key))


def test_a_philox_stream_gives_the_same_words_however_it_is_read() -> None:
    from tfcluster.kernels import _philox
    from tfcluster.kernels._philox_stream import PhiloxStream

    start = _philox.stateful_start(87654321, 42, 1000)
    whole = _philox.words(start, 2000).reshape(-1)
    # A first read smaller than a refill block, then reads across refills of every size.
    for pieces in ([256, 3, 1, 5000, 1], [1, 1, 1, 4000], [7000], [2, 2048, 2048, 1]):
        stream = PhiloxStream(start)
        got = np.concatenate([stream.words(n) for n in pieces])
        np.testing.assert_array_equal(got, whole[: sum(pieces)])
