"""tf.config.threading: the thread counts a session made with no config uses.

As TensorFlow 1.15 records them in its eager context, whose config `tf.Session()` takes when
given none: set them before the session is made (a local session then sizes the process's
pools to them, runtime/thread_budget.py). 0 means "let the runtime choose".
"""

from __future__ import annotations

from tfcluster.protos import config_pb2

_threads = {"intra": 0, "inter": 0}


def get_intra_op_parallelism_threads() -> int:
    """Threads one op may use (0: the runtime chooses)."""
    return _threads["intra"]


def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """Sets the threads one op may use, for sessions made without a config from now on."""
    _threads["intra"] = int(num_threads)


def get_inter_op_parallelism_threads() -> int:
    """Ops of a step that may run at once (0: the runtime chooses)."""
    return _threads["inter"]


def set_inter_op_parallelism_threads(num_threads: int) -> None:
    """Sets how many ops of a step may run at once, for sessions made without a config."""
    _threads["inter"] = int(num_threads)


def default_session_config() -> config_pb2.ConfigProto | None:
    """The config of a session given none: None unless thread counts were set."""
    if not any(_threads.values()):
        return None
    return config_pb2.ConfigProto(
        intra_op_parallelism_threads=_threads["intra"],
        inter_op_parallelism_threads=_threads["inter"],
    )
