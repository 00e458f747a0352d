"""tf.layers against TensorFlow 1.15: every program of tf_reference/layers_cases.py runs on
tfcluster and must give what TensorFlow gave: the ops it makes (names and types), variables
(names, shapes, dtypes) and collections, layer names and scopes, losses and UPDATE_OPS,
outputs, gradients, moving statistics after the updates, and error classes.

One difference is by design: a `training` tensor builds tfcluster's functional cond (one If
node named `.../cond` and an Identity named as TF's Merge, `.../cond_2/Merge`, for each result)
where TF 1.15 builds Switch/Merge nodes under `.../cond/`; op lists are compared without those
nodes (UPDATE_OPS, TF's Merges, by name as they are). TF 1.15's CPU kernels cannot run
channels-first convolutions, pools and fused batch norms: those cases compare their graphs
with TF's and their values with the channels-last graphs here (test_layers.py)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.codec import decode, encode
from tf_reference.layers_cases import CASES

_COND = re.compile(r"(^|/)cond(_\d+)?(/|$)")
# Keras's backend asks for the GPUs before a channels-first transposed convolution, and on TF
# 1.15 that makes its session and IsVariableInitialized/init nodes in the layer's scope.
_KERAS_DEVICE_PROBE = re.compile(r"/(IsVariableInitialized(_\d+)?|init)$")
# tf.layers' Keras-style variables are resource variables in TF (VarHandleOp, ReadVariableOp
# ...); tfcluster makes reference variables (README, Limits): names and values compared only.
_RESOURCE_VARIABLE_CASES = {"keras_style_layers"}


def _without_cond(ops: list[list[str]]) -> list[list[str]]:
    return [o for o in ops if not _COND.search(o[0]) and not _KERAS_DEVICE_PROBE.search(o[0])]


def _same(got: Any, want: Any, path: str) -> None:
    if isinstance(want, dict) and "error" in want and isinstance(got, dict):
        assert got.get("error") == want["error"], f"{path}: {got} != TF's {want}"
        return
    if isinstance(want, dict) and isinstance(got, dict):
        assert sorted(got) == sorted(want), f"{path}: keys {sorted(got)} != TF's {sorted(want)}"
        for k in want:
            _same(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list) and isinstance(got, list):
        assert len(got) == len(want), f"{path}: {got!r} != TF's {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{path}[{i}]")
    elif isinstance(want, np.ndarray) or isinstance(got, np.ndarray):
        g, w = np.asarray(got), np.asarray(want)
        assert g.shape == w.shape, f"{path}: shape {g.shape} != TF's {w.shape}"
        assert g.dtype == w.dtype, f"{path}: dtype {g.dtype} != TF's {w.dtype}"
        if w.dtype.kind == "f":
            tol = 2e-4 if w.dtype == np.float32 else 1e-9
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=path)
        else:
            np.testing.assert_array_equal(g, w, err_msg=path)
    elif isinstance(want, float) and isinstance(got, float):
        assert got == pytest.approx(want, rel=1e-5), f"{path}: {got} != TF's {want}"
    else:
        assert got == want, f"{path}: {got!r} != TF's {want!r}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_gives_what_tensorflow_gave(name: str) -> None:
    want = reference.case("layers", name)
    assert "skipped" not in want, want.get("skipped")
    got = decode(encode(CASES[name](tf)))
    if name in _RESOURCE_VARIABLE_CASES:
        del want["ops"], got["ops"]
    if "ops" in want:
        want["ops"], got["ops"] = _without_cond(want["ops"]), _without_cond(got["ops"])
    _same(got, want, name)
