"""How a task server guards itself against frozen peers and hostile or greedy callers: the
settings a program gives tf.train.Server(options=...) and `tfcluster-server` takes as flags.
Every default suits a production task; tests pass short ones."""

from __future__ import annotations

from dataclasses import dataclass

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

    def __post_init__(self) -> None:
        if not self.heartbeat_seconds > 0:
            raise ValueError(f"heartbeat_seconds must be positive, got {self.heartbeat_seconds}")
        if self.max_work_calls < 1:
            raise ValueError(f"max_work_calls must be at least 1, got {self.max_work_calls}")
        if self.memory_budget_bytes is not None and self.memory_budget_bytes <= 0:
            raise ValueError(
                f"memory_budget_bytes must be positive, got {self.memory_budget_bytes}"
            )
