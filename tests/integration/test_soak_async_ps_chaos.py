"""Soak: asynchronous between-graph PS training (2 ps task servers started with
`tfcluster-server`, 3 workers as plain Python programs with their own in-process servers and
MonitoredTrainingSession, support/async_soak_worker) while a chaos loop freezes (SIGSTOP /
SIGCONT) and kills and restarts workers, the chief included, and freezes each ps long enough
for the workers to give it up (their steps fail, MonitoredTrainingSession makes new sessions).

After every disturbance training makes progress (the global step grows), a worker that was
killed comes back and steps again, no task server dies on its own, and nothing grows per
disturbance in the ps processes (dead peers' connections, streams, step state): the same round
of disturbances runs twice, and the second round leaves each ps's thread count and open file
descriptors within a small slack of the peak the first round reached (threads a ps starts
lazily, once per peer or per pool slot, are all there by then; anything kept per disturbance
grows again), and its RSS within a fixed bound of the warm-up's. The chief saves checkpoints;
when it is killed, the one that starts again restores the latest.

Marked `slow` (about two minutes on two cores); `make test` runs it like every other test."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
from support.cluster_processes import Cluster, TaskProcess, cluster_flag, free_ports

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(420)]

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUM_PS = 2
NUM_WORKERS = 3
WARM_UP_SECS = 6.0
FREEZE_SECS = 2.0
# The ps tasks write a heartbeat every HEARTBEAT_SECS on their direct streams: a caller gives
# a ps up after three missed (1.5 s), so a ps frozen for PS_FREEZE_SECS fails the steps that
# wait for it (UnavailableError) and MonitoredTrainingSession makes new sessions.
HEARTBEAT_SECS = 0.5
PS_FREEZE_SECS = 3.0
# Progress after a disturbance: this many more global steps within PROGRESS_SECS.
PROGRESS_STEPS = 20
PROGRESS_SECS = 45.0
# RSS growth allowed over the warm-up, whatever the number of disturbances.
RSS_GROWTH_MB = 32.0
# Threads and descriptors the second round may hold over the first round's peak: connections
# being replaced at the instant of the last samples. Kept per disturbance, they would grow by
# about one per disturbance (13 a round).
THREAD_SLACK = 3
FD_SLACK = 3


class Worker:
    """One worker program; a restart is a new process on the same task (and port)."""

    def __init__(self, args: list[str], index: int, logdir: str) -> None:
        self.args = args
        self.index = index
        self.logdir = logdir
        self.generation = 0
        self.proc: subprocess.Popen[str] | None = None
        self.start()

    @property
    def log_path(self) -> str:
        return os.path.join(self.logdir, f"worker{self.index}-{self.generation}.log")

    def start(self) -> None:
        self.generation += 1
        log = open(self.log_path, "w", encoding="utf-8")  # noqa: SIM115 - owned by the process
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([TESTS, env.get("PYTHONPATH", "")])
        env["PYTHONUNBUFFERED"] = "1"
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "support.async_soak_worker",
                *self.args,
                f"--task_index={self.index}",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )

    def output(self) -> str:
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def global_steps(self) -> list[int]:
        """The global steps this process reported (READY and STEP lines)."""
        steps = []
        for line in self.output().splitlines():
            parts = line.split()
            if parts and parts[0] == "READY":
                steps.append(int(parts[1]))
            elif parts and parts[0] == "STEP":
                steps.append(int(parts[2]))
        return steps

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig: signal.Signals) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)

    def stop(self, timeout: float = 20.0) -> int | None:
        """SIGTERM (SIGCONT first, in case it is frozen); SIGKILL if it does not exit."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGCONT)
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
            return None


@dataclass
class Sample:
    at: float
    rss_mb: float
    threads: int
    fds: int


def proc_sample(pid: int) -> Sample:
    rss_kb = threads = 0
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss_kb = int(line.split()[1])
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    return Sample(time.monotonic(), rss_kb / 1024.0, threads, fds)


