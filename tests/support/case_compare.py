"""Comparing what a case program returned on tfcluster with what TensorFlow returned for it
(nested dicts and lists of names, values and errors), and making op lists comparable where
the two build tf.cond differently.

TF 1.15's tf.cond is Switch/Merge nodes in the graph, under the cond's name scope; tfcluster's
is one functional If op named as that scope, its branches in functions. `without_cond_bodies`
drops what is inside every cond on either side and names a cond's outputs `<scope>:cond`, so
the ops around conds (and their inputs) still compare one to one.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

_FUNCTIONAL_CONDS = ("If", "StatelessIf")


def assert_same(got: Any, want: Any, path: str, rtol: float = 1e-6, atol: float = 1e-7) -> None:
    if isinstance(want, dict) and isinstance(got, dict):
        assert sorted(got) == sorted(want), f"{path}: keys {sorted(got)} != TF's {sorted(want)}"
        for k in want:
            assert_same(got[k], want[k], f"{path}.{k}", rtol, atol)
    elif isinstance(want, list) and isinstance(got, list):
        assert len(got) == len(want), f"{path}: {got!r} != TF's {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{path}[{i}]", rtol, atol)
    elif isinstance(want, np.ndarray) or isinstance(got, np.ndarray):
        g, w = np.asarray(got), np.asarray(want)
        assert g.shape == w.shape, f"{path}: shape {g.shape} != TF's {w.shape}"
        assert g.dtype == w.dtype, f"{path}: dtype {g.dtype} != TF's {w.dtype}"
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=path)
        else:
            assert g.tolist() == w.tolist(), f"{path}: {g!r} != TF's {w!r}"
    elif isinstance(want, float) and isinstance(got, float):
        assert got == pytest.approx(want, rel=rtol, abs=atol), f"{path}: {got} != TF's {want}"
    else:
        assert got == want, f"{path}: {got!r} != TF's {want!r}"


def _cond_scopes(ops: list[list[Any]]) -> list[str]:
    scopes = set()
    for name, op_type, _ in ops:
        if op_type == "Merge" and "/" in name:
            scopes.add(name.rsplit("/", 1)[0])
        elif op_type in _FUNCTIONAL_CONDS:
            scopes.add(name)
    # Only the outermost: a cond inside another one's branch goes with it.
    return sorted(s for s in scopes if not any(s.startswith(o + "/") for o in scopes))


def _owner(name: str, scopes: list[str]) -> str | None:
    for s in scopes:
        if name == s or name.startswith(s + "/"):
            return s
    return None


def without_cond_bodies(ops: list[list[Any]]) -> list[list[Any]]:
    """The ops outside every cond, inputs from a cond renamed `<scope>:cond` (`^<scope>` for
    control inputs)."""
    scopes = _cond_scopes(ops)
    out = []
    for name, op_type, inputs in ops:
        if _owner(name, scopes) is not None:
            continue
        renamed = []
        for x in inputs:
            control = x.startswith("^")
            node = x[1:] if control else x.rsplit(":", 1)[0]
            owner = _owner(node, scopes)
            if owner is None:
                renamed.append(x)
            else:
                renamed.append("^" + owner if control else owner + ":cond")
        out.append([name, op_type, renamed])
    return out


def assert_same_ops(got: list[list[Any]], want: list[list[Any]], path: str) -> None:
    """The same ops in the same order (names, types, inputs and control inputs), conds
    compared from outside."""
    got_n, want_n = without_cond_bodies(got), without_cond_bodies(want)
    got_names = [o[0] for o in got_n]
    want_names = [o[0] for o in want_n]
    if got_names != want_names:
        missing = [n for n in want_names if n not in got_names]
        extra = [n for n in got_names if n not in want_names]
        raise AssertionError(
            f"{path}: op names differ from TF's; missing {missing[:12]}, extra {extra[:12]}"
        )
    for g, w in zip(got_n, want_n):
        assert g == w, f"{path}: op {g} != TF's {w}"
