"""The rest of tf.data.experimental and the dataset raw ops without functions against
TensorFlow 1.15 (tests/tf_reference/record_data_rest.py): SqlDataset's conversions and
errors, LMDB databases, statistics summaries, iterator state saved and restored by
tf.train.Saver and CheckpointInputPipelineHook, to_variant / from_variant, and raw ops such
as SlidingWindowDataset read through from_variant."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tensorboardX.proto import summary_pb2
from tf_reference import data_cases, reference
from tf_reference import data_rest_cases as cases

RECORDED = reference.load("data_rest")


def assert_same(actual: Any, expected: Any, where: str = "") -> None:
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and sorted(actual) == sorted(expected), where
        for k in expected:
            assert_same(actual[k], expected[k], f"{where}.{k}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), (where, actual, expected)
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, f"{where}[{i}]")
    elif isinstance(expected, np.ndarray):
        assert np.asarray(actual).dtype == expected.dtype, (where, actual, expected)
        reference.assert_close(actual, expected)
    else:
        assert actual == expected, (where, actual, expected)


@pytest.fixture()
def files(tmp_path: Any) -> dict[str, str]:
    return {"dir": str(tmp_path)}


@pytest.mark.parametrize("case", cases.CASES, ids=lambda c: c.name)
def test_dataset_reads_as_tensorflow_reads_it(case: data_cases.Case, files: dict[str, str]) -> None:
    got = data_cases.run_case(tf, case, files)
    want = RECORDED[case.name]
    for key in ("types", "shapes", "classes"):
        assert (key in got) == (key in want), key
        if key in want:  # (a case read by an initializable iterator has no description)
            assert_same(got[key], want[key], key)
    assert_same(got["elements"], want["elements"], "elements")


@pytest.mark.parametrize("name,build,_", cases.RUN_ERRORS, ids=[c[0] for c in cases.RUN_ERRORS])
def test_bad_input_raises_tensorflows_error_every_read(
    name: str, build: Any, _: int, files: dict[str, str]
) -> None:
    got = data_cases.run_error(tf, build, files)
    want = RECORDED[f"error_{name}"]
    assert got["error"] == want["error"]
    assert_same(got["before"], want["before"], "before")
    assert_same(got["after"], want["after"], "after")


@pytest.mark.parametrize("name,build", cases.INIT_ERRORS, ids=[c[0] for c in cases.INIT_ERRORS])
def test_bad_thread_pool_fails_the_initializer_as_in_tensorflow(
    name: str, build: Any, files: dict[str, str]
) -> None:
    got = cases.run_init_error(tf, build, files)
    assert got == RECORDED[f"init_error_{name}"]["errors"]


@pytest.mark.parametrize("prefix", ["", "pre"])
def test_stats_aggregator_summary_has_tensorflows_histograms(prefix: str) -> None:
    got = cases.run_stats(tf, prefix, summary_pb2.Summary)
    want = RECORDED[f"stats_prefix_{prefix or 'none'}"]
    # TF 1.15's default options (a Const, OptimizeDataset and ModelDataset) included.
    assert got["ops"] == want["ops"]
    assert got["empty_values"] == want["empty_values"] == 0
    assert got["summary_dtype"] == want["summary_dtype"]
    assert_same(got["elements"], want["elements"], "elements")
    assert_same(got["values"], want["values"], "values")


def test_one_shot_iterator_refuses_a_dataset_with_an_aggregator() -> None:
    want = RECORDED["stats_one_shot_error"]["error_class"]
    assert cases.one_shot_with_aggregator_error(tf) == want == "ValueError"


def test_stats_summary_is_written_by_a_file_writer(tmp_path: Any) -> None:
    """The aggregator's summary goes through tf.summary.FileWriter like any other."""
    with tf.Graph().as_default():
        aggregator = tf.data.experimental.StatsAggregator()
        options = tf.data.Options()
        options.experimental_stats.aggregator = aggregator
        ds = tf.data.Dataset.range(4).apply(tf.data.experimental.bytes_produced_stats("size"))
        it = tf.data.make_initializable_iterator(ds.with_options(options))
        nxt = it.get_next()
        with tf.Session() as sess, tf.summary.FileWriter(str(tmp_path)) as writer:
            sess.run(it.initializer)
            for _ in range(4):
                sess.run(nxt)
            writer.add_summary(sess.run(aggregator.get_summary()), 1)
    events = list(tf.train.summary_iterator(str(next(tmp_path.iterdir()))))
    tags = [v.tag for e in events for v in e.summary.value]
    assert tags == ["size"]
    histo = next(v.histo for e in events for v in e.summary.value)
    assert (histo.num, histo.sum) == (4.0, 32.0)


