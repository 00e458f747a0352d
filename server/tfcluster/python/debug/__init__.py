"""tensorflow.python.debug (tfdbg), as TF1 programs import it: `from tensorflow.python import
debug as tf_debug`, the session wrapped only under a flag (`if FLAGS.debug: sess =
tf_debug.LocalCLIDebugWrapperSession(sess)`). The import works and has_inf_or_nan (the filter
programs register with the debugger) computes; the debugger's sessions, hooks, dump readers and
graph watches raise UnimplementedError naming them on use: tfcluster has no debugger CLI,
TensorBoard debugger plugin or tfdbg dump format."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.api._unimplemented import unimplemented

_MODULE = "tensorflow.python.debug"


def has_inf_or_nan(datum: Any, tensor: Any) -> Any:
    """Whether a dumped tensor holds a nan or an inf: numbers only (strings and bools: False);
    a tensor without a dtype (None) raises AttributeError, as TF 1.15's."""
    del datum  # the datum's metadata does not matter to this predicate
    kind = tensor.dtype
    if (
        np.issubdtype(kind, np.floating)
        or np.issubdtype(kind, np.complexfloating)
        or (np.issubdtype(kind, np.integer))
    ):
        return np.any(np.isnan(tensor)) or np.any(np.isinf(tensor))
    return False


_UNIMPLEMENTED = (
    "DebugDumpDir",
    "DebugTensorDatum",
    "DumpingDebugHook",
    "DumpingDebugWrapperSession",
    "GradientsDebugger",
    "GrpcDebugHook",
    "GrpcDebugWrapperSession",
    "LocalCLIDebugHook",
    "LocalCLIDebugWrapperSession",
    "TensorBoardDebugHook",
    "TensorBoardDebugWrapperSession",
    "WatchOptions",
    "add_debug_tensor_watch",
    "load_tensor_from_event",
    "load_tensor_from_event_file",
    "reconstruct_non_debug_graph_def",
    "watch_graph",
    "watch_graph_with_blacklists",
)
globals().update({name: unimplemented(f"{_MODULE}.{name}") for name in _UNIMPLEMENTED})

__all__ = ["has_inf_or_nan", *_UNIMPLEMENTED]


def __dir__() -> list[str]:
    """TF's public names only (TF removes the rest of its module's names)."""
    return sorted(__all__)
