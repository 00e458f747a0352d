"""The audio feature ops (AudioSpectrogram, Mfcc, AudioSummary), the block RNN cells and the
quantized ops compute what TF 1.15 computes: each program of
tests/tf_reference/quantaudio_cases.py runs here on tfcluster and is compared with TF 1.15's
recorded values, static shapes, dtypes, gradients and error classes (record_quantaudio.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.quantaudio_cases import CASES


def _assert_same(got: Any, recorded: Any, where: str) -> None:
    if isinstance(recorded, dict):
        assert sorted(got) == sorted(recorded), where
        for k in recorded:
            _assert_same(got[k], recorded[k], f"{where}.{k}")
    elif isinstance(recorded, list):
        assert isinstance(got, list) and len(got) == len(recorded), where
        for i, (g, r) in enumerate(zip(got, recorded)):
            _assert_same(g, r, f"{where}[{i}]")
    elif isinstance(recorded, np.ndarray):
        got = np.asarray(got)
        if recorded.dtype.kind == "f":
            # Float outputs to float32's own precision, relative to the tensor's scale.
            scale = float(np.max(np.abs(recorded))) if recorded.size else 1.0
            reference.assert_close(got, recorded, rtol=2e-6, atol=2e-6 * max(scale, 1.0))
        else:
            reference.assert_close(got, recorded)
    elif isinstance(recorded, float):
        assert got == pytest.approx(recorded, rel=1e-6), where
    else:
        assert got == recorded, where


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_computes_what_tf_computed(name: str) -> None:
    tf.reset_default_graph()
    tf.set_random_seed(1)
    _assert_same(CASES[name](tf), reference.case("quantaudio", name), name)
