"""tf.estimator.BoostedTreesClassifier / BoostedTreesRegressor train as TF 1.15's do: on the
fixed dataset of tests/tf_reference/boosted_trees_estimator_cases.py (a float column learned
through quantiles and a bucketized one; center_bias, in-memory training, pre and post pruning,
l1/l2/tree_complexity) every step's loss, the evaluation metrics, the predictions, the
checkpoint's keys and the serialized ensemble are TF's (record_boosted_trees_estimator.py);
a checkpoint TF 1.15 wrote restores here and predicts what TF predicted."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import tfcluster as tf
from tf_reference import boosted_trees_estimator_cases as cases
from tf_reference import reference
from tfcluster.ops import boosted_trees_ops as bt
from tfcluster.protos import boosted_trees_pb2

_AREA = "boosted_trees_estimator"


def _assert_same_message(got: Any, want: Any, where: str) -> None:
    """Same fields, node kinds, ids and thresholds; floats to float32 rounding (TF's exp and
    ours may differ in the last bit, so leaf values can too)."""
    got_fields = {f.name: v for f, v in got.ListFields()}
    want_fields = {f.name: v for f, v in want.ListFields()}
    assert sorted(got_fields) == sorted(want_fields), where
    for name, w in want_fields.items():
        g = got_fields[name]
        here = f"{where}.{name}"
        if hasattr(w, "ListFields"):
            _assert_same_message(g, w, here)
        elif isinstance(w, float):
            assert g == pytest.approx(w, rel=1e-5, abs=1e-6), here
        elif hasattr(w, "__len__") and not isinstance(w, (str, bytes)):
            assert len(g) == len(w), here
            for i, (gi, wi) in enumerate(zip(g, w)):
                if hasattr(wi, "ListFields"):
                    _assert_same_message(gi, wi, f"{here}[{i}]")
                elif isinstance(wi, float):
                    assert gi == pytest.approx(wi, rel=1e-5, abs=1e-6), f"{here}[{i}]"
                else:
                    assert gi == wi, f"{here}[{i}]"
        else:
            assert g == w, here


def _ensemble(data: bytes) -> Any:
    proto = boosted_trees_pb2.TreeEnsemble()
    proto.ParseFromString(data)
    return proto


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_training_matches_tf(name: str) -> None:
    tf.reset_default_graph()
    got = cases.CASES[name](tf)
    want = reference.case(_AREA, name)
    assert sorted(got) == sorted(want)
    assert got["checkpoint_names"] == want["checkpoint_names"]
    assert got["metric_names"] == want["metric_names"]
    assert got["global_step"] == want["global_step"]
    reference.assert_close(got["losses"], want["losses"], rtol=1e-5, atol=1e-6)
    reference.assert_close(got["predictions"], want["predictions"], rtol=1e-5, atol=1e-6)
    reference.assert_close(got["logits"], want["logits"], rtol=1e-5, atol=1e-5)
    for key in want:
        if key.startswith("metric_") and key != "metric_names":
            assert got[key] == pytest.approx(want[key], rel=1e-5, abs=1e-6), key
    _assert_same_message(_ensemble(got["ensemble"]), _ensemble(want["ensemble"]), "ensemble")


def test_tf_checkpoint_restores_and_predicts_what_tf_predicted(tmp_path: Path) -> None:
    src = Path(reference.DATA_DIR) / "boosted_trees_checkpoint"
    model_dir = tmp_path / "model"
    shutil.copytree(src, model_dir)
    tf.reset_default_graph()
    probabilities = cases.predict_from(tf, str(model_dir))
    want = reference.case(_AREA, "tf_checkpoint")["probabilities"]
    reference.assert_close(probabilities, want, rtol=1e-6, atol=1e-7)


def test_ensemble_serializes_to_the_bytes_tf_wrote() -> None:
    """TF's serialized ensembles, loaded and serialized again, are the same bytes."""
    for name in sorted(cases.CASES):
        data = reference.case(_AREA, name)["ensemble"]
        tf.reset_default_graph()
        handle = bt.boosted_trees_ensemble_resource_handle_op(shared_name=f"bytes_{name}")
        create = bt.boosted_trees_create_ensemble(handle, 3, data)
        stamp, serialized = bt.boosted_trees_serialize_ensemble(handle)
        with tf.Session() as sess:
            sess.run(create)
            got_stamp, got = sess.run([stamp, serialized])
        assert got_stamp == 3
        assert got == data, name


def test_feature_importances_are_tfs(tmp_path: Path) -> None:
    """Gain-based importances of TF's trained ensemble, by column, largest first."""
    src = Path(reference.DATA_DIR) / "boosted_trees_checkpoint"
    shutil.copytree(src, tmp_path / "model")
    names, values, normalized = cases.feature_importances(tf, str(tmp_path / "model"))
    want = reference.case(_AREA, "tf_checkpoint")
    assert names == want["importance_names"]
    reference.assert_close(values, want["importances"], rtol=1e-6)
    reference.assert_close(normalized, want["normalized_importances"], rtol=1e-6)