@dataclass
class Sampler:
    """Samples each ps process from /proc every `every` seconds, on a thread."""

    pids: dict[str, int]
    every: float = 1.0
    samples: dict[str, list[Sample]] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.samples = {name: [] for name in self.pids}
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            for name, pid in self.pids.items():
                # A process that is gone: the liveness checks report it.
                with contextlib.suppress(OSError):
                    self.samples[name].append(proc_sample(pid))
            self._stop.wait(self.every)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)

    def since(self, name: str, start: float) -> list[Sample]:
        return [s for s in self.samples[name] if s.at >= start]


class Chaos:
    """The running cluster, the disturbances and the progress checks between them."""

    def __init__(self, ps: list[TaskProcess], workers: list[Worker]) -> None:
        self.ps = ps
        self.workers = workers
        self.log: list[str] = []
        self.started = time.monotonic()

    def global_step(self) -> int:
        return max((max(w.global_steps(), default=-1) for w in self.workers), default=-1)

    def wait_until(self, what: str, ok: Callable[[], bool], timeout: float) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if ok():
                return
            self.check_nothing_died()
            time.sleep(0.2)
        raise AssertionError(f"{what}: not within {timeout}s\n{self.report()}")

    def check_nothing_died(self) -> None:
        for t in self.ps:
            assert t.proc.poll() is None, (
                f"ps task {t.index} died (exit {t.proc.returncode}): {t.stderr()[-3000:]}"
            )
        for w in self.workers:
            assert w.alive(), (
                f"worker {w.index} exited on its own ({w.proc and w.proc.returncode}):\n"
                f"{w.output()[-3000:]}"
            )

    def progress_after(self, what: str) -> None:
        before = self.global_step()
        self.wait_until(
            f"global step past {before} + {PROGRESS_STEPS} after {what}",
            lambda: self.global_step() >= before + PROGRESS_STEPS,
            PROGRESS_SECS,
        )
        self.log.append(
            f"{time.monotonic() - self.started:5.1f}s {what}: global step {before} -> "
            f"{self.global_step()}"
        )

    def freeze_worker(self, i: int) -> None:
        w = self.workers[i]
        w.signal(signal.SIGSTOP)
        time.sleep(FREEZE_SECS)
        w.signal(signal.SIGCONT)
        self.progress_after(f"worker {i} frozen {FREEZE_SECS}s")

    def freeze_ps(self, i: int) -> None:
        p = self.ps[i].proc
        p.send_signal(signal.SIGSTOP)
        time.sleep(PS_FREEZE_SECS)
        p.send_signal(signal.SIGCONT)
        self.progress_after(f"ps {i} frozen {PS_FREEZE_SECS}s")

    def kill_and_restart_worker(self, i: int, frozen_ps: int | None = None) -> None:
        """SIGKILL and start again (with `frozen_ps`: both while that ps is frozen)."""
        w = self.workers[i]
        if frozen_ps is not None:
            self.ps[frozen_ps].proc.send_signal(signal.SIGSTOP)
        w.kill()
        at_kill = self.global_step()
        w.start()
        if frozen_ps is not None:
            time.sleep(PS_FREEZE_SECS)
            self.ps[frozen_ps].proc.send_signal(signal.SIGCONT)
        # It comes back: its session is ready and it steps past the step it died at.
        self.wait_until(
            f"restarted worker {i} stepping past global step {at_kill}",
            lambda: any(s > at_kill for s in w.global_steps()[1:]),
            PROGRESS_SECS + 30,
        )
        ready = w.global_steps()[0]
        if i == 0:
            # The chief restored the latest checkpoint (a couple of seconds old), not a freshly
            # initialised model (global step 0, as TensorFlow's chief makes without one).
            assert ready >= at_kill // 2, f"the restarted chief began at global step {ready}"
        what = f"worker {i} killed and restarted (ready at {ready})"
        if frozen_ps is not None:
            what += f" while ps {frozen_ps} was frozen"
        self.progress_after(what)

    def report(self) -> str:
        lines = list(self.log)
        for w in self.workers:
            lines.append(f"--- worker {w.index} (run {w.generation}):\n{w.output()[-1500:]}")
        return "\n".join(lines)


