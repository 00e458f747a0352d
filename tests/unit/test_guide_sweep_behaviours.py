"""Behaviours of the TF 1.15 guides and tutorials (tensorflow/docs site/en/r1) against TF
1.15's recorded answers (tests/tf_reference/record_guide_sweep.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.guide_sweep_cases import CASES

AREA = "guide_sweep"


def test_fit_shuffles_validation_samples_and_whole_batches_with_tfs_draws() -> None:
    expected = reference.case(AREA, "fit_validation_draws")
    actual = CASES["fit_validation_draws"](tf)
    for name, want in expected.items():
        # The same number of draws from numpy's generator ...
        assert actual[name]["next_draw"] == want["next_draw"], name
        # ... and the batches in TF's order (float32 sums apart in the last bits).
        same(actual[name]["history"], want["history"], name, rtol=1e-6)


def test_fit_prints_tfs_train_line_and_final_progress_bar_values() -> None:
    expected = reference.case(AREA, "progress_bar_final_lines")
    actual = CASES["progress_bar_final_lines"](tf)
    for name, want in expected.items():
        assert actual[name]["lines"] == want["lines"], name
        same(actual[name]["history"], want["history"], name, rtol=1e-6)


def test_model_to_estimator_rewraps_a_tf_train_optimizer_plain_and_mirrored() -> None:
    expected = reference.case(AREA, "keras_estimator_of_a_tf_optimizer")
    actual = CASES["keras_estimator_of_a_tf_optimizer"](tf)
    same(actual, expected, "estimator", rtol=1e-6)


def test_dataset_and_generator_loops_start_their_metrics_from_zero_after_a_fit() -> None:
    expected = reference.case(AREA, "metrics_start_from_zero")
    actual = CASES["metrics_start_from_zero"](tf)
    assert actual["dataset_fit"]["lines"] == expected["dataset_fit"]["lines"]
    same(actual, expected, "metrics", rtol=1e-6)
