"""Behaviour of TensorFlow's own TF1 examples that differed on tfcluster, against TF 1.15's
recorded answers (tests/tf_reference/record_tf1_programs.py): candidate samplers draw TF's
values for the same seeds (word2vec_basic's nce_loss then trains as under TF), and an
optimizer's gradient graph has TF's gate_gradients tuples and starting-gradient names."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.tf1_program_cases import CASES

AREA = "tf1_programs"


@pytest.mark.parametrize(
    "name",
    ["log_uniform_unique", "log_uniform_with_repeats", "uniform_with_repeats", "uniform_unique"],
)
def test_candidate_samplers_draw_tfs_values_for_the_same_seeds(name: str) -> None:
    expected = reference.case(AREA, name)["runs"]
    actual = CASES[name](tf)["runs"]
    for got, want in zip(actual, expected, strict=True):
        assert got["sampled"] == want["sampled"]
        # TF's expected counts come from libm's log1pf/expm1f: one ulp apart at times.
        reference.assert_close(got["true_expected"], want["true_expected"], rtol=3e-7, atol=0)
        reference.assert_close(got["sampled_expected"], want["sampled_expected"], rtol=3e-7, atol=0)


def test_nce_loss_trains_as_under_tf() -> None:
    expected = reference.case(AREA, "nce_loss_training")["losses"]
    reference.assert_close(CASES["nce_loss_training"](tf)["losses"], expected, rtol=1e-5)


@pytest.mark.parametrize(
    "name", ["gradient_graph_gate_op", "gradient_graph_gate_none", "tf_tuple_of_tensors"]
)
def test_gradient_graph_has_tfs_gating_and_names(name: str) -> None:
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    for key in expected:
        assert actual[key] == expected[key], key


def test_device_lib_lists_the_local_devices_as_tf_names_them() -> None:
    expected = reference.case(AREA, "local_cpu_devices")
    actual = CASES["local_cpu_devices"](tf)
    assert actual["cpus"] == expected["cpus"]
    assert actual["incarnations_set"]


def test_strided_slice_without_strides_makes_tfs_ops_in_tfs_order() -> None:
    expected = reference.case(AREA, "strided_slice_default_strides")
    actual = CASES["strided_slice_default_strides"](tf)
    assert actual == expected


def test_a_model_built_after_a_conv_nets_training_op_draws_tfs_initial_weights() -> None:
    # The gradients of Mean (TF's reduce-all fast path, its factor's ops) and of Conv2D (one
    # ShapeN) are TF's op for op, so the op seeds of what is built after them are TF's.
    expected = reference.case(AREA, "seeds_after_a_conv_net_gradient")
    actual = CASES["seeds_after_a_conv_net_gradient"](tf)
    assert actual["gradient_ops"] == expected["gradient_ops"]
    assert actual["gradient_shapes"] == expected["gradient_shapes"]
    assert actual["second_is_used"] == expected["second_is_used"]
    reference.assert_close(actual["second_kernel"], expected["second_kernel"], rtol=1e-6)


def test_fetched_float32_scalars_promote_with_python_numbers_as_under_tf_1_15() -> None:
    # `avg_cost += c / total_batch` sums in float64 under TF 1.15's numpy 1.x: same digits.
    expected = reference.case(AREA, "fetched_scalar_arithmetic")
    actual = CASES["fetched_scalar_arithmetic"](tf)
    assert actual == expected


def test_normal_draws_are_tfs_bits_where_glibc_rounds_otherwise() -> None:
    expected = reference.case(AREA, "normal_initial_weights")
    actual = CASES["normal_initial_weights"](tf)
    assert actual["normal_bits"] == expected["normal_bits"]
    assert actual["truncated_bits"] == expected["truncated_bits"]


def test_float32_sums_and_means_add_in_tfs_order() -> None:
    expected = reference.case(AREA, "loss_sums_in_tfs_order")
    actual = CASES["loss_sums_in_tfs_order"](tf)
    for key in expected:
        assert actual[key] == expected[key], key


def test_logf_of_normal_values_needs_no_glibc_call(monkeypatch: pytest.MonkeyPatch) -> None:
    # glibc's logf bits come from its own table and polynomial computed in numpy, at any size:
    # without ctypes' glibc (or past the cap on its calls) the values stay glibc's.
    from tfcluster.kernels import _libm_float

    x = np.linspace(0.01, 0.99, 4096, dtype=np.float32)
    with_glibc = _libm_float.logf(x)
    exact = np.log(x.astype(np.float64)).astype(np.float32)
    assert not np.array_equal(with_glibc, exact)  # glibc rounds some otherwise
    monkeypatch.setattr(_libm_float, "_libm", lambda: None)
    monkeypatch.setattr(_libm_float, "_MAX_GLIBC_CALLS", 0)
    assert np.array_equal(_libm_float.logf(x), with_glibc)


def test_a_broadcast_mismatch_names_the_node_its_op_type_and_input_shapes_as_tf() -> None:
    expected = reference.case(AREA, "broadcast_mismatch_messages")
    assert CASES["broadcast_mismatch_messages"](tf) == {
        "messages": expected["messages"],
        "next_name": expected["next_name"],
    }


@pytest.mark.parametrize(
    "name",
    [
        "zero_fraction_then_seeded_draws",
        "initialized_value_then_seeded_draw",
        "dnn_classifier_seeded_initial_weights",
        "cifar10_distortions_then_seeded_draws",
    ],
)
def test_ops_made_before_a_seeded_initializer_count_as_in_tf(name: str) -> None:
    # zero_fraction's v1 cond, initialized_value's cond and the canned DNN's resource
    # variables all move the op seeds of the draws that follow them.
    expected = dict(reference.case(AREA, name))
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(k for k in expected if k in actual)
    for key, value in actual.items():
        if isinstance(value, dict):
            assert sorted(value) == sorted(expected[key])
            for k in value:
                reference.assert_close(value[k], expected[key][k], rtol=1e-5, atol=1e-6)
        else:
            reference.assert_close(value, expected[key], rtol=1e-5, atol=1e-6)


def test_a_seeded_random_shuffle_queue_hands_elements_out_in_tfs_order() -> None:
    expected = reference.case(AREA, "random_shuffle_queue_order")
    actual = CASES["random_shuffle_queue_order"](tf)
    assert actual == {k: expected[k] for k in actual}


@pytest.mark.parametrize(
    "name", ["seeds_after_broadcasting_gradients", "seeds_after_elementwise_gradients"]
)
def test_broadcasting_gradients_make_tfs_ops_so_later_draws_are_tfs(name: str) -> None:
    # DivNoNan/RealDiv/FloorMod/Maximum/Minimum make their shapes and BroadcastGradientArgs
    # even for known shapes; Mul/Pow/SquaredDifference/Add/Sub over an unknown batch make
    # Shape ops: TF 1.15's op count.
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert actual["gradient_ops"] == expected["gradient_ops"]
    reference.assert_close(actual["gradient"], expected["gradient"], rtol=1e-6)
    assert actual["drawn_after"] == expected["drawn_after"]