@pytest.fixture
def chaos(tmp_path: os.PathLike) -> Iterator[Chaos]:
    ports = free_ports(NUM_PS + NUM_WORKERS)
    ps_ports, worker_ports = ports[:NUM_PS], ports[NUM_PS:]
    flag = cluster_flag({"ps": ps_ports, "worker": worker_ports})
    cluster = Cluster()
    workers: list[Worker] = []
    try:
        server = [
            sys.executable,
            "-m",
            "tfcluster.cli.server_main",
            f"--heartbeat_seconds={HEARTBEAT_SECS}",
        ]
        ps = [
            cluster.add(TaskProcess(flag, "ps", i, p, command=server))
            for i, p in enumerate(ps_ports)
        ]
        for t in ps:
            t.wait_serving(60)
        args = [
            "--ps_hosts=" + ",".join(f"localhost:{p}" for p in ps_ports),
            "--worker_hosts=" + ",".join(f"localhost:{p}" for p in worker_ports),
            "--step_sleep=0.002",
            f"--checkpoint_dir={tmp_path}/checkpoints",
        ]
        workers = [Worker(args, i, str(tmp_path)) for i in range(NUM_WORKERS)]
        yield Chaos(ps, workers)
    finally:
        for t in cluster.tasks:
            if t.proc.poll() is None:
                t.proc.send_signal(signal.SIGCONT)
        for w in workers:
            w.stop()
        cluster.close()


def disturb(chaos: Chaos, round_no: int) -> None:
    """One round: worker freezes, worker kills (the chief's too, some while a ps is frozen),
    then ps freezes."""
    chaos.freeze_worker(1)
    chaos.kill_and_restart_worker(2)
    chaos.kill_and_restart_worker(1, frozen_ps=0)
    chaos.freeze_worker(0)
    chaos.kill_and_restart_worker(0)
    chaos.kill_and_restart_worker(0, frozen_ps=1)
    chaos.freeze_worker(2)
    # Last, with no restart after them: what the ps freezes leave behind in the workers
    # (connections to the other ps, each with a thread there) adds up.
    for i in (1, 0, 1, 0):
        chaos.freeze_ps(i)
    chaos.progress_after(f"the last disturbance of round {round_no}")


def test_async_training_survives_freezes_and_restarts_with_bounded_ps_resources(
    chaos: Chaos,
) -> None:
    sampler = Sampler({f"ps{t.index}": t.proc.pid for t in chaos.ps})
    try:
        for w in chaos.workers:
            chaos.wait_until(
                f"worker {w.index} stepping", lambda w=w: len(w.global_steps()) > 1, 120
            )
        time.sleep(WARM_UP_SECS)
        chaos.progress_after("warm-up")
        warm = time.monotonic()

        rounds = []
        for round_no in (1, 2):
            disturb(chaos, round_no)
            rounds.append(time.monotonic())
        chaos.check_nothing_died()
    finally:
        sampler.close()

    print("\n".join(chaos.log))
    # Every worker stops cleanly when asked.
    for w in chaos.workers:
        assert w.stop() == 0, w.output()[-3000:]
        assert "STOPPED" in w.output()
    for t in chaos.ps:
        assert t.proc.poll() is None, t.stderr()[-3000:]

    end1, end2 = rounds
    for name in sampler.pids:
        first = [s for s in sampler.since(name, warm) if s.at < end1]
        second = sampler.since(name, end1)
        assert len(first) >= 5 and len(second) >= 5, f"{name}: too few samples"
        rss0 = max(s.rss_mb for s in first[:3])
        threads1 = max(s.threads for s in first)
        fds1 = max(s.fds for s in first)
        late = [s for s in second if s.at >= end2 - 3.0] or second[-2:]
        figures = (
            f"{name}: warm rss {rss0:.0f} MB; first round peak threads {threads1}, "
            f"fds {fds1}; second round peak rss "
            f"{max(s.rss_mb for s in first + second):.0f} MB, threads "
            f"{max(s.threads for s in second)}, fds {max(s.fds for s in second)}; at the end "
            f"rss {late[-1].rss_mb:.0f} MB, threads {late[-1].threads}, fds {late[-1].fds}\n"
            f"{chaos.report()}"
        )
        print(figures.splitlines()[0])
        assert max(s.rss_mb for s in first + second) - rss0 < RSS_GROWTH_MB, figures
        assert max(s.threads for s in late) - threads1 <= THREAD_SLACK, figures
        assert max(s.fds for s in late) - fds1 <= FD_SLACK, figures
