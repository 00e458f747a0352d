"""tf.train.SessionManager: make a session whose model is ready (restored, initialized, or
initialized by someone else), as TF1's session_manager.py does."""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any

import numpy as np

from tfcluster.client.session import Session
from tfcluster.framework import errors
from tfcluster.framework.graph import Graph, get_default_graph
from tfcluster.training import checkpoint_management

_log = logging.getLogger("tensorflow")


def _maybe_name(obj: Any) -> str:
    if obj is None:
        return "None"
    return str(getattr(obj, "name", obj))


def _ready(op: Any, sess: Any, msg: str) -> tuple[bool, str | None]:
    """(True, None) when `op` (a report of uninitialized things) comes back empty."""
    if op is None:
        return True, None
    try:
        value = sess.run(op)
    except errors.FailedPreconditionError as e:
        if "uninitialized" not in str(e):
            _log.warning("%s: %s", msg, e)
            raise
        return False, str(e)
    if value is None or np.asarray(value).dtype == np.int32 or np.asarray(value).size == 0:
        return True, None
    names = ", ".join(v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in value)
    return False, "Variables not initialized: " + names


class SessionManager:
    def __init__(
        self,
        local_init_op: Any = None,
        ready_op: Any = None,
        ready_for_local_init_op: Any = None,
        graph: Graph | None = None,
        recovery_wait_secs: float = 30,
        local_init_run_options: Any = None,
        *,  # TF 2.x's option, beyond TF 1.15's signature
        local_init_feed_dict: Any = None,
    ) -> None:
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph if graph is not None else get_default_graph()
        self._recovery_wait_secs = recovery_wait_secs
        self._local_init_run_options = local_init_run_options
        self._local_init_feed_dict = local_init_feed_dict
        self._target: str | None = None
        if ready_for_local_init_op is not None and local_init_op is None:
            raise ValueError(
                f"If you pass a ready_for_local_init_op you must also pass a local_init_op , "
                f"ready_for_local_init_op [{ready_for_local_init_op}]"
            )

    def _new_session(self, master: str, config: Any) -> Any:
        return Session(master, graph=self._graph, config=config)

    def _restore_checkpoint(
        self,
        master: str,
        saver: Any = None,
        checkpoint_dir: str | None = None,
        checkpoint_filename_with_path: str | None = None,
        wait_for_checkpoint: bool = False,
        max_wait_secs: float = 7200,
        config: Any = None,
    ) -> tuple[Any, bool]:
        self._target = master
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError(
                "Can not provide both checkpoint_dir and checkpoint_filename_with_path."
            )
        sess = self._new_session(master, config)
        if not saver or not (checkpoint_dir or checkpoint_filename_with_path):
            return sess, False
        try:
            if checkpoint_filename_with_path:
                saver.restore(sess, checkpoint_filename_with_path)
                return sess, True
            assert checkpoint_dir is not None
            wait_time = 0.0
            path = checkpoint_management.latest_checkpoint(checkpoint_dir)
            while path is None:
                if not wait_for_checkpoint or wait_time >= max_wait_secs:
                    return sess, False
                _log.info("Waiting for checkpoint to be available.")
                time.sleep(self._recovery_wait_secs)
                wait_time += self._recovery_wait_secs
                path = checkpoint_management.latest_checkpoint(checkpoint_dir)
            saver.restore(sess, path)
            state = checkpoint_management.get_checkpoint_state(checkpoint_dir)
            if state is not None:
                saver.recover_last_checkpoints(state.all_model_checkpoint_paths)
            return sess, True
        except BaseException:
            _safe_close(sess)
            raise

    def prepare_session(
        self,
        master: str,
        init_op: Any = None,
        saver: Any = None,
        checkpoint_dir: str | None = None,
        checkpoint_filename_with_path: str | None = None,
        wait_for_checkpoint: bool = False,
        max_wait_secs: float = 7200,
        config: Any = None,
        init_feed_dict: Any = None,
        init_fn: Any = None,
    ) -> Any:
        """A session with the model restored from the latest checkpoint, else initialized."""
        sess, loaded = self._restore_checkpoint(
            master,
            saver,
            checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint,
            max_wait_secs=max_wait_secs,
            config=config,
        )
        try:
            if not loaded:
                if init_op is None and not init_fn and self._local_init_op is None:
                    raise RuntimeError(
                        "Model is not initialized and no init_op or init_fn or local_init_op "
                        "was given"
                    )
                if init_op is not None:
                    sess.run(init_op, feed_dict=init_feed_dict)
                if init_fn:
                    init_fn(sess)
            ok, msg = self._try_run_local_init_op(sess)
            if not ok:
                raise RuntimeError(
                    f"Init operations did not make model ready for local_init.  Init op: "
                    f"{_maybe_name(init_op)}, init fn: {init_fn}, error: {msg}"
                )
            ready, msg = self._model_ready(sess)
            if not ready:
                raise RuntimeError(
                    f"Init operations did not make model ready.  Init op: {_maybe_name(init_op)}, "
                    f"init fn: {init_fn}, local_init_op: {self._local_init_op}, error: {msg}"
                )
        except BaseException:
            _safe_close(sess)
            raise
        return sess

    def recover_session(
        self,
        master: str,
        saver: Any = None,
        checkpoint_dir: str | None = None,
        checkpoint_filename_with_path: str | None = None,
        wait_for_checkpoint: bool = False,
        max_wait_secs: float = 7200,
        config: Any = None,
    ) -> tuple[Any, bool]:
        """(session, is_ready): restores if it can; ready only if the model is then usable."""
        sess, loaded = self._restore_checkpoint(
            master,
            saver,
            checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint,
            max_wait_secs=max_wait_secs,
            config=config,
        )
        ok, _ = self._try_run_local_init_op(sess)
        if not loaded:
            return sess, False
        if not ok:
            return sess, False
        ready, msg = self._model_ready(sess)
        if not ready:
            _log.info("Restoring model from %s did not make model ready: %s", checkpoint_dir, msg)
            return sess, False
        return sess, True

    def wait_for_session(
        self, master: str, config: Any = None, max_wait_secs: float | None = float("inf")
    ) -> Any:
        """Waits (polling every recovery_wait_secs) until someone else made the model ready."""
        self._target = master
        if max_wait_secs is None:
            max_wait_secs = float("inf")
        deadline = time.monotonic() + max_wait_secs
        while True:
            sess = self._new_session(master, config)
            not_ready_msg = None
            try:
                ok, not_ready_local_msg = self._try_run_local_init_op(sess)
                if ok:
                    ready, not_ready_msg = self._model_ready(sess)
                    if ready:
                        return sess
            except BaseException:
                _safe_close(sess)
                raise
            _safe_close(sess)
            if deadline - time.monotonic() - self._recovery_wait_secs < 0:
                waited = "inf" if max_wait_secs == float("inf") else str(int(max_wait_secs))
                raise errors.DeadlineExceededError(
                    None, None, f"Session was not ready after waiting {waited} secs."
                )
            _log.info(
                "Waiting for model to be ready.  Ready_for_local_init_op:  %s, ready: %s",
                not_ready_local_msg,
                not_ready_msg,
            )
            time.sleep(self._recovery_wait_secs)

    def _model_ready(self, sess: Any) -> tuple[bool, str | None]:
        return _ready(self._ready_op, sess, "Model not ready")

    def _model_ready_for_local_init(self, sess: Any) -> tuple[bool, str | None]:
        return _ready(self._ready_for_local_init_op, sess, "Model not ready for local init")

    def _try_run_local_init_op(self, sess: Any) -> tuple[bool, str | None]:
        if self._local_init_op is None:
            return True, None
        ready, msg = self._model_ready_for_local_init(sess)
        if not ready:
            return False, msg
        _log.info("Running local_init_op.")
        sess.run(
            self._local_init_op,
            feed_dict=self._local_init_feed_dict,
            options=self._local_init_run_options,
        )
        _log.info("Done running local_init_op.")
        return True, None


def _safe_close(sess: Any) -> None:
    with contextlib.suppress(Exception):
        sess.close()


__all__ = ["SessionManager"]
