"""RunConfig reads TF_CONFIG with TF 1.15's rules, numpy_input_fn batches as TF's does,
and the names tfcluster cannot serve raise TF's errors."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.framework import errors

CLUSTER = {"chief": ["h:1"], "worker": ["h:2", "h:3"], "ps": ["h:4", "h:5"]}


def _config(monkeypatch: Any, task: dict[str, Any] | None, cluster: Any = CLUSTER) -> Any:
    doc: dict[str, Any] = {"cluster": cluster} if cluster else {}
    if task is not None:
        doc["task"] = task
    monkeypatch.setenv("TF_CONFIG", json.dumps(doc))
    return tf.estimator.RunConfig()


def test_run_config_without_tf_config_is_a_local_chief(monkeypatch: Any) -> None:
    monkeypatch.delenv("TF_CONFIG", raising=False)
    c = tf.estimator.RunConfig()
    assert (c.task_type, c.task_id, c.is_chief, c.master) == ("worker", 0, True, "")
    assert (c.num_ps_replicas, c.num_worker_replicas) == (0, 1)
    assert c.save_checkpoints_secs == 600 and c.save_checkpoints_steps is None


def test_run_config_reads_each_task_of_the_cluster(monkeypatch: Any) -> None:
    chief = _config(monkeypatch, {"type": "chief", "index": 0})
    assert chief.is_chief and chief.master == "grpc://h:1"
    assert (chief.num_ps_replicas, chief.num_worker_replicas) == (2, 3)
    assert list(chief.session_config.device_filters) == ["/job:ps", "/job:chief"]
    worker = _config(monkeypatch, {"type": "worker", "index": 1})
    assert not worker.is_chief and worker.master == "grpc://h:3"
    assert worker.global_id_in_cluster == 2
    assert _config(monkeypatch, {"type": "ps", "index": 0}).global_id_in_cluster == 3
    assert list(worker.session_config.device_filters) == ["/job:ps", "/job:worker/task:1"]
    ev = _config(monkeypatch, {"type": "evaluator", "index": 0})
    assert not ev.is_chief and ev.master == "" and ev.num_worker_replicas == 0


def test_run_config_rejects_a_bad_tf_config(monkeypatch: Any) -> None:
    with pytest.raises(ValueError, match="task type must be set"):
        _config(monkeypatch, {"index": 0})
    with pytest.raises(ValueError, match="not a valid task_id"):
        _config(monkeypatch, {"type": "worker", "index": 5})
    with pytest.raises(ValueError, match="evaluator"):
        _config(monkeypatch, {"type": "chief", "index": 0}, {**CLUSTER, "evaluator": ["h:9"]})


def test_run_config_replace_switches_checkpoint_trigger(monkeypatch: Any) -> None:
    monkeypatch.delenv("TF_CONFIG", raising=False)
    c = tf.estimator.RunConfig().replace(save_checkpoints_steps=5)
    assert (c.save_checkpoints_steps, c.save_checkpoints_secs) == (5, None)
    with pytest.raises(ValueError, match="both"):
        tf.estimator.RunConfig(save_checkpoints_steps=5, save_checkpoints_secs=5)


def test_numpy_input_fn_batches_in_order_across_epochs() -> None:
    x = {"a": np.arange(5, dtype=np.float32)}
    y = np.arange(5, dtype=np.int64) * 10
    with tf.Graph().as_default():
        features, labels = tf.estimator.inputs.numpy_input_fn(
            x, y, batch_size=3, num_epochs=2, shuffle=False
        )()
        batches = []
        with tf.train.MonitoredSession() as sess:
            while not sess.should_stop():
                batches.append(sess.run([features["a"], labels]))
    got = np.concatenate([b[0] for b in batches])
    np.testing.assert_array_equal(got, np.concatenate([x["a"], x["a"]]))
    np.testing.assert_array_equal(np.concatenate([b[1] for b in batches]), np.concatenate([y, y]))
    assert [len(b[0]) for b in batches] == [3, 3, 3, 1]


def test_numpy_input_fn_needs_an_explicit_shuffle() -> None:
    with pytest.raises(ValueError, match="shuffle must be provided"):
        tf.estimator.inputs.numpy_input_fn({"a": np.zeros(3)})


def test_pandas_input_fn_names_the_missing_pandas() -> None:
    pytest.importorskip("numpy")
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(errors.UnimplementedError, match="pandas"):
            tf.estimator.inputs.pandas_input_fn(None, shuffle=False)
    else:
        pytest.skip("pandas is installed: pandas_input_fn works")


def test_estimator_rejects_steps_and_max_steps_together(tmp_path: Any) -> None:
    est = tf.estimator.LinearRegressor(
        [tf.feature_column.numeric_column("a")], model_dir=str(tmp_path)
    )
    with pytest.raises(ValueError, match="both steps and max_steps"):
        est.train(lambda: ({"a": tf.constant([[1.0]])}, tf.constant([[1.0]])), steps=1, max_steps=2)


def test_dataset_input_fn_trains_and_export_writes_a_saved_model(tmp_path: Any) -> None:
    def input_fn() -> Any:
        ds = tf.data.Dataset.from_tensor_slices(
            ({"a": np.arange(8, dtype=np.float32)}, np.arange(8, dtype=np.float32) * 2)
        )
        return ds.batch(4)

    col = tf.feature_column.numeric_column("a")
    est = tf.estimator.LinearRegressor([col], model_dir=str(tmp_path / "m"))
    est.train(input_fn)
    assert est.get_variable_value("global_step") == 2
    files = set((tmp_path / "m").iterdir())
    names = {p.name for p in files}
    assert {"checkpoint", "graph.pbtxt", "model.ckpt-2.index"} <= names
    spec = tf.feature_column.make_parse_example_spec([col])
    path = est.export_saved_model(
        str(tmp_path / "export"),
        tf.estimator.export.build_parsing_serving_input_receiver_fn(spec),
    )
    assert (tmp_path / "export" / path.decode().rsplit("/", 1)[1] / "saved_model.pb").exists()