def test_pruning_needs_tree_complexity() -> None:
    tf.reset_default_graph()
    est = tf.estimator.BoostedTreesClassifier(
        feature_columns=cases.columns(tf), n_batches_per_layer=1, pruning_mode="pre"
    )
    with pytest.raises(ValueError, match="tree_complexity must be positive"):
        est.train(cases._input_fn(tf, "class"), steps=1)


def test_explanations_are_tfs(tmp_path: Path) -> None:
    """experimental_predict_with_explanations: each example's bias and directional feature
    contributions (from BoostedTreesExampleDebugOutputs) are TF's, in TF's order."""
    src = Path(reference.DATA_DIR) / "boosted_trees_checkpoint"
    shutil.copytree(src, tmp_path / "model")
    bias, names, values, probabilities = cases.explanations(tf, str(tmp_path / "model"))
    want = reference.case(_AREA, "tf_checkpoint")
    reference.assert_close(bias, want["bias"], rtol=1e-6)
    assert names == want["dfc_names"]
    reference.assert_close(values, want["dfc_values"], rtol=1e-5, atol=1e-7)
    reference.assert_close(probabilities, want["dfc_probabilities"], rtol=1e-6)


def test_explanations_need_center_bias(tmp_path: Path) -> None:
    est = tf.estimator.BoostedTreesClassifier(
        feature_columns=cases.columns(tf), n_batches_per_layer=1, model_dir=str(tmp_path)
    )
    with pytest.raises(ValueError, match="center_bias must be enabled"):
        next(est.experimental_predict_with_explanations(cases._predict_input_fn(tf)))


def test_boosted_trees_estimator_under_public_heads_matches_tf() -> None:
    tf.reset_default_graph()
    got = cases.estimator_with_heads(tf)
    want = reference.case(_AREA, "estimator_with_heads")
    assert sorted(got) == sorted(want)
    for key in want:
        if key.endswith("_names"):
            assert got[key] == want[key], key
        else:
            reference.assert_close(got[key], want[key], rtol=1e-5, atol=1e-6)


def test_saver_keeps_an_ensemble_whose_bytes_end_in_nul(tmp_path: Path) -> None:
    """A bias-only ensemble serializes to bytes ending in 0x00 (an empty TreeMetadata): the
    checkpoint keeps that byte, and the restore gives back the same ensemble."""
    from tfcluster.lib.estimator.boosted_trees_resources import TreeEnsemble

    tf.reset_default_graph()
    ensemble = boosted_trees_pb2.TreeEnsemble()
    ensemble.trees.add().nodes.add().leaf.scalar = 0.25
    ensemble.tree_weights.append(1.0)
    ensemble.tree_metadata.add()
    data = ensemble.SerializeToString()
    assert data.endswith(b"\x00")
    trees = TreeEnsemble("bias_only", serialized_proto=data)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(trees.initializer)
        path = saver.save(sess, str(tmp_path / "model"))
    assert tf.train.load_variable(path, "bias_only:0_serialized") == data
    with tf.Session() as sess:
        saver.restore(sess, path)
        assert sess.run(trees.serialize())[1] == data


def test_export_savedmodel_serves_tfs_trees(tmp_path: Path) -> None:
    """TF 1.15's export_savedmodel (strip_default_attrs given, as TF's HIGGS example does) of
    the TF-trained ensemble: the SavedModel's predict signature gives TF's probabilities."""
    src = Path(reference.DATA_DIR) / "boosted_trees_checkpoint"
    shutil.copytree(src, tmp_path / "model")
    est = cases.classifier_for_checkpoint(tf, str(tmp_path / "model"))

    def serving() -> Any:
        csv = tf.placeholder(dtype=tf.string, shape=[None], name="csv")
        x, z = tf.decode_csv(csv, [[0.0], [0.0]])
        return tf.estimator.export.ServingInputReceiver({"x": x, "z": z}, {"inputs": csv})

    export_dir = est.export_savedmodel(str(tmp_path / "export"), serving, strip_default_attrs=True)
    x, z, _, _ = cases.data()
    rows = [f"{float(a)!r},{float(b)!r}" for a, b in zip(x[:10], z[:10])]
    tf.reset_default_graph()
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], export_dir)
        sig = meta.signature_def["predict"]
        got = sess.run(sig.outputs["probabilities"].name, {sig.inputs["inputs"].name: rows})
    want = reference.case(_AREA, "tf_checkpoint")["probabilities"]
    reference.assert_close(got, want, rtol=1e-6, atol=1e-7)
