"""The runtime sizes its own thread pools: from the affinity mask, the cgroup CPU quota (v1 and
v2, read from fake cgroup trees here), the operator's CPU budget and ConfigProto's
intra/inter_op_parallelism_threads; the BLAS pools follow (threadpoolctl reports them)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.distributed.cluster_spec import ClusterSpec
from tfcluster.runtime import cpu_quota, thread_budget
from tfcluster.task_server.host_share import host_of, tasks_on_this_host


@pytest.fixture(autouse=True)
def fresh_budget() -> Iterator[None]:
    thread_budget._reset_for_tests()
    yield
    thread_budget._reset_for_tests()


def blas_threads() -> set[int]:
    pools = [p for p in thread_budget.blas_pools_info() if p["user_api"] == "blas"]
    assert pools, "numpy's BLAS is not visible to threadpoolctl"
    return {p["num_threads"] for p in pools}


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# ---- the CPUs a process may use ------------------------------------------------------------
def test_cgroup_v2_quota_is_read_from_cpu_max(tmp_path: Path) -> None:
    write(tmp_path / "proc_cgroup", "0::/kubepods/pod1/ctr\n")
    write(tmp_path / "cg/kubepods/pod1/ctr/cpu.max", "150000 100000\n")
    write(tmp_path / "cg/kubepods/cpu.max", "max 100000\n")
    quota = cpu_quota.cgroup_cpu_quota(str(tmp_path / "cg"), str(tmp_path / "proc_cgroup"))
    assert quota == pytest.approx(1.5)


def test_cgroup_v2_tightest_ancestor_wins(tmp_path: Path) -> None:
    write(tmp_path / "proc_cgroup", "0::/a/b\n")
    write(tmp_path / "cg/a/b/cpu.max", "max 100000\n")
    write(tmp_path / "cg/a/cpu.max", "50000 100000\n")
    quota = cpu_quota.cgroup_cpu_quota(str(tmp_path / "cg"), str(tmp_path / "proc_cgroup"))
    assert quota == pytest.approx(0.5)


def test_cgroup_v1_quota_is_read_from_cfs_files(tmp_path: Path) -> None:
    write(tmp_path / "proc_cgroup", "4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n")
    # Mounted at the container's own cgroup: the path from /proc does not exist below it.
    write(tmp_path / "cg/cpu,cpuacct/cpu.cfs_quota_us", "300000\n")
    write(tmp_path / "cg/cpu,cpuacct/cpu.cfs_period_us", "100000\n")
    quota = cpu_quota.cgroup_cpu_quota(str(tmp_path / "cg"), str(tmp_path / "proc_cgroup"))
    assert quota == pytest.approx(3.0)


def test_no_quota_means_none(tmp_path: Path) -> None:
    write(tmp_path / "proc_cgroup", "3:cpu,cpuacct:/\n")
    write(tmp_path / "cg/cpu,cpuacct/cpu.cfs_quota_us", "-1\n")
    write(tmp_path / "cg/cpu,cpuacct/cpu.cfs_period_us", "100000\n")
    proc = str(tmp_path / "proc_cgroup")
    assert cpu_quota.cgroup_cpu_quota(str(tmp_path / "cg"), proc) is None
    assert cpu_quota.cgroup_cpu_quota(str(tmp_path / "missing"), proc) is None
    assert cpu_quota.available_cpus(str(tmp_path / "cg"), proc) == cpu_quota.affinity_cpus()


def test_available_cpus_is_the_quota_rounded_up_capped_by_affinity(tmp_path: Path) -> None:
    write(tmp_path / "proc_cgroup", "0::/\n")
    write(tmp_path / "cg/cpu.max", "50000 100000\n")
    proc = str(tmp_path / "proc_cgroup")
    assert cpu_quota.available_cpus(str(tmp_path / "cg"), proc) == 1
    write(tmp_path / "cg/cpu.max", f"{1000 * 100000} 100000\n")
    assert cpu_quota.available_cpus(str(tmp_path / "cg"), proc) == cpu_quota.affinity_cpus()


def test_affinity_mask_limits_the_budget() -> None:
    before = os.sched_getaffinity(0)
    one = {min(before)}
    try:
        os.sched_setaffinity(0, one)
        assert cpu_quota.affinity_cpus() == 1
        assert thread_budget.default_cpus() == 1
        assert thread_budget.current() == thread_budget.Budget(1, 1, "default")
        assert blas_threads() == {1}
    finally:
        os.sched_setaffinity(0, before)
    assert cpu_quota.affinity_cpus() == len(before)


def test_operator_cpu_budget_caps_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFCLUSTER_CPU_MILLICORES", "1")  # 1m: still one thread
    assert thread_budget.default_cpus() == 1
    monkeypatch.setenv("TFCLUSTER_CPU_MILLICORES", "not a number")
    assert thread_budget.default_cpus() == cpu_quota.available_cpus()


# ---- ConfigProto's fields reach the pools --------------------------------------------------
def test_local_session_intra_op_threads_reach_blas() -> None:
    config = tf.ConfigProto(intra_op_parallelism_threads=3, inter_op_parallelism_threads=2)
    with tf.Graph().as_default():
        x = tf.constant(np.ones((4, 4), np.float32))
        with tf.Session(config=config) as sess:
            assert blas_threads() == {3}
            assert thread_budget.current() == thread_budget.Budget(3, 2, "session config")
            np.testing.assert_allclose(sess.run(tf.matmul(x, x)), np.full((4, 4), 4.0))


def test_session_without_thread_settings_keeps_the_budget_in_force() -> None:
    thread_budget.configure(intra=1, inter=1, source="server config")
    with tf.Graph().as_default(), tf.Session() as sess:
        sess.run(tf.constant(1.0))
    assert blas_threads() == {1}
    assert thread_budget.current().source == "server config"


def test_server_config_sizes_the_pools() -> None:
    config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=3)
    server = tf.train.Server.create_local_server(config=config)
    try:
        assert server.thread_budget == thread_budget.Budget(1, 3, "server config")
        assert blas_threads() == {1}
    finally:
        server.stop()


def test_tasks_on_one_host_share_its_cpus() -> None:
    cluster = ClusterSpec(
        {"ps": ["localhost:1"], "worker": ["127.0.0.1:2", "[::1]:3", "elsewhere.example:4"]}
    )
    assert tasks_on_this_host(cluster, frozenset({"myhost"})) == 3
    assert tasks_on_this_host(ClusterSpec({"w": ["myhost:1"]}), frozenset({"myhost"})) == 1
    assert tasks_on_this_host(ClusterSpec({"w": ["other:1"]}), frozenset({"myhost"})) == 1
    assert host_of("[::1]:3") == "::1" and host_of("Host:4") == "host"
    budget = thread_budget.configure(share=1_000_000)
    assert budget == thread_budget.Budget(1, 1, "default")


# ---- temporary limits and kernels that share the budget ------------------------------------
def test_blas_threads_limits_and_restores() -> None:
    thread_budget.configure(intra=2, inter=2)
    with thread_budget.blas_threads(1):
        assert blas_threads() == {1}
    assert blas_threads() == {2}


def test_concurrent_kernels_share_the_intra_budget() -> None:
    thread_budget.configure(intra=4, inter=2)
    with thread_budget.concurrent_kernel():
        assert blas_threads() == {4}
        with thread_budget.concurrent_kernel():
            assert blas_threads() == {2}
        assert blas_threads() == {4}


def test_a_limit_set_from_another_thread_holds() -> None:
    # threadpoolctl lets only the first thread that set OpenBLAS's pool change it: executor
    # and kernel threads set limits too, and theirs must hold as well.
    thread_budget.configure(intra=2, inter=2)
    seen: list[set[int]] = []

    def kernel_thread() -> None:
        with thread_budget.blas_threads(1):
            seen.append(blas_threads())
        seen.append(blas_threads())

    worker = threading.Thread(target=kernel_thread)
    worker.start()
    worker.join()
    assert seen == [{1}, {2}]
    with thread_budget.blas_threads(1):
        assert blas_threads() == {1}


def test_openblas_on_pthreads_is_set_through_its_own_function() -> None:
    # A mid-size product holds BLAS at one thread and lets it go (twice per product): the
    # budget calls OpenBLAS's openblas_set_num_threads itself rather than going through
    # threadpoolctl's taking of control each time; threadpoolctl still sees every change.
    import threadpoolctl

    openblas = [
        lib
        for lib in threadpoolctl.ThreadpoolController().lib_controllers
        if lib.internal_api == "openblas" and lib.threading_layer != "openmp"
    ]
    if not openblas:
        pytest.skip("numpy's BLAS here is not OpenBLAS on pthreads")
    setter = thread_budget._setter(openblas[0])
    assert "openblas_set_num_threads" in setter.__name__  # the C function itself
    thread_budget.configure(intra=2, inter=2)
    with thread_budget.blas_threads(1):
        assert blas_threads() == {1}
    assert blas_threads() == {2}
