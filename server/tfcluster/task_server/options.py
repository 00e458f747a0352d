"""How a task server guards itself against frozen peers and hostile or greedy callers: the
settings a program gives tf.train.Server(options=...) and `tfcluster-server` takes as flags.
Every default suits a production task; tests pass short ones."""

from __future__ import annotations

from dataclasses import dataclass

from tfcluster.rpc.direct.server import DEFAULT_HEARTBEAT


@dataclass(frozen=True)
class ServerOptions:
    # Seconds between the heartbeats a task writes on each direct connection: a peer that
    # hears none for wire.HEARTBEATS_MISSED of them fails its call with UnavailableError.
    heartbeat_seconds: float = DEFAULT_HEARTBEAT
    # The most memory a request may make the task hold (framework/memory_budget.py); None:
    # the container's memory limit, else the machine's RAM. It is the process's: the last
    # server made in a process sets it.
    memory_budget_bytes: int | None = None

    def __post_init__(self) -> None:
        if not self.heartbeat_seconds > 0:
            raise ValueError(f"heartbeat_seconds must be positive, got {self.heartbeat_seconds}")
        if self.memory_budget_bytes is not None and self.memory_budget_bytes <= 0:
            raise ValueError(
                f"memory_budget_bytes must be positive, got {self.memory_budget_bytes}"
            )
