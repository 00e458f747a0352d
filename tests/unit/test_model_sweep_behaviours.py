"""Behaviours of public TF1 model code (a GPT-2 style sampler) against TF 1.15's recorded
answers (tests/tf_reference/record_model_sweep.py): static shapes from partly known shapes,
tf.sort's ops, multinomial draws for a seed, softmax's last bits."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.model_sweep_cases import CASES

AREA = "model_sweep"


def _same_as_tf(name: str) -> None:
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    for key in expected:
        assert actual[key] == expected[key], key


def test_shape_of_a_partly_known_shape_sizes_ops_as_unknown_dims() -> None:
    _same_as_tf("partial_shape_scalars")


def test_sort_builds_tfs_ops_and_values() -> None:
    _same_as_tf("sort_ops_and_values")


def test_multinomial_draws_tfs_classes_for_a_seed_over_two_threads() -> None:
    _same_as_tf("multinomial_draws")


def test_softmax_multiplies_by_the_reciprocal_of_the_row_sum() -> None:
    _same_as_tf("softmax_reciprocal_product")


def test_sparse_tensor_times_and_over_a_dense_value() -> None:
    _same_as_tf("sparse_tensor_operators")


def test_shuffle_then_repeat_fuses_only_where_tf_applies_dataset_options() -> None:
    _same_as_tf("shuffle_repeat_by_iterator_kind")


def test_tf_layers_held_by_a_keras_model_make_resource_variables() -> None:
    expected = reference.case(AREA, "legacy_layers_tracked_by_keras")
    actual = CASES["legacy_layers_tracked_by_keras"](tf)
    assert actual["variable_ops"] == expected["variable_ops"]
    # The initial weights (their op seeds follow the resource variables' ops) are TF's.
    for got, want in zip(actual["weights"], expected["weights"], strict=True):
        reference.assert_close(got, want, rtol=1e-6, atol=1e-7)
    for got, want in zip(actual["values"], expected["values"], strict=True):
        reference.assert_close(got, want, rtol=1e-5, atol=1e-6)


def test_keras_sequential_weights_are_resource_variables_with_tfs_seeded_values() -> None:
    expected = reference.case(AREA, "keras_sequential_resource_weights")
    actual = CASES["keras_sequential_resource_weights"](tf)
    for key in ("variable_ops", "variables", "checkpoint"):
        assert actual[key] == expected[key], key
    # Later layers' seeded initial weights count the earlier layers' VarHandleOp ops.
    for got, want in zip(actual["initial_weights"], expected["initial_weights"], strict=True):
        reference.assert_close(got, want, rtol=1e-6, atol=1e-7)
    # Training moves every weight, BatchNormalization's gamma and beta too (their reads sit
    # in a cond on the learning phase).
    for key in ("train_on_batch", "fit_losses", "predictions"):
        reference.assert_close(actual[key], expected[key], rtol=1e-5, atol=1e-6)
    for got, want in zip(actual["trained_weights"], expected["trained_weights"], strict=True):
        reference.assert_close(got, want, rtol=1e-4, atol=1e-5)


def test_gradient_through_a_cond_reaches_a_resource_variable_it_reads() -> None:
    expected = reference.case(AREA, "cond_reads_resource_variable")
    actual = CASES["cond_reads_resource_variable"](tf)
    for key in ("true", "false"):
        for got, want in zip(actual[key], expected[key], strict=True):
            reference.assert_close(got, want, rtol=1e-5, atol=1e-6)


def test_keras_layer_makes_the_learning_phase_after_its_weights() -> None:
    expected = reference.case(AREA, "keras_learning_phase_after_weights")
    actual = CASES["keras_learning_phase_after_weights"](tf)
    assert actual["order"] == expected["order"]
    # The initializers' op seeds are TF's.
    for got, want in zip(actual["weights"], expected["weights"], strict=True):
        reference.assert_close(got, want, rtol=1e-5, atol=1e-6)
    reference.assert_close(actual["output"], expected["output"], rtol=1e-5, atol=1e-6)


def test_keras_metric_state_is_resource_variables_in_no_collection() -> None:
    expected = reference.case(AREA, "keras_metric_weights")
    actual = CASES["keras_metric_weights"](tf)
    for key in ("collections", "variables", "variable_ops"):
        assert actual[key] == expected[key], key
    reference.assert_close(actual["results"], expected["results"], rtol=1e-6, atol=0)
    # A later seeded draw: its op seed counts the metrics' resource-variable ops.
    reference.assert_close(actual["draw"], expected["draw"], rtol=0, atol=0)


def test_estimator_spec_takes_a_keras_metric_as_an_eval_metric_op() -> None:
    expected = reference.case(AREA, "keras_metric_in_estimator")
    actual = CASES["keras_metric_in_estimator"](tf)
    assert sorted(actual) == sorted(expected)
    for key in expected:
        reference.assert_close(actual[key], expected[key], rtol=1e-6, atol=1e-7)


def test_compiled_optimizers_make_tfs_resource_variables_and_step() -> None:
    expected = reference.case(AREA, "keras_optimizer_weights")
    actual = CASES["keras_optimizer_weights"](tf)
    assert actual["variables"] == expected["variables"]
    assert actual["step_ops"] == expected["step_ops"]
    for got, want in zip(actual["losses"], expected["losses"], strict=True):
        reference.assert_close(got, want, rtol=1e-6, atol=1e-7)


def test_rnn_cell_held_by_a_keras_rnn_makes_resource_variables() -> None:
    expected = reference.case(AREA, "rnn_cell_held_by_keras_rnn")
    actual = CASES["rnn_cell_held_by_keras_rnn"](tf)
    assert actual["variable_ops"] == expected["variable_ops"]
    reference.assert_close(actual["output"], expected["output"], rtol=1e-5, atol=1e-6)


def test_sequential_called_before_it_is_built_runs_its_layers_once() -> None:
    expected = reference.case(AREA, "sequential_called_before_built")
    actual = CASES["sequential_called_before_built"](tf)
    assert actual["ops"] == expected["ops"]
    reference.assert_close(actual["output"], expected["output"], rtol=1e-6, atol=1e-7)
