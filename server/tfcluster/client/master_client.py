"""How a session reaches a master: in-process for '', over gRPC for 'grpc://host:port'.

Transports register a factory by URL scheme; the gRPC one lives in tfcluster.rpc and is
imported only when a 'grpc://' target is used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from tfcluster.distributed.interfaces import DeviceInfo, MasterInterface
from tfcluster.distributed.local import close_local_master, new_local_master
from tfcluster.framework import dtypes
from tfcluster.protos import config_pb2, step_stats_pb2
from tfcluster.runtime import thread_budget
from tfcluster.runtime.graph_ir import Node


class MasterClient(Protocol):
    def create_session(
        self, nodes: Sequence[Node], output_dtypes: Mapping[str, dtypes.DType], config: Any
    ) -> str: ...

    def extend_session(
        self, handle: str, nodes: Sequence[Node], output_dtypes: Mapping[str, dtypes.DType]
    ) -> None: ...

    def run_step(
        self,
        handle: str,
        feeds: Mapping[str, Any],
        fetches: Sequence[str],
        targets: Sequence[str],
        options: config_pb2.RunOptions | None,
    ) -> tuple[list[Any], step_stats_pb2.StepStats | None]: ...

    def close_session(self, handle: str) -> None: ...

    def list_devices(self) -> list[DeviceInfo]: ...

    def reset(self, containers: Sequence[str]) -> None: ...

    def release(self) -> None: ...


class InProcessMasterClient:
    """Calls a master of this process directly: no serialisation, which keeps local steps
    cheap (its methods are the master's own bound methods: no call in between)."""

    def __init__(
        self, master: MasterInterface, on_release: Callable[[], None] | None = None
    ) -> None:
        self._master = master
        self._on_release = on_release
        self.create_session = master.create_session
        self.extend_session = master.extend_session
        self.run_step = master.run_step
        self.close_session = master.close_session
        self.reset = master.reset

    def list_devices(self) -> list[DeviceInfo]:
        return self._master.list_devices()

    def release(self) -> None:
        if self._on_release is not None:
            self._on_release()


_FACTORIES: dict[str, Callable[[str, Any], MasterClient]] = {}
_LAZY_MODULES = {"grpc": "tfcluster.rpc.master_client"}


def register_target_scheme(scheme: str, factory: Callable[[str, Any], MasterClient]) -> None:
    _FACTORIES[scheme] = factory


def master_for_target(target: str, config: Any = None) -> MasterClient:
    if not target:
        _size_local_pools(config)
        cpus = dict(config.device_count).get("CPU", 1) if config is not None else 1
        master = new_local_master(cpus)
        return InProcessMasterClient(master, on_release=lambda: close_local_master(master))
    scheme, sep, _ = target.partition("://")
    if not sep:
        raise ValueError(
            f"Invalid session target '{target}': expected '' (local) or 'grpc://host:port'"
        )
    if scheme not in _FACTORIES and scheme in _LAZY_MODULES:
        importlib.import_module(_LAZY_MODULES[scheme])
    factory = _FACTORIES.get(scheme)
    if factory is None:
        raise ValueError(f"No session factory registered for the given target '{target}'")
    return factory(target, config)


def _size_local_pools(config: Any) -> None:
    """A local session's ConfigProto sizes the process's pools, as TensorFlow's DirectSession
    sizes its CPU device's; without thread settings the budget in force stays (a server of
    this process may have set it), or the default is applied."""
    intra = getattr(config, "intra_op_parallelism_threads", 0)
    inter = getattr(config, "inter_op_parallelism_threads", 0)
    if intra > 0 or inter > 0:
        current = thread_budget.current()
        thread_budget.configure(
            intra if intra > 0 else current.intra,
            inter if inter > 0 else current.inter,
            source="session config",
        )
    else:
        thread_budget.ensure_default()
