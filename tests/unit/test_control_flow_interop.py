"""MetaGraphs with control flow between TF 1.15 and tfcluster (recorded by
tests/tf_reference/record_control_flow_interop.py under TF 1.15).

TF's files carry TF1's v1 frames (Enter/Exit/Switch/Merge/NextIteration/LoopCond) and the
while_context / cond_context collections: after import_meta_graph tfcluster runs them,
differentiates them and trains through them, with TF's values. tfcluster writes its While
ops as such frames with their contexts (a plain TF 1.15 program cannot differentiate an
imported functional While), and TF 1.15 differentiates and trains its files as its own.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from google.protobuf import text_format
from tf_reference import control_flow_interop_cases as cases
from tf_reference import reference
from tfcluster.framework import v1_loop_lift
from tfcluster.protos import saved_model_pb2

FILES = os.path.join(reference.DATA_DIR, "control_flow_interop")
RECORDED: dict[str, Any] = {
    name: reference.case("control_flow_interop", f"tf/{name}") for name in cases.CASES
}


def _imported_run(path: str, loss_name: str) -> dict[str, Any]:
    g = tf.Graph()
    with g.as_default():
        tf.train.import_meta_graph(path)
        with tf.Session() as sess:
            out: dict[str, Any] = cases.gradients_and_training(tf, g, loss_name, sess)
    return out


def _close(got: Any, want: Any) -> None:
    reference.assert_close(
        np.asarray(got, np.float32), np.asarray(want, np.float32), rtol=1e-4, atol=1e-5
    )


def _assert_matches(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert got["variables"] == want["variables"]
    _close(got["loss"], want["loss"])
    assert len(got["grads"]) == len(want["grads"])
    for g, w in zip(got["grads"], want["grads"]):
        _close(g, w)
    _close(got["losses"], want["losses"])


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_tf_metagraph_with_v1_control_flow_is_differentiated_and_trained_as_in_tf(
    name: str,
) -> None:
    want = RECORDED[name]
    got = _imported_run(os.path.join(FILES, "tf", f"{name}.meta"), want["loss_name"])
    _assert_matches(got, want)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_the_same_program_built_by_tfcluster_computes_tfs_values(name: str) -> None:
    want = RECORDED[name]
    g = tf.Graph()
    with g.as_default():
        loss_name = cases.CASES[name](tf)
        with tf.Session() as sess:
            got = cases.gradients_and_training(tf, g, loss_name, sess)
    _assert_matches(got, want)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_tf_metagraph_exported_again_by_tfcluster_keeps_its_contexts_and_trains_as_in_tf(
    name: str, tmp_path: Any
) -> None:
    """Import TF's file, export it again (its loops written back as TF1's frames with
    fresh contexts, a cond in a loop with its CondContextDefs), import that again: as TF
    round-trips it. TF 1.15's answers for the committed re-export are recorded too."""
    want = RECORDED[name]
    path = str(tmp_path / "again.meta")
    with tf.Graph().as_default():
        tf.train.import_meta_graph(os.path.join(FILES, "tf", f"{name}.meta"))
        exported = tf.train.export_meta_graph(path)
    assert sorted(exported.collection_def) == want["reexported_collections"]
    # Every context names ops the file has (TF would fail to import it otherwise).
    names = {nd.name for nd in exported.graph_def.node}
    for key in ("while_context", "cond_context"):
        if key in exported.collection_def:
            for raw in exported.collection_def[key].bytes_list.value:
                assert v1_loop_lift.context_pivot(key, raw) in names
    _assert_matches(_imported_run(path, want["loss_name"]), want)
    _assert_written_as_committed(exported, f"{name}_reexport.meta")
    _assert_tf_trained(f"tfcluster_reexport/{name}", want)


def _assert_written_as_committed(mgd: Any, filename: str) -> None:
    """The MetaGraph is the committed file TF 1.15's answers were recorded from."""
    with open(os.path.join(FILES, "tfcluster", filename), "rb") as f:
        committed = tf.MetaGraphDef.FromString(f.read())
    for field in ("graph_def", "collection_def"):
        assert _text(getattr(mgd, field)) == _text(getattr(committed, field))


def _assert_tf_trained(key: str, want: dict[str, Any]) -> None:
    """TF 1.15 imported the committed file, differentiated and trained it with these values."""
    recorded = reference.case("control_flow_interop", key)
    assert "error" not in recorded, recorded.get("message")
    _assert_matches(recorded, want)


