"""The GPU backend's CPU-testable parts: cupy stays unimported, the GPU kernel table and its
type constraints, where values are copied off a device (executor, worker), GPU discovery and
memory options without a GPU, and the per-op GPU test cases (built and run on the CPU here).

Device arrays are stood in for by `_DeviceArray`, a minimal type with the CUDA array interface
attribute the runtime recognises, so the copy points are checked without cupy or a GPU; the
kernel bodies themselves run as GPU kernels on a strict stand-in for cupy in
test_kernels_on_strict_cupy.py, and on a real GPU against the CPU in tests/gpu.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.gpu_op_cases import CASES, gpu_ops
from tfcluster.distributed.worker import Worker
from tfcluster.framework import dtypes
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels import gpu_backend, registry
from tfcluster.runtime import device_copy, gpu
from tfcluster.runtime import rendezvous as rdv
from tfcluster.runtime.executor import Executor
from tfcluster.runtime.graph_ir import Node
from tfcluster.runtime.partition import Partition
from tfcluster.runtime.resources import ResourceMgr
from tfcluster.runtime.step_context import StepContext

TASK = "/job:localhost/replica:0/task:0"
GPU0 = f"{TASK}/device:GPU:0"
CPU0 = f"{TASK}/device:CPU:0"
NO_GPU = pytest.mark.skipif(bool(gpu.local_gpus()), reason="this machine has a GPU")


class _DeviceArray:
    """A value living on a device, as the runtime sees one: a type with the CUDA array
    interface, copied to the host by get(). Counts its copies."""

    __cuda_array_interface__ = property(lambda self: {"shape": self.host.shape})

    def __init__(self, host: np.ndarray) -> None:
        self.host = host
        self.copies = 0

    def get(self) -> np.ndarray:
        self.copies += 1
        return self.host.copy()


# ---- cupy is optional ------------------------------------------------------------------------
def test_importing_tfcluster_and_loading_the_gpu_table_never_imports_cupy() -> None:
    code = (
        "import sys\n"
        "import tfcluster as tf\n"
        "from tfcluster.kernels import registry\n"
        "from tfcluster.runtime import gpu, placement\n"
        "from tfcluster.runtime.graph_ir import node_from_operation\n"
        "assert 'cupy' not in sys.modules, 'import tfcluster'\n"
        "y = tf.nn.relu(tf.matmul(tf.ones([2, 2]), tf.ones([2, 2])))\n"
        "ops = tf.get_default_graph().get_operations()\n"
        "nodes = {o.name: node_from_operation(o) for o in ops}\n"
        "tasks = [placement.TaskDevices('w', 0, {'CPU': 1, 'GPU': 1})]\n"
        "placed = placement.place(nodes, list(nodes), tasks)\n"
        "assert all('GPU' in d for d in placed.values()), placed\n"
        "assert registry.has_kernel('MatMul', 'GPU')\n"
        "assert gpu.configure_memory(tf.GPUOptions()) is None\n"
        "assert 'cupy' not in sys.modules, 'GPU kernel table, placement, empty GPUOptions'\n"
        "print('ok')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_gpu_kernels_refuse_string_nodes() -> None:
    string_const = {"dtype": dtypes.string, "value": np.array([b"a"], object)}
    float_const = {"dtype": dtypes.float32, "value": np.zeros(2, np.float32)}
    assert registry.supports("Const", "GPU", float_const)
    assert not registry.supports("Const", "GPU", string_const)
    assert registry.supports("Const", "CPU", string_const)
    assert not registry.supports("Identity", "GPU", {"T": dtypes.string})
    assert not registry.supports("FIFOQueueV2", "GPU", {"component_types": [dtypes.float32]})
    assert not gpu_backend.numeric_only({"component_types": [dtypes.float32, dtypes.string]})


def test_cpu_only_families_have_no_gpu_kernels() -> None:
    gpu_table = set(gpu_ops())
    for op in ("FIFOQueueV2", "QueueDequeueV2", "ConditionalAccumulator", "ScalarSummary"):
        assert op not in gpu_table
    for op in ("If", "While", "Unique", "MergeSummary", "_Arg", "_Retval"):
        assert op not in gpu_table
    for op in (
        "MatMul",
        "Conv2D",
        "VariableV2",
        "ApplyAdam",
        "SparseSoftmaxCrossEntropyWithLogits",
    ):
        assert op in gpu_table


def test_device_index_of_node_devices() -> None:
    assert gpu_backend.device_index(GPU0) == 0
    assert gpu_backend.device_index("/job:w/replica:0/task:3/device:GPU:2") == 2
    assert gpu_backend.device_index("/gpu:1") == 1
    assert gpu_backend.device_index("") == 0


def test_host_values_that_are_not_numeric_stay_on_the_host() -> None:
    strings = np.array([b"a"], object)
    ref = ResourceMgr().variable("", "v", dtypes.float32, TensorShape([1]))
    assert gpu_backend.to_device(strings) is strings
    assert gpu_backend.to_device(ref) is ref
    assert gpu_backend.to_device(None) is None


# ---- copies off the device ------------------------------------------------------------------
def test_device_copy_to_host() -> None:
    host = np.arange(4.0)
    dev = _DeviceArray(host)
    assert device_copy.is_device_array(dev)
    assert not device_copy.is_device_array(host)
    out = device_copy.to_host(dev)
    assert isinstance(out, np.ndarray) and dev.copies == 1
    np.testing.assert_array_equal(out, host)
    assert device_copy.to_host(host) is host
    assert device_copy.all_to_host([host, b"x", None])[0] is host


def _identity(name: str, src: str, device: str) -> Node:
    return Node(name, "Identity", [(src, 0)], [], device, {"T": dtypes.float32})


def _nodes() -> list[Node]:
    x = Node("x", "Placeholder", [], [], GPU0, {"dtype": dtypes.float32, "shape": TensorShape([2])})
    send_attrs = {
        "tensor_name": "on_gpu:0",
        "send_device": GPU0,
        "recv_device": "/job:other/replica:0/task:0/device:CPU:0",
        "client_terminated": False,
    }
    return [
        x,
        _identity("on_gpu", "x", GPU0),
        _identity("to_cpu", "on_gpu", CPU0),
        _identity("stays_on_gpu", "on_gpu", GPU0),
        Node("send", "_Send", [("on_gpu", 0)], [], GPU0, send_attrs),
    ]


def test_executor_copies_gpu_values_for_cpu_consumers_and_sends_only() -> None:
    # The GPU Identity and _Send kernels only pass values on: binding them needs no cupy.
    ex = Executor(_nodes(), ["x:0"], ["to_cpu:0", "stays_on_gpu:0"], ["send"])
    copies = {s.name: s.to_host for s in ex.steps}
    assert copies == {"on_gpu": (), "to_cpu": (0,), "stays_on_gpu": (), "send": (0,)}

    device_copy.activate()  # as loading the GPU kernels does
    mgr = rdv.RendezvousMgr()
    ctx = StepContext(1, ResourceMgr(), mgr.find_or_create(1))
    value = _DeviceArray(np.array([1.0, 2.0], np.float32))
    to_cpu, stays = ex.run(ctx, [value])
    assert isinstance(to_cpu, np.ndarray)
    np.testing.assert_array_equal(to_cpu, [1.0, 2.0])
    # A GPU consumer gets the device value itself; only a fetch brings it home (the worker).
    assert stays is value
    key = rdv.make_key(GPU0, "/job:other/replica:0/task:0/device:CPU:0", "on_gpu:0")
    sent = mgr.find_or_create(1).recv(key, timeout=5)
    assert isinstance(sent, np.ndarray)
    assert value.copies == 2  # once for the CPU consumer, once for the send


def test_cpu_consumers_of_variables_get_host_values() -> None:
    nodes = [
        Node("v", "VariableV2", [], [], CPU0, {"dtype": dtypes.float32, "shape": TensorShape([2])}),
        _identity("read", "v", CPU0),
    ]
    ex = Executor(nodes, [], ["read:0"], [])
    # A variable may have been assigned on a GPU by another plan: its reads are copy points.
    assert {s.name: s.to_host for s in ex.steps} == {"v": (), "read": (0,)}
    device_copy.activate()
    resources = ResourceMgr()
    ref = resources.variable("", "v", dtypes.float32, TensorShape([2]))
    ref.value = _DeviceArray(np.array([3.0, 4.0], np.float32))
    (out,) = ex.run(StepContext(2, resources, rdv.RendezvousMgr().find_or_create(2)), [])
    np.testing.assert_array_equal(out, [3.0, 4.0])


def test_worker_returns_fetches_as_host_arrays() -> None:
    device_copy.activate()
    worker = Worker(TASK)
    nodes = [*_nodes()[:2], _identity("out", "on_gpu", GPU0)]
    partition = Partition(TASK, nodes, ["x:0"], ["out:0"], [])
    handle = worker.register_graph("s", partition)
    value = _DeviceArray(np.array([5.0, 6.0], np.float32))
    result = worker.run_graph("s", handle, 7, [value])
    assert isinstance(result.fetches[0], np.ndarray)
    np.testing.assert_array_equal(result.fetches[0], [5.0, 6.0])


# ---- discovery and memory options without a GPU ---------------------------------------------
@NO_GPU
def test_workers_report_only_their_cpu_without_gpus() -> None:
    assert gpu.local_gpus() == []
    worker = Worker("/job:w/replica:0/task:1")
    assert [(d.name, d.device_type) for d in worker.get_status()] == [
        ("/job:w/replica:0/task:1/device:CPU:0", "CPU"),
        ("/job:w/replica:0/task:1/device:XLA_CPU:0", "XLA_CPU"),
    ]


@NO_GPU
def test_memory_options_need_a_gpu() -> None:
    options = tf.GPUOptions(per_process_gpu_memory_fraction=0.5, allow_growth=True)
    assert gpu.configure_memory(options) is None
    # A session with GPU options still runs (on the CPU).
    with tf.Session(config=tf.ConfigProto(gpu_options=options)) as sess:
        assert sess.run(tf.constant(2.0) * 3.0) == 6.0


def test_gpu_kernels_bound_without_cupy_fail_clearly(monkeypatch: Any) -> None:
    if gpu.local_gpus():
        pytest.skip("this machine has a GPU")
    monkeypatch.setattr(gpu_backend.cp, "_module", None)
    monkeypatch.setitem(sys.modules, "cupy", None)  # as if not installed
    with pytest.raises(tf.errors.UnavailableError, match=r"tfcluster\[gpu\]"):
        _ = gpu_backend.cp.ndarray


# ---- the per-op GPU test cases ----------------------------------------------------------------
def test_every_gpu_kernel_has_a_comparison_case() -> None:
    ops = gpu_ops()
    assert len(ops) > 150
    assert [op for op in ops if op not in CASES] == []
    assert [op for op in CASES if op not in ops] == []


@pytest.mark.parametrize("op", sorted(CASES))
def test_gpu_case_builds_its_op_and_runs_on_cpu(op: str) -> None:
    graph = tf.Graph()
    with graph.as_default(), tf.device("/cpu:0"):
        build = CASES[op]()
    assert op in {o.type for o in graph.get_operations()}
    with tf.Session(graph=graph) as sess:
        values = build.run(sess)
    assert values and all(isinstance(v, np.ndarray) for v in values)
    # Two cases feed infinities on purpose: the predicates, and an empty max (-inf).
    if CASES[op] not in (CASES["IsNan"], CASES["Max"]):
        for v in values:
            if v.dtype.kind == "f":
                assert np.all(np.isfinite(v)), (op, v)
