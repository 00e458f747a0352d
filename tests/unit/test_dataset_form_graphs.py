"""MetaGraphs TF 1.15 wrote for tf.data pipelines that use the remaining dataset ops
(ExperimentalGroupByReducerDataset, ParseExampleDataset with TF's variant sparse components
read by DeserializeSparse, AssertNextDataset, ChooseFastestBranchDataset) import and run on
tfcluster, giving the elements (or the error) TF 1.15 recorded
(tests/tf_reference/record_dataset_form_graphs.py); datasets' GraphDefs (DatasetToGraph)
cross both ways and run by DatasetFromGraph; SnapshotDataset's files cross both ways."""

from __future__ import annotations

import os
from typing import Any

import pytest
import tfcluster as tf
from support.tf115_graph_check import graph_def_problems
from tf_reference import reference
from tf_reference.dataset_form_ops_cases import DATASET_GRAPHS, snapshot_input
from tf_reference.iterator_steps import run_to_end
from tfcluster.protos import graph_pb2

AREA = "dataset_form_graphs"
FILES = os.path.join(reference.DATA_DIR, AREA)


def _names() -> list[str]:
    return sorted(n[: -len(".meta")] for n in os.listdir(FILES) if n.endswith(".meta"))


def _run(name: str, spec: dict[str, Any]) -> tuple[list[list[Any]], list[str] | str, set[str]]:
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(os.path.join(FILES, f"{name}.meta"))
        op_types = {op.type for op in g.get_operations()}
        init = g.get_operation_by_name(spec["init"])
        fetch = [g.get_tensor_by_name(n) for n in spec["fetch"]]
        with tf.Session() as sess:
            steps, error = run_to_end(tf, sess, init, fetch)
    return steps, error, op_types


@pytest.mark.parametrize("name", _names())
def test_pipeline_graph_tf_wrote_runs_as_in_tf(name: str) -> None:
    spec = reference.case(AREA, name)
    steps, error, op_types = _run(name, spec)
    assert op_types == set(spec["op_types"])
    assert error == spec["error"]
    assert len(steps) == len(spec["steps"])
    for got_step, want_step in zip(steps, spec["steps"]):
        assert len(got_step) == len(want_step)
        for got, want in zip(got_step, want_step):
            reference.assert_close(got, want)


def test_every_recorded_pipeline_has_its_graph() -> None:
    assert _names() == [
        "assert_next_fails",
        "assert_next_passes",
        "choose_fastest_branch",
        "group_by_reducer",
        "parse_example_dataset",
    ]


# ---- DatasetToGraph / DatasetFromGraph -------------------------------------------------------
def _from_graph(data: bytes, structure: Any) -> list[Any]:
    """The elements of the dataset a GraphDef computes (DatasetFromGraph), in the current
    graph; `structure` is a dataset with the same element types and shapes."""
    fed = tf.placeholder(tf.string, [])
    made = tf.raw_ops.DatasetFromGraph(graph_def=fed)
    types = [structure.output_types]
    shapes = [structure.output_shapes]
    handle = tf.raw_ops.IteratorV2(
        shared_name="", container="", output_types=types, output_shapes=shapes
    )
    init = tf.raw_ops.MakeIterator(dataset=made, iterator=handle)
    (nxt,) = tf.raw_ops.IteratorGetNext(iterator=handle, output_types=types, output_shapes=shapes)
    out = []
    with tf.Session() as sess:
        sess.run(init, {fed: data})
        while True:
            try:
                out.append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                return out


def _assert_elements(got: list[Any], want: list[Any]) -> None:
    assert len(got) == len(want)
    for a, b in zip(got, want):
        reference.assert_close(a, b[0] if isinstance(b, list) else b)


@pytest.mark.parametrize("name", sorted(DATASET_GRAPHS))
def test_dataset_graph_tf_wrote_runs_by_dataset_from_graph(name: str) -> None:
    with open(os.path.join(FILES, f"{name}.dataset_graph"), "rb") as f:
        data = f.read()
    with tf.Graph().as_default():
        got = _from_graph(data, DATASET_GRAPHS[name](tf))
    _assert_elements(got, reference.case(AREA, f"dataset_graph/{name}")["elements"])


@pytest.mark.parametrize("name", sorted(DATASET_GRAPHS))
def test_dataset_to_graph_round_trips_through_dataset_from_graph(name: str) -> None:
    with tf.Graph().as_default():
        dataset = DATASET_GRAPHS[name](tf)
        graph = tf.raw_ops.DatasetToGraph(input_dataset=dataset._variant_tensor)
        with tf.Session() as sess:
            data = sess.run(graph)
        got = _from_graph(data, dataset)
    _assert_elements(got, reference.case(AREA, f"dataset_graph/{name}")["elements"])


@pytest.mark.parametrize("name", sorted(DATASET_GRAPHS))
def test_tf_ran_the_dataset_graph_tfcluster_wrote(name: str) -> None:
    ran = reference.case(AREA, f"tfcluster_dataset_graph/{name}")["elements"]
    _assert_elements([r[0] for r in ran], reference.case(AREA, f"dataset_graph/{name}")["elements"])


