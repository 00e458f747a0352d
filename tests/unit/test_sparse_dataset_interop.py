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
from tf_reference import reference
from tf_reference import sparse_dataset_interop_cases as cases
from tfcluster.protos import saved_model_pb2

AREA = "sparse_dataset_interop"
FILES = os.path.join(reference.DATA_DIR, AREA)
NAMES = sorted(cases.CASES)


@pytest.mark.parametrize("name", NAMES)
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
