"""PNG files written byte for byte as TF 1.15's EncodePng writes them, against its recorded
bytes (tests/tf_reference/record_png_encoding.py): libpng's per-row filter choice, TF's and
libpng's deflate settings and 8192-byte IDAT chunks; 1 to 4 channels, 8 and 16 bits,
compression levels, tiny images; the PNGs of tf.summary.image."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.png_encoding_cases import CASES

AREA = "png_encoding"
_EXPECTED = reference.case(AREA, "encode_png")


@pytest.fixture(scope="module")
def written() -> dict[str, str]:
    return CASES["encode_png"](tf)


@pytest.mark.parametrize("name", sorted(_EXPECTED))
def test_encode_png_writes_tfs_bytes(written: dict[str, str], name: str) -> None:
    assert written[name] == _EXPECTED[name]


def test_image_summaries_hold_the_pngs_tf_writes() -> None:
    assert CASES["image_summaries"](tf) == reference.case(AREA, "image_summaries")
