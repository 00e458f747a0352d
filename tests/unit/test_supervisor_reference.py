"""Supervisor, Scaffold, session creators, MonitoredSession and the hooks against TensorFlow:
every program of tf_reference/supervisor_cases.py runs on tfcluster and must give what
TensorFlow 1.15 gave (files in the log directory, events and their steps, checkpoint names,
the ops the helpers add, values, hook log lines, ProfilerHook's timeline structure, error
classes and messages), and what TensorFlow 2.x's tf.compat.v1 gave where it behaves as 1.15
does."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.codec import decode, encode
from tf_reference.supervisor_cases import CASES

# Where TF 2.x's compat.v1 is not TF 1.15 (tfcluster follows 1.15).
TF2_DIFFERS = {
    "profiler_hook_writes_chrome_trace_timelines": "2.x's CPU allocator is named 'mklcpu'",
    "summary_iterator_reads_event_files": "2.x words the truncated-record error otherwise",
}

# Ops made under control_dependencies keep the block's control inputs here even when an input
# made in the block already orders them (TF leaves those out: its variable reads alias the
# buffer, this runtime's do not; see framework/graph.py). TF's control inputs must all be
# there; more are allowed in these cases (timeline labels list them as extra inputs).
EXTRA_CONTROL_INPUTS = {
    "control_dependencies_skip_dominated_inputs",
    "profiler_hook_writes_chrome_trace_timelines",
}


def _with_extra_control_inputs(got: Any, want: Any, path: str) -> bool:
    """Where `got` is TF's list of control inputs (or of timeline argument names) plus more."""
    if not (isinstance(got, list) and isinstance(want, list)):
        return False
    if not all(isinstance(x, str) for x in [*got, *want]):
        return False
    if path.endswith(".args"):
        return set(want) <= set(got) and all(x.startswith("input") for x in set(got) - set(want))
    return ".inputs." in path and set(want) <= set(got)


def _same(got: Any, want: Any, path: str, extra_ok: bool = False) -> None:
    if extra_ok and _with_extra_control_inputs(got, want, path):
        return
    if isinstance(want, dict) and isinstance(got, dict):
        assert sorted(got) == sorted(want), f"{path}: keys {sorted(got)} != TF's {sorted(want)}"
        for k in want:
            _same(got[k], want[k], f"{path}.{k}", extra_ok)
    elif isinstance(want, list) and isinstance(got, list):
        assert len(got) == len(want), f"{path}: {got!r} != TF's {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{path}[{i}]", extra_ok)
    elif isinstance(want, np.ndarray) or isinstance(got, np.ndarray):
        g, w = np.asarray(got), np.asarray(want)
        assert g.shape == w.shape, f"{path}: shape {g.shape} != TF's {w.shape}"
        assert g.dtype == w.dtype, f"{path}: dtype {g.dtype} != TF's {w.dtype}"
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7, err_msg=path)
        else:
            assert g.tolist() == w.tolist(), f"{path}: {g!r} != TF's {w!r}"
    elif isinstance(want, float) and isinstance(got, float):
        assert got == pytest.approx(want, rel=1e-6), f"{path}: {got} != TF's {want}"
    else:
        assert got == want, f"{path}: {got!r} != TF's {want!r}"


@pytest.fixture(autouse=True)
def _fresh_still_step_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    """StepCounterHook warns of a global step that stands still only the first 5 times in a
    process (TF's log_first_n); TF recorded the cases in a fresh process, and so run they."""
    from tfcluster.training import basic_session_run_hooks

    monkeypatch.setattr(basic_session_run_hooks, "_STILL_STEP_WARNINGS_LEFT", 5)


def _run(name: str) -> Any:
    return decode(encode(CASES[name](tf)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_gives_what_tensorflow_1_15_gives(name: str) -> None:
    want = reference.case("supervisor", name)
    assert "skipped" not in want, want.get("skipped")
    _same(_run(name), want, name, name in EXTRA_CONTROL_INPUTS)


@pytest.mark.parametrize("name", sorted(n for n in CASES if n not in TF2_DIFFERS))
def test_case_gives_what_tensorflow_2_compat_v1_gives(name: str) -> None:
    want = reference.case("supervisor_tf2", name)
    _same(_run(name), want, name, name in EXTRA_CONTROL_INPUTS)
