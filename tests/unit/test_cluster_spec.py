"""tf.train.ClusterSpec (TF semantics), the --cluster_spec flag syntax and TF_CONFIG."""

from __future__ import annotations

import json

import pytest
import tfcluster as tf
from tfcluster.distributed.cluster_spec import (
    parse_cluster_flag,
    parse_tf_config,
)
from tfcluster.protos import cluster_pb2
from tfcluster.task_server.server_def import make_server_def


def test_dense_jobs_from_lists_of_addresses() -> None:
    spec = tf.train.ClusterSpec(
        {
            "worker": [
                "worker0.example.com:2222",
                "worker1.example.com:2222",
                "worker2.example.com:2222",
            ],
            "ps": ["ps0.example.com:2222", "ps1.example.com:2222"],
        }
    )
    assert spec.jobs == ["worker", "ps"]
    assert spec.num_tasks("worker") == 3
    assert spec.task_indices("ps") == [0, 1]
    assert spec.task_address("worker", 2) == "worker2.example.com:2222"
    assert spec.job_tasks("ps") == ["ps0.example.com:2222", "ps1.example.com:2222"]
    assert spec.as_dict() == {
        "worker": [
            "worker0.example.com:2222",
            "worker1.example.com:2222",
            "worker2.example.com:2222",
        ],
        "ps": ["ps0.example.com:2222", "ps1.example.com:2222"],
    }
    assert bool(spec)
    assert spec.task_names() == [
        "/job:ps/replica:0/task:0",
        "/job:ps/replica:0/task:1",
        "/job:worker/replica:0/task:0",
        "/job:worker/replica:0/task:1",
        "/job:worker/replica:0/task:2",
    ]


def test_sparse_jobs() -> None:
    spec = tf.train.ClusterSpec({"worker": {1: "w1:2222", 3: "w3:2222"}, "ps": ["p0:1"]})
    assert spec.num_tasks("worker") == 2
    assert spec.task_indices("worker") == [1, 3]
    assert spec.job_tasks("worker") == [None, "w1:2222", None, "w3:2222"]
    assert spec.as_dict() == {"worker": {1: "w1:2222", 3: "w3:2222"}, "ps": ["p0:1"]}
    with pytest.raises(ValueError, match="No task with index 0 in job 'worker'"):
        spec.task_address("worker", 0)


def test_cluster_def_round_trip_is_sorted_and_equal() -> None:
    spec = tf.train.ClusterSpec({"worker": ["w0:1", "w1:2"], "ps": ["p0:3"]})
    cd = spec.as_cluster_def()
    assert isinstance(cd, cluster_pb2.ClusterDef)
    assert [j.name for j in cd.job] == ["ps", "worker"]
    assert dict(cd.job[1].tasks) == {0: "w0:1", 1: "w1:2"}
    again = tf.train.ClusterSpec(cd)
    assert again == spec
    assert tf.train.ClusterSpec(spec) == spec
    assert (tf.train.ClusterSpec(spec) != spec) is False
    assert spec == {"worker": {0: "w0:1", 1: "w1:2"}, "ps": {0: "p0:3"}}
    assert spec != tf.train.ClusterSpec({"worker": ["w0:1"]})
    assert str(spec) == "ClusterSpec({'ps': ['p0:3'], 'worker': ['w0:1', 'w1:2']})"


def test_empty_spec_is_falsy() -> None:
    assert not tf.train.ClusterSpec({})
    assert tf.train.ClusterSpec({}).as_dict() == {}


