"""The contracts between clients, masters and workers, free of any transport.

An in-process worker implements WorkerInterface directly; the gRPC client implements it
by converting to and from protos. The master only ever sees this interface. A transport
that can relay tensors without decoding them says so explicitly: its worker client is a
ForwardingWorker, and its master service passes a StepRelay with the step.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tfcluster.framework import dtypes
from tfcluster.protos import config_pb2, step_stats_pb2
from tfcluster.runtime.graph_ir import Node
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

    def nbytes(self) -> int:
        """Bytes of the tensors' contents, as their descriptions say (nothing is read)."""
        ...


@dataclass(frozen=True)
class StepRelay:
    """A relaying transport's part in one step: it takes the fetched tensors undecoded
    (ForwardedTensors) when the step's only partition runs on another task, and may hand
    over the feeds undecoded (`feeds`, named by `feed_names` in payload order). `reader`
    is the transport's name for where the relayed fetches go in the end (the client's
    host), which the worker's transport uses to choose how to send them."""

    feed_names: tuple[str, ...] = ()
    feeds: ForwardedTensors | None = None
    reader: str = ""


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

    def create_worker_session(
        self, session_handle: str, cluster: Mapping[str, str], deadline: float | None = None
    ) -> None:
        """Tells the worker the addresses of the tasks the session's master knows (task name
        -> host:port), so that it reaches peers outside its own cluster spec."""
        ...

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


class ForwardingWorker(abc.ABC):
    """A worker whose transport can leave a partition's fetched tensors in transit, for a
    master to relay to its client undecoded, and take relayed tensors as feeds. Transports
    opt in by subclassing this (besides implementing WorkerInterface)."""

    @abc.abstractmethod
    def run_graph(
        self,
        session_handle: str,
        graph_handle: str,
        step_id: int,
        feeds: Sequence[Any] | ForwardedTensors,
        trace: bool = False,
        deadline: float | None = None,
    ) -> RunGraphResult:
        """WorkerInterface.run_graph, whose feeds may be relayed tensors."""

    @abc.abstractmethod
    def run_graph_forward(
        self,
        session_handle: str,
        graph_handle: str,
        step_id: int,
        feeds: Sequence[Any] | ForwardedTensors,
        deadline: float | None = None,
        reader: str = "",
    ) -> RunGraphResult:
        """RunGraph whose result has `forwarded` set instead of `fetches`: the caller relays
        or reads them before its thread's next call to this worker. `feeds` may be relayed
        tensors too. `reader`: StepRelay.reader of the step."""


class PendingRunGraph(Protocol):
    """A RunGraph sent by the calling thread whose result it reads later (PipelinedWorker)."""

    def result(self) -> RunGraphResult:
        """Reads the result (blocks until the worker answers); raises the step's error."""
        ...

    def answered(self) -> bool:
        """Whether the answer is here (result() will not wait for the worker)."""
        ...

    def fileno(self) -> int:
        """A descriptor that turns readable when the worker answers (for poll)."""
        ...

    def abandon(self) -> None:
        """The result will never be read (the step failed here first)."""
        ...


class ReservedRunGraph(Protocol):
    """A call kept for one step's RunGraph, sent later (PipelinedWorker.reserve_run_graph)."""

    def start(
        self,
        session_handle: str,
        graph_handle: str,
        step_id: int,
        feeds: Sequence[Any],
        pushed: Sequence[tuple[str, Any]],
        trace: bool = False,
        deadline: float | None = None,
    ) -> PendingRunGraph:
        """Sends the request with `pushed` (rendezvous key, value) tensors besides the feeds:
        the partition receives them from its own table, not from their task (see
        runtime/early_sends.py). Raises the step's error if it cannot be sent."""
        ...

    def release(self) -> None:
        """The RunGraph will not be sent: the call goes back to the worker's idle ones."""
        ...


