"""Behaviours of public TF1 programs (WaveNet, pix2pix) against TF 1.15's recorded answers
(tests/tf_reference/record_misc_sweep.py): the collections a MetaGraph keeps and the
warning for the ones it leaves out; a trainable given positionally;
tensorflow.python.client.timeline."""

from __future__ import annotations

import importlib
import json

import numpy as np
import tfcluster as tf
from tf_reference import reference
from tf_reference.misc_sweep_cases import CASES

AREA = "misc_sweep"


def test_export_keeps_collections_as_tf_and_warns_for_the_ones_left_out() -> None:
    expected = reference.case(AREA, "collections_export")
    actual = CASES["collections_export"](tf)
    assert actual["kept"] == expected["kept"]  # bools as int64_list, ints after floats as floats
    assert len(actual["warnings"]) == len(expected["warnings"])
    for got, want in zip(actual["warnings"], expected["warnings"]):
        # The last line is the exception's text: Python's for a dict (no .name), protobuf's
        # (its version's wording) for a string among integers.
        got_lines, want_lines = got.split("\n"), want.split("\n")
        assert got_lines[:2] == want_lines[:2]
        if "dict" in want_lines[2]:
            assert got_lines[2] == want_lines[2]
        else:
            assert "'str'" in got_lines[2] or "type str" in got_lines[2]


def test_tensorflow_python_client_timeline_draws_a_traced_step() -> None:
    # WaveNet's train.py: `from tensorflow.python.client import timeline`, then
    # timeline.Timeline(run_metadata.step_stats).generate_chrome_trace_format(show_memory=True).
    timeline = importlib.import_module("tfcluster.python.client.timeline")
    assert timeline is importlib.import_module("tfcluster.client.timeline")
    total = tf.reduce_sum(tf.constant([1.0, 2.0]) * 3.0, name="total")
    meta = tf.RunMetadata()
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    with tf.Session() as sess:
        assert sess.run(total, options=options, run_metadata=meta) == 9.0
    trace = json.loads(timeline.Timeline(meta.step_stats).generate_chrome_trace_format(True))
    names = {e["args"].get("name") for e in trace["traceEvents"] if e.get("ph") == "X"}
    assert "total" in names


def test_variable_keeps_a_trainable_given_positionally_and_its_collections_drop_as_tfs() -> None:
    # WaveNet: tf.Variable(initializer(shape=shape), name) passes the name as `trainable`.
    expected = reference.case(AREA, "variable_trainable_given_positionally")
    assert CASES["variable_trainable_given_positionally"](tf) == expected


def test_reshape_to_packed_sizes_keeps_the_rank_and_transpose_builds_tfs_ops() -> None:
    # GraphSAGE: reshape(ids, [support_size * batch_size]) of a shapeless placeholder is (?,);
    # the transposes after the lookup then take a constant perm, as TF's (op seeds follow).
    expected = reference.case(AREA, "reshape_to_packed_sizes")
    actual = CASES["reshape_to_packed_sizes"](tf)
    assert actual["shapes"] == expected["shapes"]
    assert actual["ops"] == expected["ops"]


def test_fixed_unigram_candidate_sampler_draws_as_tf_for_a_seed() -> None:
    # GraphSAGE's negative samples: TF's alias table read from its Philox stream.
    expected = reference.case(AREA, "fixed_unigram_draws")
    actual = CASES["fixed_unigram_draws"](tf)
    assert sorted(actual) == sorted(expected)
    for key, (sampled, true_count, sampled_count) in expected.items():
        got = actual[key]
        assert got[0] == sampled, key
        np.testing.assert_allclose(got[1], true_count, rtol=1e-6, err_msg=key)
        np.testing.assert_allclose(got[2], sampled_count, rtol=1e-6, err_msg=key)
