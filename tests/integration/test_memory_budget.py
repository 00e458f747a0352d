"""A tiny request that asks for a huge tensor (a constant's declared shape filled from one
value, Fill's dims, Tile's multiples, Range's length) gets ResourceExhaustedError naming what
asked and how much, before any memory is taken; the task's memory stays small and it keeps
serving other sessions."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import TaskProcess, cluster_flag, free_ports
from tfcluster.framework import memory_budget
from tfcluster.protos import (
    attr_value_pb2,
    graph_pb2,
    master_pb2,
    node_def_pb2,
    tensor_pb2,
    tensor_shape_pb2,
    types_pb2,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

BUDGET = 400 << 20


@pytest.fixture
def task() -> Iterator[TaskProcess]:
    (port,) = free_ports(1)
    command = [
        sys.executable,
        "-m",
        "tfcluster.cli.server_main",
        f"--memory_budget_bytes={BUDGET}",
    ]
    t = TaskProcess(cluster_flag({"worker": [port]}), "worker", 0, port, command=command)
    try:
        yield t.wait_serving()
    finally:
        t.terminate()


def _rss(pid: int) -> int:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * 4096


def _huge_constant_graph() -> graph_pb2.GraphDef:
    """55 bytes or so: a float constant of shape [100000, 100000] given as one value."""
    value = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_FLOAT,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=100000)] * 2
        ),
        float_val=[1.0],
    )
    node = node_def_pb2.NodeDef(
        name="bomb",
        op="Const",
        attr={
            "dtype": attr_value_pb2.AttrValue(type=types_pb2.DT_FLOAT),
            "value": attr_value_pb2.AttrValue(tensor=value),
        },
    )
    return graph_pb2.GraphDef(node=[node])


def test_a_tiny_graph_def_declaring_a_huge_constant_is_resource_exhausted(
    task: TaskProcess,
) -> None:
    before = _rss(task.proc.pid)
    req = master_pb2.CreateSessionRequest(graph_def=_huge_constant_graph())
    assert req.ByteSize() < 100
    with grpc.insecure_channel(f"localhost:{task.port}") as ch:
        call = ch.unary_unary("/tfcluster.MasterService/CreateSession")
        with pytest.raises(grpc.RpcError) as info:
            call(req.SerializeToString(), timeout=20)
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    details = info.value.details() or ""
    assert "bomb" in details and "40000000000 bytes" in details, details
    assert _rss(task.proc.pid) - before < 50 << 20
    _still_serves(task)


def _peak_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) << 10
    raise AssertionError("no VmHWM line")


def test_a_string_constant_filled_from_one_value_takes_only_its_arrays_memory(
    task: TaskProcess,
) -> None:
    """[2**25] empty strings: a 256 MiB array of references, which fits the budget; building
    it must not take a second n-long list on the way (the peak was twice the array)."""
    n = 1 << 25
    value = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_STRING,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=n)]
        ),
    )
    node = node_def_pb2.NodeDef(
        name="strings",
        op="Const",
        attr={
            "dtype": attr_value_pb2.AttrValue(type=types_pb2.DT_STRING),
            "value": attr_value_pb2.AttrValue(tensor=value),
        },
    )
    before = _peak_rss(task.proc.pid)
    req = master_pb2.CreateSessionRequest(graph_def=graph_pb2.GraphDef(node=[node]))
    with grpc.insecure_channel(f"localhost:{task.port}") as ch:
        ch.unary_unary("/tfcluster.MasterService/CreateSession")(
            req.SerializeToString(), timeout=60
        )
    assert _peak_rss(task.proc.pid) - before < n * 8 * 3 // 2
    _still_serves(task)


@pytest.mark.parametrize(
    "make, op",
    [
        (lambda big: tf.fill(tf.stack([big, big]), 1.0), "Fill"),
        (lambda big: tf.tile(tf.ones([2, 2]), tf.stack([big, big])), "Tile"),
        (lambda big: tf.range(tf.cast(big, tf.int64) * 100000), "Range"),
        (lambda big: tf.random_uniform(tf.stack([big, big])), "RandomUniform"),
    ],
    ids=["fill", "tile", "range", "random_uniform"],
)
def test_a_kernel_asked_for_a_huge_output_is_resource_exhausted(
    task: TaskProcess, make: object, op: str
) -> None:
    g = tf.Graph()
    with g.as_default():
        big = tf.placeholder(tf.int32, [])
        out = make(big)  # type: ignore[operator]
    before = _rss(task.proc.pid)
    with (
        tf.Session(task.target, graph=g) as sess,
        pytest.raises(tf.errors.ResourceExhaustedError) as info,
    ):
        sess.run(out, {big: 1_000_000})
    assert op in info.value.message and "bytes" in info.value.message, info.value.message
    assert _rss(task.proc.pid) - before < 50 << 20
    _still_serves(task)


def _still_serves(task: TaskProcess) -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.fill([3], 2.0) * 2.0
    with tf.Session(task.target, graph=g) as sess:
        np.testing.assert_array_equal(sess.run(x), np.full(3, 4.0, np.float32))


def test_the_default_budget_is_the_container_limit_or_the_machine_memory() -> None:
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    limits = []
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        text = Path(path).read_text().strip() if Path(path).exists() else ""
        if text.isdigit():
            limits.append(int(text))
            break
    assert memory_budget.machine_memory() == min([ram, *limits])