def test_dataset_graph_as_written_is_a_graph_def_returning_the_dataset() -> None:
    with tf.Graph().as_default():
        dataset = DATASET_GRAPHS["mapped_batches"](tf)
        graph = tf.raw_ops.DatasetToGraph(input_dataset=dataset._variant_tensor)
        with tf.Session() as sess:
            gd = graph_pb2.GraphDef.FromString(sess.run(graph))
    ret = [nd for nd in gd.node if nd.op == "_Retval"]
    assert [nd.name for nd in ret] == ["dataset"]
    assert {nd.op for nd in gd.node} >= {"RangeDataset", "MapDataset", "BatchDatasetV2"}
    assert len(gd.library.function) >= 1
    # _Retval is a system op of TF's runtime (TF's own dataset graphs end in one too).
    assert [p for p in graph_def_problems(gd) if "_Retval" not in p] == []


def test_dataset_from_graph_rejects_bytes_that_are_no_graph_and_the_session_goes_on() -> None:
    with tf.Graph().as_default():
        fed = tf.placeholder(tf.string, [])
        made = tf.raw_ops.DatasetFromGraph(graph_def=fed)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse GraphDef"):
                sess.run(made, {fed: b"\xff\xffjunk"})
            with pytest.raises(tf.errors.InvalidArgumentError, match="_Retval"):
                sess.run(made, {fed: graph_pb2.GraphDef().SerializeToString()})
            assert sess.run(tf.constant(2) + 1) == 3


# ---- SnapshotDataset's files -----------------------------------------------------------------
def _snapshot_run(path: str) -> list[list[Any]]:
    """Every element of snapshot_input(tf) through a SnapshotDataset at `path`."""
    with tf.Graph().as_default():
        made = tf.raw_ops.SnapshotDataset(
            input_dataset=tf.data.experimental.to_variant(snapshot_input(tf)),
            path=path,
            output_types=[tf.int64, tf.float32],
            output_shapes=[[], [2]],
        )
        types, shapes = [tf.int64, tf.float32], [[], [2]]
        handle = tf.raw_ops.IteratorV2(
            shared_name="", container="", output_types=types, output_shapes=shapes
        )
        init = tf.raw_ops.MakeIterator(dataset=made, iterator=handle)
        nxt = tf.raw_ops.IteratorGetNext(iterator=handle, output_types=types, output_shapes=shapes)
        out = []
        with tf.Session() as sess:
            sess.run(init)
            while True:
                try:
                    out.append(sess.run(list(nxt)))
                except tf.errors.OutOfRangeError:
                    return out


def _assert_rows(got: list[list[Any]], want: list[list[Any]]) -> None:
    assert len(got) == len(want)
    for g_row, w_row in zip(got, want):
        for a, b in zip(g_row, w_row):
            reference.assert_close(a, b)


def test_tfcluster_reads_the_snapshot_files_tf_wrote(tmp_path: Any) -> None:
    import glob
    import shutil

    path = str(tmp_path)
    first = _snapshot_run(path)  # tfcluster's own finished run of snapshot_input(tf)
    (run,) = glob.glob(os.path.join(path, "*", "*", ""))
    for name in glob.glob(os.path.join(run, "*.snapshot")):
        os.remove(name)
    for name in glob.glob(os.path.join(FILES, "tf_snapshot", "*", "*", "*.snapshot")):
        shutil.copy(name, run)
    # TF's files hold snapshot_input(tf, scale=100): read back, not computed anew.
    _assert_rows(_snapshot_run(path), reference.case(AREA, "tf_snapshot")["elements"])
    assert first[1][0] == 7


def test_tf_read_the_snapshot_files_tfcluster_wrote() -> None:
    case = reference.case(AREA, "tfcluster_snapshot")
    assert case["files"] == 1
    with tf.Graph().as_default():
        want = [list(e) for e in _elements(snapshot_input(tf, scale=10))]
    _assert_rows(want, case["read"])


def _elements(dataset: Any) -> list[Any]:
    nxt = tf.data.make_one_shot_iterator(dataset).get_next()
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                return out


def test_snapshot_left_unfinished_is_not_read_and_the_input_is_computed(tmp_path: Any) -> None:
    with tf.Graph().as_default():
        source = tf.data.Dataset.range(4)
        made = tf.raw_ops.SnapshotDataset(
            input_dataset=tf.data.experimental.to_variant(source),
            path=str(tmp_path),
            output_types=[tf.int64],
            output_shapes=[[]],
        )
        handle = tf.raw_ops.IteratorV2(
            shared_name="", container="", output_types=[tf.int64], output_shapes=[[]]
        )
        init = tf.raw_ops.MakeIterator(dataset=made, iterator=handle)
        (nxt,) = tf.raw_ops.IteratorGetNext(
            iterator=handle, output_types=[tf.int64], output_shapes=[[]]
        )
        with tf.Session() as sess:
            sess.run(init)
            assert sess.run(nxt) == 0  # the writer stops after one element
            sess.run(init)  # a pending run: the input passes through
            assert [sess.run(nxt) for _ in range(4)] == [0, 1, 2, 3]
