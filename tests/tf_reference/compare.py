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
    # A gradient TF leaves None (no "grad:" key) must be None here too, not zeros or values.
    extra = sorted(k for k in ours if k.startswith("grad:") and k not in recorded)
    assert not extra, f"{name}: tfcluster has gradients {extra} where TF's are None"
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


# Bad inputs that abort TF 1.15's process (a CHECK failure, recorded as "aborted"): tfcluster
# raises this class instead.
ABORTED_IN_TF = "InvalidArgumentError"


def assert_same_answers(got: Any, recorded: Any, where: str, rtol: float, atol: float) -> None:
    """A recorded program's answers (nested dicts and lists of arrays, error class names,
    plain values) against tfcluster's. {"answers": [...]} records a racy TF program: tfcluster's
    one answer must be one of those TF gave."""
    if isinstance(recorded, dict) and set(recorded) == {"answers"}:
        (answer,) = got["answers"]
        assert any(_same_answers(answer, r, where, rtol, atol) for r in recorded["answers"]), (
            f"{where}: not one of the answers TF gave"
        )
    elif isinstance(recorded, dict):
        assert sorted(got) == sorted(recorded), where
        for k in recorded:
            assert_same_answers(got[k], recorded[k], f"{where}.{k}", rtol, atol)
    elif isinstance(recorded, list) and recorded and isinstance(recorded[0], np.ndarray):
        assert len(got) == len(recorded), where
        for i, (g, r) in enumerate(zip(got, recorded)):
            assert_same_answers(g, r, f"{where}[{i}]", rtol, atol)
    elif isinstance(recorded, np.ndarray):
        reference.assert_close(np.asarray(got), recorded, rtol=rtol, atol=atol)
    elif isinstance(recorded, str) and recorded == "aborted":
        assert got == ABORTED_IN_TF, where
    else:
        assert got == recorded, where


def _same_answers(got: Any, recorded: Any, where: str, rtol: float, atol: float) -> bool:
    try:
        assert_same_answers(got, recorded, where, rtol, atol)
    except AssertionError:
        return False
    return True
