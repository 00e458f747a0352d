"""float32 tanh and sigmoid as TF 1.15's CPU kernels round them (Eigen's rational functions,
packets of 8 and a scalar tail), against tests/tf_reference/record_eigen_activations.py."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.eigen_activation_cases import CASES, activation_inputs, digest
from tfcluster.kernels import _eigen_activations

AREA = "eigen_activations"
FUNCTIONS = {"tanh": _eigen_activations.tanh, "sigmoid": _eigen_activations.sigmoid}


def _float32(raw: bytes) -> np.ndarray:
    return np.frombuffer(raw, np.float32)


def _assert_same_bits(got: np.ndarray, want: np.ndarray) -> None:
    got = np.ascontiguousarray(got, np.float32).reshape(-1)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


@pytest.fixture(scope="module")
def values() -> dict[str, bytes]:
    return reference.case(AREA, "tanh_and_sigmoid_values")  # type: ignore[no-any-return]


def test_the_recorded_inputs_are_the_cases_inputs(values: dict[str, bytes]) -> None:
    _assert_same_bits(activation_inputs(), _float32(values["inputs"]))


@pytest.mark.parametrize("fn", ["tanh", "sigmoid"])
def test_tanh_and_sigmoid_give_tfs_bits_over_every_range_and_special_value(
    values: dict[str, bytes], fn: str
) -> None:
    # 20003 values: random over several ranges, the clamps, tiny values where products flush,
    # subnormals, huge values, signed zeros, infinities and NaN, the last 3 on the scalar path.
    x = _float32(values["inputs"])
    _assert_same_bits(FUNCTIONS[fn](x), _float32(values[fn]))


@pytest.mark.parametrize("fn", ["tanh", "sigmoid"])
@pytest.mark.parametrize("n", range(1, 18))
def test_short_tensors_give_tfs_bits(values: dict[str, bytes], fn: str, n: int) -> None:
    # Every tail length; through tf.tanh / tf.sigmoid where the kernels give TF's bits.
    x = _float32(values["inputs"])
    for key, part in ((f"{fn}_{n}", x[:n]), (f"{fn}_edges_{n}", x[20 : 20 + n])):
        _assert_same_bits(FUNCTIONS[fn](part), _float32(values[key]))
        if n > _eigen_activations.EXACT_UP_TO:
            continue
        with tf.Graph().as_default(), tf.Session() as sess:
            op = tf.tanh if fn == "tanh" else tf.sigmoid
            got = sess.run(op(tf.placeholder_with_default(part, [n])))
        _assert_same_bits(got, _float32(values[key]))


@pytest.mark.parametrize("shape", ["64x256", "3201x1027"])
def test_large_tensors_give_tfs_bits(shape: str) -> None:
    want = reference.case(AREA, "large_tensors")[shape]
    rng = np.random.RandomState(7)
    for drawn in ((64, 256), (3201, 1027)):
        x = (rng.randn(*drawn) * 4).astype(np.float32)
        if f"{drawn[0]}x{drawn[1]}" == shape:
            break
    assert digest(x) == want["inputs"]
    assert digest(_eigen_activations.tanh(x)) == want["tanh"]
    assert digest(_eigen_activations.sigmoid(x)) == want["sigmoid"]


def test_lstm_and_gru_block_cells_of_a_batch_of_one_give_tfs_bits() -> None:
    # Gates of up to EXACT_UP_TO values: TF's activations; every output bit is TF's.
    want = reference.case(AREA, "block_cells")
    got = CASES["block_cells"](tf)
    assert sorted(got) == sorted(want)
    for key in ("1x5x8", "1x6x7"):
        for name, outputs in want[key].items():
            assert len(got[key][name]) == len(outputs)
            for i, (g, w) in enumerate(zip(got[key][name], outputs, strict=True)):
                assert g == w, f"{key} {name} output {i}"


def test_block_cells_with_larger_gates_are_within_ulps_of_tfs() -> None:
    # Gates above EXACT_UP_TO values keep numpy's functions, a few ulps from TF's.
    want = reference.case(AREA, "block_cells")
    got = CASES["block_cells"](tf)
    for key in ("4x5x8", "3x6x7"):
        for name, outputs in want[key].items():
            for g, w in zip(got[key][name], outputs, strict=True):
                np.testing.assert_allclose(_float32(g), _float32(w), rtol=1e-6, atol=1e-7)


def test_large_float32_tensors_keep_numpys_functions_in_the_kernels() -> None:
    # Above EXACT_UP_TO values the kernels keep numpy's tanh (TF's bits cost ~24 passes).
    x = np.linspace(-5, 5, _eigen_activations.EXACT_UP_TO + 1, dtype=np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.tanh(tf.placeholder_with_default(x, x.shape)))
    np.testing.assert_array_equal(got, np.tanh(x))