class PipelinedWorker(abc.ABC):
    """A worker whose transport can send RunGraph from the calling thread and read its answer
    there later: a master sends a step's partitions to their tasks, runs its own partition,
    then reads their answers, with no other thread in between (each hand-off between threads
    waits for the GIL). Transports opt in by subclassing this (besides WorkerInterface)."""

    @abc.abstractmethod
    def start_run_graph(
        self,
        session_handle: str,
        graph_handle: str,
        step_id: int,
        feeds: Sequence[Any],
        trace: bool = False,
        deadline: float | None = None,
    ) -> PendingRunGraph | None:
        """Sends the request; raises the step's error if it cannot be sent. None: the
        transport cannot now (nothing was sent; run_graph it is)."""

    @abc.abstractmethod
    def reserve_run_graph(self, deadline: float | None = None) -> ReservedRunGraph | None:
        """A call for a RunGraph this thread or another sends later; None as start_run_graph."""


class ServedWorker(WorkerInterface, Protocol):
    """What a worker service asks of the worker it serves, beyond WorkerInterface."""

    def run_graph(
        self,
        session_handle: str,
        graph_handle: str,
        step_id: int,
        feeds: Sequence[Any],
        trace: bool = False,
        deadline: float | None = None,
        pushed: Sequence[tuple[str, Any]] = (),
    ) -> RunGraphResult:
        """WorkerInterface.run_graph; `pushed`: (rendezvous key, value) tensors the master
        sent with the request, which the partition receives from its own table."""
        ...

    @property
    def task(self) -> str: ...

    @property
    def orphan_recv_timeout(self) -> float:
        """Seconds a RecvTensor for a step that never runs here waits before it fails."""
        ...

    def step_known(self, step_id: int) -> bool: ...

    def collective_join(self, part: Any, deadline: float | None, check: Any = None) -> Any:
        """Serves a member of a collective group that meets on this task (its leader)."""
        ...

    def abandon_recv(self, step_id: int) -> None: ...


class WorkerCacheInterface(Protocol):
    """Finds the worker for a task name ('/job:J/replica:0/task:T')."""

    def tasks(self) -> list[str]: ...

    def worker(self, task: str) -> WorkerInterface: ...

    def is_local(self, task: str) -> bool: ...

    def addresses(self) -> dict[str, str]:
        """Task name -> address of every task this cache dials (empty in-process)."""
        ...

    def learn_peers(self, addresses: Mapping[str, str]) -> None:
        """Addresses of tasks outside this task's cluster spec, told by a session's master."""
        ...


class MasterInterface(Protocol):
    """A master as sessions and the master service use it (the Master, or a wrapper)."""

    @property
    def local_task(self) -> str: ...

    def create_session(
        self,
        nodes: Sequence[Node],
        output_dtypes: Mapping[str, dtypes.DType],
        config: config_pb2.ConfigProto | None = None,
    ) -> str: ...

    def extend_session(
        self, handle: str, nodes: Sequence[Node], output_dtypes: Mapping[str, dtypes.DType]
    ) -> None: ...

    def graph_version(self, handle: str) -> int: ...

    def run_step(
        self,
        handle: str,
        feeds: Mapping[str, Any],
        fetches: Sequence[str],
        targets: Sequence[str],
        options: config_pb2.RunOptions | None = None,
    ) -> tuple[list[Any], step_stats_pb2.StepStats | None]:
        """The fetched values, and the step's stats when its options asked for a trace."""
        ...

    def run_step_relayed(
        self,
        handle: str,
        feeds: Mapping[str, Any],
        fetches: Sequence[str],
        targets: Sequence[str],
        options: config_pb2.RunOptions | None,
        relay: StepRelay,
    ) -> tuple[list[Any] | ForwardedTensors, step_stats_pb2.StepStats | None]:
        """run_step for a transport that relays tensors: the fetches may come back as
        ForwardedTensors, and `relay.feeds` may stand for `feeds`."""
        ...

    def close_session(self, handle: str) -> None: ...

    def list_devices(self, timeout: float | None = None) -> list[DeviceInfo]: ...

    def reset(self, containers: Sequence[str]) -> None: ...