@pytest.mark.parametrize("pipeline", list(cases.SAVE_PIPELINES))
@pytest.mark.parametrize("one_shot", [False, True], ids=["initializable", "one_shot"])
def test_saver_restores_the_iterator_at_the_saved_element(
    pipeline: str, one_shot: bool, tmp_path: Any
) -> None:
    got = cases.run_saveable(tf, pipeline, one_shot, str(tmp_path))
    want = RECORDED[f"saveable_{pipeline}_{'one_shot' if one_shot else 'initializable'}"]
    assert got["saveable"] == want["saveable"]
    assert got["keys"] == want["keys"]
    assert got.get("uninitialized_restore") == want.get("uninitialized_restore")
    # After a restore the iterator goes on from the element after the saved position.
    assert_same(got["restored"], got["after_save"], "restored")
    if pipeline == "mapped":
        for key in ("before", "after_save", "restored"):
            assert_same(got[key], want[key], key)
    else:
        # A seeded shuffle: TF's Philox order is not reproduced; TF restores at the saved
        # element too, and the batches hold the pipeline's values.
        assert_same(want["restored"], want["after_save"], "TF's restored")
        values = np.concatenate([*got["before"], *got["after_save"]])
        assert len(set(values.tolist())) == len(values)
        assert set(values.tolist()) <= set(range(0, 200, 10))


def test_input_pipeline_hook_resumes_training_at_the_next_element(tmp_path: Any) -> None:
    got = cases.run_input_pipeline_hook(tf, str(tmp_path))
    want = RECORDED["input_pipeline_hook"]
    assert got["seen_after_first"] == want["seen_after_first"] == 1 + 2 + 3
    assert got["seen_after_second"] == want["seen_after_second"] == sum(range(1, 6))
    assert got["input_files"] == want["input_files"]


def test_restoring_a_state_tfcluster_did_not_write_is_invalid_argument() -> None:
    with tf.Graph().as_default():
        it = tf.data.make_initializable_iterator(tf.data.Dataset.range(3))
        saveable = tf.data.experimental.make_saveable_from_iterator(it)
        restore = saveable.restore([tf.constant(b"not a state")], None)
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError, match="iterator state"):
                sess.run(restore)
            assert sess.run(nxt) == 0  # the session and the iterator go on


def test_iterator_raw_ops_run_as_in_tensorflow(tmp_path: Any) -> None:
    got = cases.run_iterator_ops(tf, str(tmp_path))
    want = RECORDED["iterator_ops"]
    want = dict(want)
    # Byte for byte TF's Summary proto (sizes are exact; no latencies here); a V2
    # aggregator's summary is empty in TF 1.15 (it writes to a summary writer instead).
    for handle in ("ExperimentalStatsAggregatorHandle", "StatsAggregatorHandleV2"):
        key = f"raw_stats_summary_{handle}"
        assert got.pop(key)[()] == want.pop(key)[()]
    assert_same(got, want)


def test_restoring_another_pipelines_state_is_invalid_argument() -> None:
    with tf.Graph().as_default():
        ints = tf.data.make_initializable_iterator(tf.data.Dataset.range(3))
        words = tf.data.make_initializable_iterator(tf.data.Dataset.from_tensors(b"w"))
        saved = tf.data.experimental.make_saveable_from_iterator(ints).specs[0].tensor
        restore = tf.data.experimental.make_saveable_from_iterator(words).restore([saved], None)
        with tf.Session() as sess:
            sess.run([ints.initializer, words.initializer])
            with pytest.raises(tf.errors.InvalidArgumentError, match="component types"):
                sess.run(restore)