def _text(message: Any) -> str:
    if hasattr(message, "DESCRIPTOR"):
        return text_format.MessageToString(message)
    return "".join(f"{k}: {_text(v)}" for k, v in sorted(message.items()))


def _written_by_tfcluster(name: str, path: str) -> Any:
    with tf.Graph().as_default():
        cases.CASES[name](tf)
        return tf.train.export_meta_graph(path)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_tfcluster_writes_its_loops_as_tf1_frames_with_their_while_contexts(
    name: str, tmp_path: Any
) -> None:
    """As TF 1.15's tf.while_loop writes them (a plain TF 1.15 program cannot differentiate
    an imported functional While: recorded as tf_v2/while_loop)."""
    mgd = _written_by_tfcluster(name, str(tmp_path / "ours.meta"))
    types = {nd.op for nd in mgd.graph_def.node}
    assert not types & {"While", "StatelessWhile"}
    frames = v1_loop_lift.frames_in(mgd.graph_def)
    listed = set()
    if frames:
        raw = mgd.collection_def["while_context"].bytes_list.value
        listed = v1_loop_lift.while_context_names(raw)
    assert listed == frames
    with open(os.path.join(FILES, "tf", f"{name}.meta"), "rb") as f:
        theirs = tf.MetaGraphDef.FromString(f.read())
    # TF writes one too (and a cond_context for its v1 conds: tfcluster's tf.cond is an If,
    # which TF 1.15 differentiates as it is).
    assert ("while_context" in mgd.collection_def) == ("while_context" in theirs.collection_def)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_tf_differentiates_and_trains_tfclusters_metagraph_as_its_own(
    name: str, tmp_path: Any
) -> None:
    """TF 1.15's answers for the committed files, which tfcluster still writes as they are."""
    mgd = _written_by_tfcluster(name, str(tmp_path / "ours.meta"))
    _assert_written_as_committed(mgd, f"{name}.meta")
    _assert_tf_trained(f"tfcluster/{name}", RECORDED[name])


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_tfclusters_metagraph_imported_by_tfcluster_trains_as_in_tf(name: str) -> None:
    want = RECORDED[name]
    got = _imported_run(os.path.join(FILES, "tfcluster", f"{name}.meta"), want["loss_name"])
    _assert_matches(got, want)


@pytest.mark.parametrize("name", cases.SAVED_MODEL_CASES)
def test_tf_saved_model_with_v1_loops_is_differentiated_and_trained_as_in_tf(name: str) -> None:
    want = reference.case("control_flow_interop", f"tf_saved_model/{name}")
    path = os.path.join(FILES, "tf_saved_model", name)
    _assert_matches(cases.load_and_train(tf, path, RECORDED[name]["loss_name"]), want)
    _assert_matches(want, RECORDED[name])


@pytest.mark.parametrize("name", cases.SAVED_MODEL_CASES)
def test_tf_differentiates_and_trains_tfclusters_saved_model_as_its_own(
    name: str, tmp_path: Any
) -> None:
    """TF 1.15's answers for the committed SavedModels, which tfcluster still writes so."""
    path = str(tmp_path / name)
    cases.save_model(tf, name, path)
    ours, committed = saved_model_pb2.SavedModel(), saved_model_pb2.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        ours.ParseFromString(f.read())
    with open(os.path.join(FILES, "tfcluster_saved_model", name, "saved_model.pb"), "rb") as f:
        committed.ParseFromString(f.read())
    (mine,), (theirs,) = ours.meta_graphs, committed.meta_graphs
    assert "while_context" in mine.collection_def
    assert _text(mine.collection_def) == _text(theirs.collection_def)
    # The graph but the Saver's nodes (a fresh temporary file name each time).
    for gd in (mine.graph_def, theirs.graph_def):
        kept = [nd for nd in gd.node if not nd.name.startswith("save/")]
        del gd.node[:]
        gd.node.extend(kept)
    assert _text(mine.graph_def) == _text(theirs.graph_def)
    recorded = reference.case("control_flow_interop", f"tfcluster_saved_model/{name}")
    assert "error" not in recorded, recorded.get("message")
    _assert_matches(recorded, RECORDED[name])
    _assert_matches(cases.load_and_train(tf, path, RECORDED[name]["loss_name"]), RECORDED[name])
