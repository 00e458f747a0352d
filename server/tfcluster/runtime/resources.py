"""Per-worker state that outlives steps: containers of variables, queues and accumulators."""

from __future__ import annotations

import itertools
import threading
from typing import Any

import numpy as np

from tfcluster.framework import errors

DEFAULT_CONTAINER = ""
# TF numbers a kernel's private resources (`_<id>_<node>`) from one counter for the whole
# process, across sessions and workers.
_PRIVATE_IDS = itertools.count()


class VariableRef:
    """A variable's buffer. Assignments swap in a new array, so reads are consistent snapshots."""

    __slots__ = ("dtype", "generation", "lock", "name", "shape", "value", "writes", "writes_lock")

    def __init__(self, name: str, dtype: Any, shape: Any) -> None:
        self.name = name
        self.dtype = dtype
        self.shape = shape
        self.value: Any = None
        self.lock = threading.Lock()  # use_locking's lock
        self.generation = 0
        # Sparse updates writing `value` in place now: (id of that array, how many); see
        # kernels/in_place.py.
        self.writes: tuple[int, int] | None = None
        self.writes_lock = threading.Lock()

    def read(self, node_name: str) -> Any:
        value = self.value
        if value is None:
            error = errors.FailedPreconditionError(
                None,
                None,
                f"Attempting to use uninitialized value {self.name}\n\t "
                f"[[{{{{node {node_name}}}}}]]",
            )
            # The node named may be a forwarded read's Identity, not the step that read:
            # executor.with_node leaves the message as it is.
            error.names_its_node = True  # type: ignore[attr-defined]
            raise error
        return value

    @property
    def initialized(self) -> bool:
        return self.value is not None

    def nbytes(self) -> int:
        v = self.value
        return int(getattr(v, "nbytes", 0)) if v is not None else 0


class ResourceMgr:
    """Containers (by name) of named resources. The default container is shared by all sessions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._containers: dict[str, dict[str, Any]] = {}
        # Bumped by cleanup so sessions holding old resources can notice they are gone.
        self.generation = 0

    def unique_id(self) -> int:
        """A fresh number for a resource private to one kernel (TF names it `_<id>_<node>`)."""
        return next(_PRIVATE_IDS)

    def lookup_or_create(self, container: str, name: str, factory: Any) -> Any:
        c = self._containers.get(container)
        if c is not None:
            r = c.get(name)
            if r is not None:
                return r
        with self._lock:
            c = self._containers.setdefault(container, {})
            r = c.get(name)
            if r is None:
                r = factory()
                c[name] = r
            return r

    def variable(self, container: str, name: str, dtype: Any, shape: Any) -> VariableRef:
        c = self._containers.get(container)
        if c is not None:
            r = c.get(name)
            if r is not None:
                return r  # type: ignore[no-any-return]
        return self.lookup_or_create(container, name, lambda: VariableRef(name, dtype, shape))  # type: ignore[no-any-return]

    def get(self, container: str, name: str) -> Any:
        """The resource kept under that name, or None (no lock: one dict read)."""
        c = self._containers.get(container)
        return None if c is None else c.get(name)

    def lookup(self, container: str, name: str) -> Any:
        c = self._containers.get(container)
        if c is None or name not in c:
            raise errors.NotFoundError(None, None, f"Resource {container}/{name} does not exist.")
        return c[name]

    def remove(self, container: str, name: str, resource: Any) -> bool:
        """Drops `resource` (closing it) if it is still the one kept under that name: a
        private resource whose owner (a kernel of a closed session) is gone."""
        with self._lock:
            c = self._containers.get(container)
            if c is None or c.get(name) is not resource:
                return False
            del c[name]
        close = getattr(resource, "close", None)
        if callable(close):
            close(cancel_pending_enqueues=True)
        return True

    def cleanup(self, containers: list[str] | None = None) -> None:
        """Drops the named containers (all when None or empty), as Session.reset does."""
        with self._lock:
            if not containers:
                dropped = list(self._containers.values())
                self._containers.clear()
            else:
                dropped = [self._containers.pop(c) for c in containers if c in self._containers]
            self.generation += 1
        for c in dropped:
            for r in c.values():
                close = getattr(r, "close", None)
                if callable(close):
                    close(cancel_pending_enqueues=True)

    def containers(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {k: dict(v) for k, v in self._containers.items()}

    def variable_stats(self) -> dict[str, tuple[int, int]]:
        """container -> (number of variables, bytes), for metrics."""
        out: dict[str, tuple[int, int]] = {}
        for name, c in self.containers().items():
            vs = [r for r in c.values() if isinstance(r, VariableRef)]
            out[name] = (len(vs), sum(v.nbytes() for v in vs))
        return out


def nbytes_of(value: Any) -> int:
    return int(value.nbytes) if isinstance(value, np.ndarray) else 0
