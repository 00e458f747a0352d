"""The contracts between master and workers, free of any transport.

An in-process worker implements WorkerInterface directly; the gRPC client implements it
by converting to and from protos. The master only ever sees this interface.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tfcluster.runtime.partition import Partition


@dataclass(frozen=True)
class DeviceInfo:
    name: str
    device_type: str
    memory_limit: int = 0
    incarnation: int = 0


class ForwardedTensors(Protocol):
    """Tensors a master relays between a client and a worker without decoding them (their
    bytes stay in transit, streamed through as they arrive). A transport provides them."""

    metas: list[Any]  # TensorMeta protos, in payload order

    def materialize(self) -> list[Any]:
        """The tensors as arrays (reads what is still in transit)."""
        ...

    def signatures(self) -> list[tuple[Any, tuple[int, ...]]]:
        """(numpy dtype, shape) of each tensor, as its description says."""
        ...

    def drain(self) -> None:
        """Reads and drops what is still in transit (the step did not use it)."""
        ...


@dataclass
class RunGraphResult:
    fetches: list[Any]
    step_stats: list[Any] = field(default_factory=list)  # DeviceStepStats protos
    # Set instead of `fetches` when the transport relays the fetched tensors undecoded.
    forwarded: ForwardedTensors | None = None


class WorkerInterface(Protocol):
    def get_status(self, timeout: float | None = None) -> list[DeviceInfo]: ...

    def register_graph(
        self, session_handle: str, partition: Partition, deadline: float | None = None
    ) -> str: ...

    def deregister_graph(self, session_handle: str, graph_handle: str) -> None: ...

    def run_graph(
        self,
        session_handle: str,
        graph_handle: str,
        step_id: int,
        feeds: Sequence[Any],
        trace: bool = False,
        deadline: float | None = None,
    ) -> RunGraphResult: ...

    def abort_step(self, step_id: int, error: BaseException) -> None: ...

    def cleanup_graph(self, step_id: int) -> None: ...

    def cleanup_all(self, containers: Sequence[str]) -> None: ...

    def delete_worker_session(self, session_handle: str) -> None: ...

    def recv_tensor(
        self,
        step_id: int,
        key: str,
        callback: Callable[[Any, BaseException | None], None],
        deadline: float | None = None,
    ) -> Callable[[], Any] | None:
        """Calls `callback(value, error)` once the step has sent `key`; may return a function
        that cancels the wait (the receiving step was aborted)."""
        ...


class WorkerCacheInterface(Protocol):
    """Finds the worker for a task name ('/job:J/replica:0/task:T')."""

    def tasks(self) -> list[str]: ...

    def worker(self, task: str) -> WorkerInterface: ...

    def is_local(self, task: str) -> bool: ...
