"""Segment reductions add up in TF 1.15's order and dtype, bit for bit: the segment and
unsorted-segment kernels row by row in the data's dtype (half and bfloat16 rounding every
sum), a one-row sorted segment as its row (a -0 stays -0), the sparse-segment kernels a
head of 2 to 9 rows then eights, their means dividing early or late as TF's kernel does, and
the sparse gradients' scales in double. Each program of
tests/tf_reference/segment_order_cases.py runs here and its bytes are compared with TF
1.15's (record_segment_order.py); a dtype TF's op definition refuses is a TypeError."""

from __future__ import annotations

from typing import Any

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.codec import decode, encode
from tf_reference.segment_order_cases import CASES


@pytest.mark.parametrize("dtype", sorted(CASES))
def test_segment_reductions_give_tfs_bytes(dtype: str) -> None:
    got: dict[str, Any] = decode(encode(CASES[dtype](tf)))
    want = reference.case("segment_order", dtype)
    assert sorted(got) == sorted(want)
    for name, value in want.items():
        assert got[name] == value, f"{dtype} {name}"
