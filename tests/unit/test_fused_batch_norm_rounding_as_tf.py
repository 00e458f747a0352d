"""FusedBatchNorm rounded as TF 1.15's CPU kernel rounds it, against its recorded bits
(tests/tf_reference/record_fused_batch_norm_rounding.py): each channel's statistics summed row
after row and multiplied by 1 / rest, the scale factor through Eigen's rsqrt packets; in
training, in inference, its gradients (sums over the rows as ReduceOuterDimensions adds them),
with half inputs, and a batch normalisation layer's outputs and moving statistics over three
steps."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.fused_batch_norm_rounding_cases import CASES

AREA = "fused_batch_norm_rounding"


@pytest.mark.parametrize("name", ["training", "inference", "gradients"])
def test_fused_batch_norm_rounds_as_tfs_cpu_kernel(name: str) -> None:
    actual = CASES[name](tf)
    expected = reference.case(AREA, name)
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        outputs = want if name != "inference" else [want]
        got = actual[key] if name != "inference" else [actual[key]]
        for i, (g, w) in enumerate(zip(got, outputs)):
            _same_bits(g, w, f"{key}[{i}]")


def test_a_batch_normalisation_layer_and_its_moving_statistics_round_as_tf() -> None:
    actual = CASES["layer_updates_moving_statistics"](tf)
    expected = reference.case(AREA, "layer_updates_moving_statistics")
    for what in ("outputs", "weights"):
        for i, (g, w) in enumerate(zip(actual[what], expected[what])):
            _same_bits(g, w, f"{what}[{i}]")


def _same_bits(got: list[object], want: list[object], where: str) -> None:
    """[dtype, shape, bytes as hex] of an array against TF's: equal bits, shown as values."""
    assert got[:2] == want[:2], f"{where}: {got[:2]} != TF's {want[:2]}"
    dtype, shape = np.dtype(str(want[0])), [int(d) for d in want[1]]  # type: ignore[attr-defined]
    np.testing.assert_array_equal(
        np.frombuffer(bytes.fromhex(str(got[2])), dtype).reshape(shape),
        np.frombuffer(bytes.fromhex(str(want[2])), dtype).reshape(shape),
        where,
    )