def test_bad_input() -> None:
    with pytest.raises(TypeError, match="must be a dictionary"):
        tf.train.ClusterSpec(["a:1"])
    with pytest.raises(TypeError, match="must be a list or a dictionary"):
        tf.train.ClusterSpec({"worker": "w0:1"})
    with pytest.raises(TypeError, match="Task address"):
        tf.train.ClusterSpec({"worker": [1234]})
    with pytest.raises(TypeError, match="must be integers"):
        tf.train.ClusterSpec({"worker": {"x": "w:1"}})
    spec = tf.train.ClusterSpec({"worker": ["w0:1"]})
    with pytest.raises(ValueError, match="No such job in cluster: 'ps'"):
        spec.num_tasks("ps")
    with pytest.raises(ValueError, match="No such job"):
        spec.task_indices("ps")
    with pytest.raises(ValueError, match="No such job"):
        spec.job_tasks("ps")


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        ("local|localhost:2222", {"local": ["localhost:2222"]}),
        ("local|localhost:2222;localhost:2223", {"local": ["localhost:2222", "localhost:2223"]}),
        (
            "worker|worker0:2222;worker1:2222;worker2:2222,ps|ps0:2222;ps1:2222",
            {
                "worker": ["worker0:2222", "worker1:2222", "worker2:2222"],
                "ps": ["ps0:2222", "ps1:2222"],
            },
        ),
        ("worker|w0:2222,\n ps|p0:2222", {"worker": ["w0:2222"], "ps": ["p0:2222"]}),
    ],
)
def test_cluster_flag_lists_jobs_and_their_tasks(flag: str, expected: dict[str, list[str]]) -> None:
    assert parse_cluster_flag(flag).as_dict() == expected


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("", "empty"),
        ("localhost:2222", "not of the form"),
        ("|h:1", "has no name"),
        ("w|h:1,w|h:2", "appears twice"),
        ("w|h", "not host:port"),
        ("w|h:1;;h:2", "not host:port"),
        ("w|h:port", "invalid port"),
        ("w|h:99999", "invalid port"),
    ],
)
def test_bad_cluster_flag(flag: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_cluster_flag(flag)


def test_tf_config() -> None:
    text = json.dumps(
        {
            "cluster": {"worker": ["w0:2222", "w1:2222"], "ps": ["p0:2222"]},
            "task": {"type": "worker", "index": 1},
        }
    )
    spec, job, index = parse_tf_config(text)
    assert (job, index) == ("worker", 1)
    assert spec.task_address("ps", 0) == "p0:2222"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not valid JSON"),
        ("[]", "JSON object"),
        ('{"task": {"type": "w"}}', "no 'cluster'"),
        ('{"cluster": {"w": ["h:1"]}}', "no 'task'"),
        ('{"cluster": {"w": "h:1"}, "task": {"type": "w"}}', "'cluster' is invalid"),
        ('{"cluster": {"w": ["h"]}, "task": {"type": "w"}}', "not host:port"),
        ('{"cluster": {"w": ["h:1"]}, "task": {"type": "w", "index": -1}}', "non-negative"),
    ],
)
def test_bad_tf_config(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_tf_config(text)


def test_server_def_defaults_and_errors() -> None:
    sd = make_server_def({"local": ["localhost:0"]}, None, None, None, None)
    assert (sd.job_name, sd.task_index, sd.protocol) == ("local", 0, "grpc")
    with pytest.raises(ValueError, match="explicit `job_name`"):
        make_server_def({"a": ["h:1"], "b": ["h:2"]}, None, None, None, None)
    with pytest.raises(ValueError, match="explicit `task_index`"):
        make_server_def({"a": ["h:1", "h:2"]}, "a", None, None, None)
    with pytest.raises(TypeError, match="Could not convert"):
        make_server_def(42, None, None, None, None)
    config = tf.ConfigProto(operation_timeout_in_ms=5)
    sd2 = make_server_def(sd, "other", 3, None, config)
    assert (sd2.job_name, sd2.task_index) == ("other", 3)
    assert sd2.default_session_config.operation_timeout_in_ms == 5
    assert sd.job_name == "local"  # the given ServerDef is not modified


def test_server_rejects_tasks_not_in_the_cluster() -> None:
    cluster = tf.train.ClusterSpec({"local": ["localhost:0"]})
    with pytest.raises(tf.errors.InvalidArgumentError, match='Job "ps" was not defined'):
        tf.train.Server(cluster, job_name="ps", task_index=0, start=False)
    with pytest.raises(
        tf.errors.InvalidArgumentError, match='Task 2 was not defined in job "local"'
    ):
        tf.train.Server(cluster, job_name="local", task_index=2, start=False)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse port"):
        tf.train.Server({"local": ["localhost"]}, start=False)
    with pytest.raises(tf.errors.UnimplementedError, match="protocol 'rdma'"):
        tf.train.Server(cluster, protocol="rdma", start=False)
