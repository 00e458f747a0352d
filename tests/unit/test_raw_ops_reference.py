"""Every tf.raw_ops op that tfcluster's own tests run, called as `tf.raw_ops.<Op>(**kwargs)`
with TF's keyword names and only TF's attrs, against TensorFlow 1.15's results for the same
inputs and attrs (tests/tf_reference/raw_op_examples.json, collected by
collect_raw_op_examples.py, recorded by record_raw_op_examples.py): values, dtypes, shapes,
tensor names, output structure, and error classes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.raw_op_replay import run_example
from tfcluster.api import raw_ops
from tfcluster.framework import op_signatures

EXAMPLES_FILE = Path(__file__).parents[1] / "tf_reference" / "raw_op_examples.json"
EXAMPLES = {e["op"]: e for e in json.loads(EXAMPLES_FILE.read_text())}


def _random(op_type: str) -> bool:
    """Ops drawing from a random stream: TF 1.15's draws are not reproduced bit for bit, so
    their dtypes and shapes are compared, not their values."""
    sig = op_signatures.lookup(op_type)
    assert sig is not None
    names = {a.name for a in sig.attrs}
    return {"seed", "seed2"} <= names or op_type in NONDETERMINISTIC


# Values that are process-local (handles into a session's maps, the clock).
NONDETERMINISTIC = {
    "Timestamp",
    "AddSparseToTensorsMap",
    "AddManySparseToTensorsMap",
    "GetSessionHandle",
    "GetSessionHandleV2",
}
# Where tfcluster knowingly differs from TF 1.15 on these inputs, and why.
KNOWN_DIFFERENCES = {
    "MaxPoolGradGradWithArgmax": "TF 1.15 has no CPU kernel for it; tfcluster computes it",
    "Conv3D": "TF 1.15's CPU kernel refuses dilations above 1; tfcluster computes them",
    "Conv3DBackpropFilterV2": "TF 1.15's CPU kernel refuses dilations above 1; tfcluster "
    "computes them",
    "EncodeJpeg": "another JPEG encoder: other bytes, the same decoded image",
    "EncodePng": "another zlib stream: other bytes, the same decoded image",
}
# Decoders and eigen solvers: (rtol, atol) within which TF's own builds differ.
TOLERANCE: dict[str, tuple[float, float]] = {
    "DecodeJpeg": (0.0, 3.0),
    "DecodeAndCropJpeg": (0.0, 3.0),
    "DecodeImage": (0.0, 3.0),
}
# Eigenvectors are unique up to sign: compared by absolute value.
SIGN_FREE = {("SelfAdjointEigV2", "out:1")}


def test_examples_cover_most_implemented_raw_ops() -> None:
    assert set(EXAMPLES) <= raw_ops.implemented_ops()
    assert len(EXAMPLES) >= 300


@pytest.mark.parametrize("op_type", sorted(set(EXAMPLES) - set(KNOWN_DIFFERENCES)))
def test_raw_op_gives_what_tf_1_15_gives(op_type: str) -> None:
    recorded = reference.case("raw_op_examples", op_type)
    ours = run_example(tf, EXAMPLES[op_type])
    if "tf_aborted" in recorded:
        # TF 1.15 ends the process on these inputs (a failed CHECK): tfcluster answers.
        assert "error" not in ours or isinstance(ours["error"], tf.errors.OpError), ours
        return
    if "error" in recorded:
        assert "error" in ours, f"TF raised {recorded['error']}, tfcluster returned values"
        want = reference.error_class(recorded["error"])
        assert (type(ours["error"]).__name__, ours["stage"]) == (want, recorded["stage"]), ours[
            "error"
        ]
        return
    if "error" in ours:
        raise AssertionError(f"tfcluster raised while {ours['stage']}ing") from ours["error"]
    assert sorted(ours) == sorted(recorded)
    for key, want in recorded.items():
        got = ours[key]
        if key.startswith("name:"):
            assert got == want, f"{key}: {got!r}, TF's {want!r}"
        elif _random(op_type):
            _same_kind(key, np.asarray(got), np.asarray(want))
        elif (op_type, key) in SIGN_FREE:
            _same_values(key, np.abs(got), np.abs(want), 1e-4, 1e-5)
        else:
            want = np.asarray(want)
            default = (1e-3, 1e-3) if want.dtype == np.float16 else (1e-5, 1e-6)
            rtol, atol = TOLERANCE.get(op_type, default)
            _same_values(key, np.asarray(got), want, rtol, atol)


@pytest.mark.parametrize("op_type", sorted(KNOWN_DIFFERENCES))
def test_known_differences_still_run_on_tfcluster(op_type: str) -> None:
    ours = run_example(tf, EXAMPLES[op_type])
    assert "error" not in ours, ours.get("error")


def _same_kind(key: str, got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape, f"{key}: shape {got.shape} != TF's {want.shape}"
    if want.dtype != object:
        assert got.dtype == want.dtype, f"{key}: dtype {got.dtype} != TF's {want.dtype}"


def _same_values(key: str, got: Any, want: Any, rtol: float, atol: float) -> None:
    _same_kind(key, got, want)
    if want.dtype.kind in "fc" or atol >= 1:
        if want.dtype.kind not in "fc":
            got, want = got.astype(np.float64), want.astype(np.float64)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=key)
    elif want.dtype == object:
        assert got.astype(object).tolist() == want.tolist(), key
    else:
        np.testing.assert_array_equal(got, want, err_msg=key)


@pytest.mark.parametrize("op_type", ["EncodePng", "EncodeJpeg"])
def test_encoded_images_decode_to_tfs(op_type: str) -> None:
    recorded = reference.case("raw_op_examples", op_type)
    ours = run_example(tf, EXAMPLES[op_type])
    with tf.Graph().as_default(), tf.Session() as sess:
        theirs_img, ours_img = sess.run(
            [
                tf.image.decode_image(np.asarray(recorded["out:0"]).item()),
                tf.image.decode_image(ours["out:0"].item()),
            ]
        )
    np.testing.assert_array_equal(ours_img, theirs_img)
