"""tf.train.Coordinator: lets threads stop together and report the first exception."""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from tfcluster.framework import errors

_log = logging.getLogger("tensorflow")


class Coordinator:
    def __init__(self, clean_stop_exception_types: Sequence[type] | None = None) -> None:
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise: Any = None
        self._joined = False
        self._registered_threads: set[threading.Thread] = set()

    def _filter_exception(self, ex: Any) -> Any:
        """ex (an exception or an exc_info tuple), or None when it is a clean stop."""
        value = ex[1] if isinstance(ex, tuple) else ex
        return None if isinstance(value, self._clean_stop_exception_types) else ex

    def request_stop(self, ex: Any = None) -> None:
        """Asks every thread to stop. As TF's: the first real exception given before any stop
        request is kept to re-raise from join() and logged at INFO ("Error reported to
        Coordinator: ..."); after join() an exception given is raised at once."""
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                if isinstance(ex, tuple):
                    raise ex[1].with_traceback(ex[2])
                if ex is not None:
                    raise sys.exc_info()[1] or ex
            if not self._stop_event.is_set():
                if ex is not None and self._exc_info_to_raise is None:
                    if isinstance(ex, tuple):
                        _log.info("Error reported to Coordinator: %s", str(ex[1]), exc_info=ex)
                        self._exc_info_to_raise = ex
                    else:
                        _log.info("Error reported to Coordinator: %s, %s", type(ex), str(ex))
                        self._exc_info_to_raise = (type(ex), ex, ex.__traceback__)
                self._stop_event.set()

    def clear_stop(self) -> None:
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._stop_event.clear()

    def should_stop(self) -> bool:
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self) -> Iterator[None]:
        try:
            yield
        except BaseException:
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout: float | None = None) -> bool:
        return self._stop_event.wait(timeout)

    def register_thread(self, thread: threading.Thread) -> None:
        with self._lock:
            self._registered_threads.add(thread)

    def join(
        self,
        threads: Sequence[threading.Thread] | None = None,
        stop_grace_period_secs: float = 120,
        ignore_live_threads: bool = False,
    ) -> None:
        """Waits for the threads to stop (after request_stop); re-raises a recorded error."""
        with self._lock:
            all_threads = set(self._registered_threads) | set(threads or ())
        while any(t.is_alive() for t in all_threads) and not self.wait_for_stop(1.0):
            pass
        deadline = time.monotonic() + stop_grace_period_secs
        for t in all_threads:
            t.join(max(0.0, deadline - time.monotonic()))
        alive = [t.name for t in all_threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            exc_info = self._exc_info_to_raise
        if exc_info is not None:
            raise exc_info[1].with_traceback(exc_info[2])
        if alive and not ignore_live_threads:
            raise RuntimeError(f"Coordinator stopped with threads still running: {' '.join(alive)}")

    @property
    def joined(self) -> bool:
        return self._joined

    def raise_requested_exception(self) -> None:
        with self._lock:
            exc_info = self._exc_info_to_raise
        if exc_info is not None:
            raise exc_info[1].with_traceback(exc_info[2])


class LooperThread(threading.Thread):
    """Runs `target` (or an overridden run_loop) every `timer_interval_secs`, or back to back
    when that is None, until the coordinator says stop; an exception stops the coordinator."""

    def isAlive(self) -> bool:
        """Thread.is_alive under its old name (gone from Python 3.9's threading)."""
        return self.is_alive()

    def __init__(
        self,
        coord: Coordinator,
        timer_interval_secs: float | None,
        target: Any = None,
        args: Sequence[Any] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord}")
        super().__init__(daemon=True)
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target_fn = target
        if target:
            self._args = tuple(args or ())
            self._kwargs = dict(kwargs or {})
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        coord.register_thread(self)

    @staticmethod
    def loop(
        coord: Coordinator,
        timer_interval_secs: float | None,
        target: Any,
        args: Sequence[Any] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> LooperThread:
        """Starts a LooperThread that calls target(*args, **kwargs) periodically."""
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self) -> None:
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                # Calls fall on a fixed grid from the start (the first one at once), however
                # long each takes.
                next_time = time.time()
                while not self._coord.wait_for_stop(max(0.0, next_time - time.time())):
                    next_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self) -> None:
        """Called when the thread starts."""

    def stop_loop(self) -> None:
        """Called when the thread stops."""

    def run_loop(self) -> None:
        """Called at each timer boundary."""
        if self._target_fn:
            self._target_fn(*self._args, **self._kwargs)


__all__ = ["Coordinator", "LooperThread"]
