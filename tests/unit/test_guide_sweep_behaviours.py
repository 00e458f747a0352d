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


def test_evaluate_and_predict_print_tfs_progress_bars() -> None:
    expected = reference.case(AREA, "evaluate_and_predict_progress")
    actual = CASES["evaluate_and_predict_progress"](tf)
    for name, want in expected.items():
        assert actual[name]["lines"] == want["lines"], name
    same(actual, expected, "progress", rtol=1e-6)


def test_one_batch_of_arrays_is_fed_in_the_datas_order_as_tfs_loop() -> None:
    expected = reference.case(AREA, "single_batch_fed_in_order")
    # Bit for bit: fed shuffled, the validation loss came out an ulp apart.
    assert CASES["single_batch_fed_in_order"](tf) == expected


def test_weights_checkpoints_build_tfs_cached_save_and_restore_graphs() -> None:
    expected = reference.case(AREA, "weights_checkpoint_graph")
    actual = CASES["weights_checkpoint_graph"](tf)
    for part in ("first_save_ops", "second_save_ops", "load_ops"):
        assert actual[part] == expected[part], part
    # The same op counts: models made later draw TF's numbers; the optimizer's step counter
    # came back from the checkpoint when its first training step made it.
    for part in ("draw_after_checkpointed_fit", "draw_after_new_model"):
        assert actual[part] == expected[part], part
    assert actual["draw_after_restoring_fit"] == expected["draw_after_restoring_fit"]
    assert actual["restored_iterations"] == expected["restored_iterations"]
    assert actual["checkpoint_file"] == expected["checkpoint_file"]
    reference.assert_close(actual["evaluate"], expected["evaluate"])


def test_a_bare_device_type_names_any_device_of_the_type() -> None:
    expected = reference.case(AREA, "bare_device_types")
    assert CASES["bare_device_types"](tf) == expected


def test_histogram_summaries_gamma_at_zero_and_non_finite_values_as_tf() -> None:
    expected = reference.case(AREA, "histogram_summaries")
    # Exactly: the histogram's sums are TF's one-value-at-a-time double sums.
    assert CASES["histogram_summaries"](tf) == expected


def test_complex_products_and_magnitudes_round_as_tfs_eigen_kernels() -> None:
    expected = reference.case(AREA, "complex_products_and_magnitudes")
    # Bit for bit, so the Mandelbrot iteration escapes where TF's does.
    assert CASES["complex_products_and_magnitudes"](tf) == expected


def test_datasets_show_tfs_repr_and_keep_dict_key_order() -> None:
    expected = reference.case(AREA, "dataset_reprs")
    assert CASES["dataset_reprs"](tf) == expected


def test_ragged_operands_dispatch_to_the_element_wise_ops_tf_lists() -> None:
    expected = reference.case(AREA, "ragged_elementwise_dispatch")
    # float32 transcendentals an ulp or so from TF's (numpy's functions), the rest exact.
    same(CASES["ragged_elementwise_dispatch"](tf), expected, "ragged", rtol=1e-6)


def test_keras_weight_regularizers_make_their_ops_when_the_losses_are_read() -> None:
    expected = reference.case(AREA, "keras_weight_regularizers")
    actual = CASES["keras_weight_regularizers"](tf)
    for part in ("draw_after_build", "collection", "regularizer_ops", "draw_after_compile"):
        assert actual[part] == expected[part], part
    same(actual["history"], expected["history"], "history", rtol=1e-6)
