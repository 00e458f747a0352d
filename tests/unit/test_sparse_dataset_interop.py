"""tf.data pipelines with SparseTensor elements between TF 1.15 and tfcluster (recorded by
tests/tf_reference/record_sparse_dataset_interop.py under TF 1.15).

TF boxes each sparse leaf of an element into one variant tensor (SerializeSparse or
SerializeManySparse going in, DeserializeSparse coming out); tfcluster builds the same ops,
so a SavedModel holding such a pipeline, written by either, loads and runs in the other.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import tfcluster as tf
from support.ports import free_ports
from tf_reference import reference
from tf_reference import sparse_dataset_interop_cases as cases
from tfcluster.protos import saved_model_pb2

AREA = "sparse_dataset_interop"
FILES = os.path.join(reference.DATA_DIR, AREA)
NAMES = sorted(cases.CASES)


@pytest.mark.parametrize("name", NAMES + sorted(cases.RUN_CASES))
def test_pipeline_with_sparse_elements_gives_tfs_values(name: str) -> None:
    want = reference.case(AREA, f"tf/{name}")
    got = cases.built_and_run(tf, name)
    assert got["values"] == want["values"]


@pytest.mark.parametrize("name", NAMES)
def test_sparse_leaves_are_boxed_in_variants_by_tfs_ops(name: str) -> None:
    """The same dataset, iterator and sparse boxing ops as TF's graph, and IteratorGetNext
    hands out a variant for each sparse leaf."""
    want = reference.case(AREA, f"tf/{name}")
    got = cases.built_and_run(tf, name)
    assert got["ops"] == want["ops"]
    assert got["get_next_types"] == want["get_next_types"]


@pytest.mark.parametrize("name", NAMES)
def test_tfs_saved_model_of_the_pipeline_runs_in_tfcluster(name: str) -> None:
    want = reference.case(AREA, f"tf/{name}")
    assert cases.load_and_run(tf, os.path.join(FILES, "tf", name)) == want["values"]


def _graph_form(path: str) -> dict[str, Any]:
    """A SavedModel's graph as op types with their attr names (the Saver's nodes left out:
    a fresh temporary file name each time) and its functions' op types."""
    model = saved_model_pb2.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        model.ParseFromString(f.read())
    (meta,) = model.meta_graphs
    gd = meta.graph_def
    nodes = sorted(
        (nd.op, tuple(sorted(nd.attr))) for nd in gd.node if not nd.name.startswith("save/")
    )
    functions = sorted(tuple(sorted(nd.op for nd in f.node_def)) for f in gd.library.function)
    return {"nodes": nodes, "functions": functions}


@pytest.mark.parametrize("name", NAMES)
def test_tf_runs_tfclusters_saved_model_of_the_pipeline(name: str, tmp_path: Any) -> None:
    """TF 1.15's answers for the committed SavedModels, which tfcluster still writes so."""
    path = str(tmp_path / name)
    cases.save_model(tf, name, path)
    assert _graph_form(path) == _graph_form(os.path.join(FILES, "tfcluster", name))
    tf_ran = reference.case(AREA, f"tfcluster_saved_model/{name}")
    assert tf_ran["values"] == reference.case(AREA, f"tf/{name}")["values"]


@pytest.mark.parametrize("name", NAMES)
def test_tfclusters_saved_model_of_the_pipeline_runs_in_tfcluster(name: str) -> None:
    want = reference.case(AREA, f"tf/{name}")
    assert cases.load_and_run(tf, os.path.join(FILES, "tfcluster", name)) == want["values"]


@pytest.mark.timeout(120)
def test_sparse_elements_of_a_dataset_on_another_task_travel_boxed() -> None:
    """A pipeline on the ps task read by the worker: IteratorGetNext runs on the ps, the
    boxed SparseTensors ([batch, 3] variant tensors) cross to the worker's DeserializeSparse
    as TF sends a variant holding tensors, and the worker reads the local run's values."""
    ports = free_ports(2)
    spec = tf.train.ClusterSpec(
        {"ps": [f"localhost:{ports[0]}"], "worker": [f"localhost:{ports[1]}"]}
    )
    servers = [tf.train.Server(spec, job_name=j, task_index=0) for j in ("ps", "worker")]

    def pipeline(where: str | None) -> list[Any]:
        with tf.Graph().as_default():
            sparse = tf.SparseTensor([[0, 0], [1, 2], [2, 1], [3, 3]], [1.0, 2.0, 3.0, 4.0], [4, 4])
            strings = tf.SparseTensor([[0, 1], [2, 0]], [b"a", b"bc"], [4, 2])
            with tf.device(where and "/job:ps/task:0"):
                ds = tf.data.Dataset.from_tensor_slices((sparse, strings)).batch(3).repeat()
                it = tf.data.make_one_shot_iterator(ds)
            with tf.device(where and "/job:worker/task:0"):
                numbers, words = it.get_next()
                fetches = [tf.sparse.to_dense(numbers), tf.sparse.to_dense(words, b"-")]
            if where:
                devices = {op.type: op.device for op in tf.get_default_graph().get_operations()}
                assert "ps" in devices["IteratorGetNext"]
                assert "worker" in devices["DeserializeSparse"]
            with tf.Session(where or "") as sess:
                return [[v.tolist() for v in sess.run(fetches)] for _ in range(3)]

    try:
        assert pipeline(servers[1].target) == pipeline(None)
    finally:
        for server in servers:
            server.stop()
