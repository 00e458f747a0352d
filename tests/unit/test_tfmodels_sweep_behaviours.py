"""Float32 roots as TF 1.15's CPU kernels take them (Eigen's fast-math packets), in tf.sqrt,
tf.math.rsqrt and the optimizers' updates, against TF 1.15's recorded bits
(tests/tf_reference/record_tfmodels_sweep.py)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.tfmodels_sweep_cases import CASES
from tfcluster.kernels import _eigen_psqrt

AREA = "tfmodels_sweep"

pytestmark = pytest.mark.skipif(
    _eigen_psqrt.table() is None, reason="no rsqrtps table: roots are numpy's"
)


def _same_bits(name: str) -> None:
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        got = actual[key]
        assert len(got) == len(want), key
        for i, (g, w) in enumerate(zip(got, want)):
            g, w = np.asarray(g), np.asarray(w)  # float32 bit patterns as int32
            assert g.shape == w.shape, f"{key}[{i}]: shape {g.shape} != TF's {w.shape}"
            bad = np.flatnonzero(g != w)
            assert not bad.size, f"{key}[{i}]: {bad.size} values differ from TF's, at {bad[:5]}"


def test_sqrt_and_rsqrt_of_float32_packets_are_eigens_fast_math_roots() -> None:
    _same_bits("float32_roots")


def test_adam_takes_tfs_roots_in_its_shards_for_every_variable_size() -> None:
    _same_bits("adam_updates_by_size")


def test_adam_with_nesterov_takes_the_same_roots() -> None:
    _same_bits("adam_nesterov_raw_op")


def test_rmsprop_adagrad_adadelta_and_proximal_adagrad_updates_take_tfs_roots() -> None:
    _same_bits("optimizer_roots")


def test_keras_adagrad_update_takes_tfs_roots() -> None:
    _same_bits("adagrad_v2_raw_op")


def test_table_lookup_actor_critic_trains_to_tfs_bits() -> None:
    _same_bits("table_lookup_actor_critic")


def test_update_checkpoint_state_into_a_missing_directory_fails_as_tfs_atomic_write() -> None:
    expected = reference.case(AREA, "update_checkpoint_state_into_missing_directory")
    assert CASES["update_checkpoint_state_into_missing_directory"](tf) == expected


def test_file_writer_writes_a_tags_metadata_with_its_first_value_only() -> None:
    expected = reference.case(AREA, "file_writer_writes_a_tags_metadata_once")
    assert CASES["file_writer_writes_a_tags_metadata_once"](tf) == expected


def test_gradients_of_reshapes_and_gathers_densify_indexed_slices_without_a_warning() -> None:
    expected = reference.case(AREA, "indexed_slices_memory_warnings")
    assert CASES["indexed_slices_memory_warnings"](tf) == expected


def test_closing_a_session_cancels_another_threads_blocked_enqueue_and_dequeue() -> None:
    expected = reference.case(AREA, "close_session_with_blocked_queue_ops")
    assert CASES["close_session_with_blocked_queue_ops"](tf) == expected
