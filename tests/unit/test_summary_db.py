"""CreateSummaryDbWriter: the summary ops write TF 1.15's SQLite schema and rows, as TF 1.15
wrote them for the same programs (tests/tf_reference/record_summary_db.py)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
import tfcluster as tf
from PIL import Image
from tf_reference import reference
from tf_reference.summary_db_cases import CASES, dump, float_rows
from tfcluster.protos import node_def_pb2

AREA = "summary_db"


_PNG = bytes.fromhex("89504e470d0a1a0a")


def _pixels(hex_string: str) -> object:
    """A PNG as its pixels (TF's zlib settings differ from tfcluster's encoder's)."""
    data = bytes.fromhex(hex_string)
    if not data.startswith(_PNG):
        return hex_string
    with Image.open(io.BytesIO(data)) as im:
        return [im.mode, im.size, np.asarray(im).tolist()]


def _graphs(dumped: dict) -> list:
    """Graph rows with their NodeDefs parsed (TF's C++ writes a NodeDef's attrs in hash
    order)."""
    out = []
    for run, gd, nodes, inputs in dumped["graphs"]:
        parsed = [[*n[:4], node_def_pb2.NodeDef.FromString(bytes.fromhex(n[4]))] for n in nodes]
        out.append([run, gd, parsed, inputs])
    return out


def _without_floats(dumped: dict) -> dict:
    out = dict(dumped)
    out["tensors"] = [
        [*row[:5], None if row[3] in (1, 2) else row[5], [_pixels(s) for s in row[6]], row[7]]
        for row in dumped["tensors"]
    ]
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_database_matches_tf(name: str, tmp_path: Path) -> None:
    path = str(tmp_path / "summaries.sqlite")
    CASES[name](tf, path)
    got = dump(path)
    want = reference.case(AREA, name)["dump"]
    for key in want:
        if key not in ("tensors", "graphs"):
            assert got[key] == want[key], key
    assert _graphs(got) == _graphs(want)
    assert _without_floats(got)["tensors"] == _without_floats(want)["tensors"]
    got_floats = float_rows(got)
    want_floats = float_rows(want)
    assert [t for t, _ in got_floats] == [t for t, _ in want_floats]
    for (tag, g), (_, w) in zip(got_floats, want_floats):
        np.testing.assert_allclose(g, w, rtol=1e-6, err_msg=tag)


def test_unwritable_database_is_an_error(tmp_path: Path) -> None:
    with tf.Graph().as_default():
        w = tf.raw_ops.SummaryWriter(shared_name="bad_db", container="")
        init = tf.raw_ops.CreateSummaryDbWriter(
            writer=w,
            db_uri=str(tmp_path / "missing" / "dir" / "x.sqlite"),
            experiment_name="e",
            run_name="r",
            user_name="u",
        )
        with tf.Session() as sess:
            with pytest.raises(tf.errors.OpError):
                sess.run(init)
            # The session keeps working.
            assert sess.run(tf.constant(1)) == 1
