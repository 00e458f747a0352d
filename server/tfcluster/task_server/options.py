"""How a task server guards itself against frozen peers and hostile or greedy callers: the
settings a program gives tf.train.Server(options=...) and `tfcluster-server` takes as flags.
Every default suits a production task; tests pass short ones."""

from __future__ import annotations

from dataclasses import dataclass

from tfcluster.distributed.master_session import DEFAULT_MAX_PLANS
from tfcluster.distributed.worker import DEFAULT_MAX_UNRUN_STEPS, DEFAULT_ORPHAN_SECONDS
from tfcluster.rpc.direct.server import DEFAULT_HEARTBEAT
from tfcluster.task_server.call_limits import DEFAULT_MAX_WORK_CALLS


@dataclass(frozen=True)
class ServerOptions:
    # Seconds between the heartbeats a task writes on each direct connection: a peer that
    # hears none for wire.HEARTBEATS_MISSED of them fails its call with UnavailableError.
    heartbeat_seconds: float = DEFAULT_HEARTBEAT
    # The most memory a request may make the task hold (framework/memory_budget.py); None:
    # the container's memory limit, else the machine's RAM. It is the process's: the last
    # server made in a process sets it.
    memory_budget_bytes: int | None = None
    # How many calls that run steps or wait for tensors (streams included, idle or not) the
    # task serves at once over gRPC; more get RESOURCE_EXHAUSTED, and health checks and
    # control calls always have threads of their own (task_server/call_limits.py).
    max_work_calls: int = DEFAULT_MAX_WORK_CALLS
    # A master session with no step for this long is closed and its graphs deleted on every
    # task (its client died or forgot to close it); 0 keeps sessions until closed. A day by
    # default: a client idle longer gets AbortedError (MonitoredSession makes a new one).
    session_gc_seconds: float = 24 * 3600.0
    # The plans (distinct feeds/fetches/targets) a session keeps registered on the workers;
    # the least recently used go first.
    max_plans_per_session: int = DEFAULT_MAX_PLANS
    # Seconds a tensor exchanged between tasks waits for its step to run here, or, once the
    # step finished here, for its receiver: then the step's table is dropped.
    orphan_tensor_seconds: float = DEFAULT_ORPHAN_SECONDS
    # How many steps that have not run here may have receivers waiting here.
    max_unrun_steps: int = DEFAULT_MAX_UNRUN_STEPS

    def __post_init__(self) -> None:
        if not self.heartbeat_seconds > 0:
            raise ValueError(f"heartbeat_seconds must be positive, got {self.heartbeat_seconds}")
        if self.max_work_calls < 1:
            raise ValueError(f"max_work_calls must be at least 1, got {self.max_work_calls}")
        if self.session_gc_seconds < 0:
            raise ValueError(f"session_gc_seconds must be >= 0, got {self.session_gc_seconds}")
        if self.max_plans_per_session < 1:
            raise ValueError(
                f"max_plans_per_session must be at least 1, got {self.max_plans_per_session}"
            )
        if not self.orphan_tensor_seconds > 0:
            raise ValueError(
                f"orphan_tensor_seconds must be positive, got {self.orphan_tensor_seconds}"
            )
        if self.max_unrun_steps < 1:
            raise ValueError(f"max_unrun_steps must be at least 1, got {self.max_unrun_steps}")
        if self.memory_budget_bytes is not None and self.memory_budget_bytes <= 0:
            raise ValueError(
                f"memory_budget_bytes must be positive, got {self.memory_budget_bytes}"
            )
