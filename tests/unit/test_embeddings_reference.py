"""Embeddings against TensorFlow: every program of tf_reference/embedding_cases.py runs on
tfcluster and must give what TensorFlow 1.15 gave (lookups over 1-3 shards with 'mod' and
'div', max_norm, sparse and safe lookups with each combiner, nce and sampled softmax losses with
fixed samples: values, gradients as IndexedSlices, every op's name and type, the colocation of
each gather with its shard, error classes), and what TF 2.x's tf.compat.v1 gave where it
behaves as 1.15 does.

The candidate samplers draw from numpy's streams, not TF's: their expected counts are checked
exactly against TF's (tfcluster's formulas applied to the candidates TF drew must give TF's
counts), and their draws statistically (histograms of many runs against TF's and against the
exact distributions)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from scipy import stats
from tf_reference import embedding_cases as cases
from tf_reference import reference
from tf_reference.codec import decode, encode
from tfcluster.kernels import _range_samplers as rs

SAMPLER_CASES = {
    "sampler_expected_counts_with_repeats",
    "sampler_expected_counts_unique",
    "sampler_histograms",
}
SAMPLER_NAMES = (
    "fixed_unigram",
    "fixed_unigram_distorted",
    "fixed_unigram_file",
    "fixed_unigram_shard",
    "learned_unigram",
    "log_uniform",
    "uniform",
)
# Where TF 2.x's compat.v1 is not TF 1.15 (tfcluster follows 1.15): case -> why.
TF2_DIFFERS = {
    name: "2.x divides by the summed weights with DivNoNan: an empty row gives 0, not NaN"
    for name in cases.CASES
    if name.startswith(("sparse_mean_weighted", "sparse_sqrtn_weighted", "sparse_max_norm"))
}


# Ops whose names are compared with TF's: the forward graph built by embedding lookups, sparse
# lookups, sampled losses and samplers. Not compared: the ops tf.gradients makes (the gradient
# functions of tf.reduce_sum, binary ops, slices and concats, shared by every area, build
# smaller graphs than TF 1.15's: no BroadcastGradientArgs where shapes are static).
def _compared_ops(ops: list[list[str]]) -> list[list[str]]:
    return [op for op in ops if not op[0].startswith("gradients/")]


def _same(got: Any, want: Any, path: str) -> None:
    if path.endswith(".ops"):
        got, want = _compared_ops(got), _compared_ops(want)
    if isinstance(want, dict) and "error" in want and set(want) <= {"error", "message"}:
        assert isinstance(got, dict) and got.get("error") == want["error"], (
            f"{path}: {got!r} != TF's {want!r}"
        )
    elif isinstance(want, dict) and isinstance(got, dict):
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
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6, err_msg=path)
        else:
            assert g.tolist() == w.tolist(), f"{path}: {g!r} != TF's {w!r}"
    elif isinstance(want, float) and isinstance(got, float):
        assert got == pytest.approx(want, rel=2e-5), f"{path}: {got} != TF's {want}"
    else:
        assert got == want, f"{path}: {got!r} != TF's {want!r}"


def _run(name: str) -> Any:
    return decode(encode(cases.CASES[name](tf)))


DETERMINISTIC = sorted(n for n in cases.CASES if n not in SAMPLER_CASES | cases.TF2_ONLY)


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_case_gives_what_tf_1_15_gives(name: str) -> None:
    want = reference.case("embeddings", name)
    assert "skipped" not in want, want.get("skipped")
    _same(_run(name), want, name)


def _densified(value: Any) -> Any:
    """Gradients as dense arrays: TF 2.x orders the rows of some IndexedSlices otherwise."""
    if isinstance(value, dict) and set(value) == {"values", "indices", "dense_shape"}:
        dense = np.zeros(value["dense_shape"], dtype=value["values"].dtype)
        np.add.at(dense, value["indices"], value["values"])
        return dense
    if isinstance(value, list):
        return [_densified(v) for v in value]
    return value


# TF 2.x's compat.v1 builds other graphs than 1.15 here (sparse_placeholder's shape is a
# PlaceholderWithDefault, the 'mean' combiner divides with DivNoNan, ops come in another
# order): against it, only values, shapes and errors are compared.
TF2_NOT_COMPARED = ("ops", "output_name", "loss_name", "gathers")


@pytest.mark.parametrize(
    "name", sorted(n for n in cases.CASES if n not in SAMPLER_CASES and n not in TF2_DIFFERS)
)
def test_case_gives_what_tf_2_compat_v1_gives(name: str) -> None:
    want = reference.case("embeddings_tf2", name)
    if "skipped" in want:
        pytest.skip(f"TF 2.x could not run it: {want['skipped']}")
    got = _run(name)
    for key in TF2_NOT_COMPARED:
        got.pop(key, None)
        want = {k: v for k, v in want.items() if k != key}
    if "gradients" in want:
        got["gradients"] = _densified(got["gradients"])
        want["gradients"] = _densified(want["gradients"])
    _same(got, want, name)


# ---- the samplers' expected counts: tfcluster's formulas on TF's draws ------------------------
def _sampler_for(name: str, runs_before: int) -> rs.RangeSampler:
    """tfcluster's distribution for each sampler of embedding_cases._samplers, as it stands
    after `runs_before` runs (the learned unigram counts the true classes of each run)."""
    unigrams = cases.UNIGRAMS
    if name == "uniform":
        return rs.UniformSampler(20)
    if name == "log_uniform":
        return rs.LogUniformSampler(20)
    if name == "learned_unigram":
        s = rs.UnigramSampler(20)
        for _ in range(runs_before):
            s.update(cases.TRUE)
        return s
    if name == "fixed_unigram":
        return rs.FixedUnigramSampler(20, unigrams[:20], None, 1.0, 0, 1, 0)
    if name == "fixed_unigram_distorted":
        return rs.FixedUnigramSampler(22, unigrams[2:], None, 0.75, 2, 1, 0)
    if name == "fixed_unigram_shard":
        return rs.FixedUnigramSampler(9, unigrams, None, 0.5, 3, 3, 1)
    if name == "fixed_unigram_file":
        lines = cases.vocab_file_text().splitlines()
        return rs.FixedUnigramSampler(20, None, lines, 0.6, 0, 1, 0)
    raise KeyError(name)


def _true_classes(name: str) -> np.ndarray:
    return cases.TRUE % 7 if name == "fixed_unigram_shard" else cases.TRUE


def _counts_for(sampler: rs.RangeSampler, values: np.ndarray, n: int, tries: int) -> np.ndarray:
    p = sampler.probability(values.reshape(-1)).reshape(values.shape)
    return rs._expected_counts(p, n, tries)


def _ulps_apart(a: np.ndarray, b: np.ndarray, ulps: int = 4) -> bool:
    return bool(np.all(np.abs(a - b) <= ulps * np.spacing(np.maximum(np.abs(a), np.abs(b)))))


def _tries_that_explain(run: dict[str, np.ndarray], sampler: rs.RangeSampler, true: Any) -> int:
    """The number of draws for which tfcluster's formula gives TF's counts (to the last bits
    of float32: numpy's pow/log1p/expm1 and the C library's differ by an ulp or so)."""
    sampled = run["sampled"]
    n = sampled.size
    for tries in range(n, 50 * n):
        if _ulps_apart(
            _counts_for(sampler, sampled, n, tries), run["sampled_expected_count"]
        ) and _ulps_apart(_counts_for(sampler, true, n, tries), run["true_expected_count"]):
            return tries
    raise AssertionError(f"no number of draws gives TF's expected counts {run}")


@pytest.mark.parametrize("unique", [False, True])
def test_expected_counts_are_tfs_formulas(unique: bool) -> None:
    which = "sampler_expected_counts_unique" if unique else "sampler_expected_counts_with_repeats"
    for version in ("embeddings", "embeddings_tf2"):
        recorded = reference.case(version, which)["runs"]
        assert sorted(recorded) == sorted(SAMPLER_NAMES)
        for name, runs in recorded.items():
            for k, run in enumerate(runs):
                sampler = _sampler_for(name, k)
                true = _true_classes(name)
                if unique:
                    assert len(set(run["sampled"].tolist())) == run["sampled"].size
                    _tries_that_explain(run, sampler, true)
                else:
                    n = run["sampled"].size
                    got = _counts_for(sampler, run["sampled"], n, n)
                    assert _ulps_apart(got, run["sampled_expected_count"]), (name, k, got, run)
                    got = _counts_for(sampler, true, n, n)
                    assert _ulps_apart(got, run["true_expected_count"]), (name, k, got, run)


@pytest.mark.parametrize("unique", [False, True])
def test_samplers_give_tfs_shapes_and_their_own_counts(unique: bool) -> None:
    """The kernels' outputs: TF's shapes, dtypes and op names; candidates in range (distinct
    when unique); counts from the formulas above (the learned unigram learning as TF's)."""
    which = "sampler_expected_counts_unique" if unique else "sampler_expected_counts_with_repeats"
    want = reference.case("embeddings", which)
    got = _run(which)
    assert got["shapes"] == want["shapes"]
    assert got["ops"] == want["ops"]
    for name, runs in got["runs"].items():
        for k, run in enumerate(runs):
            tf_run = want["runs"][name][k]
            for key in run:
                assert run[key].dtype == tf_run[key].dtype and run[key].shape == tf_run[key].shape
            sampler = _sampler_for(name, k)
            assert ((run["sampled"] >= 0) & (run["sampled"] < sampler.range_)).all()
            assert (sampler.probability(run["sampled"]) > 0).all()
            if unique:
                assert len(set(run["sampled"].tolist())) == run["sampled"].size
                _tries_that_explain(run, sampler, _true_classes(name))
            else:
                n = run["sampled"].size
                np.testing.assert_array_equal(
                    _counts_for(sampler, run["sampled"], n, n), run["sampled_expected_count"]
                )


@pytest.mark.parametrize("unique", [False, True])
def test_seeded_samplers_draw_tfs_candidates_and_counts(unique: bool) -> None:
    """Seeded, every sampler draws TF 1.15's candidates from TF's Philox stream, run after run
    (the learned unigram picking from its counts as TF's WeightedPicker does, a distorted
    unigram's weights raised by glibc's powf), and gives TF's expected counts bit for bit."""
    which = "sampler_expected_counts_unique" if unique else "sampler_expected_counts_with_repeats"
    want = reference.case("embeddings", which)["runs"]
    got = _run(which)["runs"]
    for name in SAMPLER_NAMES:
        for k, (ours, theirs) in enumerate(zip(got[name], want[name], strict=True)):
            for key in ("sampled", "true_expected_count", "sampled_expected_count"):
                np.testing.assert_array_equal(ours[key], theirs[key], err_msg=f"{name} {k} {key}")


# ---- the samplers' distributions ------------------------------------------------------------
def _exact_probabilities(name: str) -> np.ndarray:
    if name.startswith("log_uniform"):
        return rs.LogUniformSampler(30).probability(np.arange(30)).astype(np.float64)
    if name.startswith("uniform"):
        return np.full(30, 1 / 30)
    if name.startswith("fixed_unigram"):
        w = np.array([0.0, *cases.UNIGRAMS[1:]]) ** 0.8
        w[0] = 0.0
        return w / w.sum()
    raise KeyError(name)


def _chi2_fit(counts: np.ndarray, p: np.ndarray) -> float:
    keep = p > 0
    assert counts[~keep].sum() == 0, "drew a class of probability 0"
    expected = p[keep] / p[keep].sum() * counts.sum()
    return float(stats.chisquare(counts[keep], expected).pvalue)


def _chi2_same(a: np.ndarray, b: np.ndarray) -> float:
    keep = (a + b) > 0
    return float(stats.chi2_contingency(np.stack([a[keep], b[keep]])).pvalue)


def test_draws_follow_tfs_distributions() -> None:
    """Histograms of 400 runs: tfcluster's and TF's counts come from one distribution, and with
    repeats allowed both fit the exact probabilities (seeded: the same figures every run)."""
    got = _run("sampler_histograms")
    for version in ("embeddings", "embeddings_tf2"):
        want = reference.case(version, "sampler_histograms")
        assert sorted(got) == sorted(want)
        for name in want:
            ours, theirs = got[name], want[name]
            assert ours.sum() == theirs.sum(), name
            assert _chi2_same(ours, theirs) > 1e-3, f"{name}: {ours} vs TF's {theirs}"
            if name.endswith("repeats") and not name.startswith("learned"):
                p = _exact_probabilities(name)
                assert _chi2_fit(ours, p) > 1e-3, f"{name}: {ours} vs {p}"
                assert _chi2_fit(theirs, p) > 1e-3, f"TF's {name}: {theirs} vs {p}"
