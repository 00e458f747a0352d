"""Runs a casebook case on tfcluster and compares everything TensorFlow recorded for it."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import tfcluster as tf

from tf_reference import reference
from tf_reference.casebook import Book, run_case


def assert_case_matches(area: str, book: Book, name: str) -> None:
    recorded = reference.case(area, name)
    case = book.cases[name]
    # The very inputs TF saw (recorded), so both sides compute on identical values.
    inputs = {k[3:]: v for k, v in recorded.items() if k.startswith("in:")}
    ours = run_case(tf, dataclasses.replace(case, inputs=inputs or case.inputs))
    if "error" in recorded:
        assert "error" in ours, f"{name}: TF raised {recorded['error']}, tfcluster returned values"
        want = reference.error_class(recorded["error"])
        got = type(ours["error"]).__name__
        assert (got, ours["stage"]) == (want, recorded["stage"]), (
            f"{name}: TF raised {want} while {recorded['stage']}ing; tfcluster raised {got} "
            f"while {ours['stage']}ing: {ours['error']}"
        )
        return
    if "error" in ours:
        raise AssertionError(f"{name}: tfcluster raised while {ours['stage']}ing") from ours[
            "error"
        ]
    if not case.names:
        recorded = {k: v for k, v in recorded.items() if not k.startswith("name:")}
    missing = sorted(set(recorded) - set(ours) - {k for k in recorded if k.startswith("in:")})
    assert not missing, f"{name}: tfcluster has no {missing}"
    for key, want in recorded.items():
        if key.startswith("in:"):
            continue
        got = ours[key]
        if key.startswith("name:"):
            assert got == want, f"{name}: tensor {key[5:]} is named {got!r}, TF names it {want!r}"
        else:
            _assert_values(f"{name} {key}", got, want, case.rtol, case.atol)


def _assert_values(what: str, got: Any, want: Any, rtol: float, atol: float) -> None:
    got, want = np.asarray(got), np.asarray(want)
    if want.dtype == object and got.dtype.kind == "S":
        # The codec stores every bytes array as object: compare the bytes themselves.
        got = got.astype(object)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != TF's {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != TF's {want.dtype}"
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)
