"""tf.raw_ops: one keyword-only function per TF 1.15 op type, made from TF's own signature of
the op (framework/tf115_op_defs.json) for every op type tfcluster defines with a CPU kernel, or
defines where TF 1.15's CPU build has no kernel for it on any device either (TPU and MKL-only
ops: the graph holds the op, and running it fails as in TF). The others raise
UnimplementedError naming them."""

from __future__ import annotations

# Imported under private names: tf.raw_ops.Any (and every other op type) must be the op.
import functools as _functools
import typing as _typing
from collections.abc import Callable as _Callable

from tfcluster.api import _unimplemented
from tfcluster.framework import op_def_registry as _op_def_registry
from tfcluster.framework import op_signatures as _op_signatures
from tfcluster.ops import raw_op_library as _raw_op_library
from tfcluster.runtime import kernel_table as _kernel_table

_MODULE = "raw_ops"

# Ops taking functions as attrs that tfcluster has no kernel for (or whose raw op is not
# checked against TF yet).
_FUNC_ATTR_REASON = "tfcluster has no kernel for this op taking functions; use {public}"
_PUBLIC_FOR_FUNC_OPS: dict[str, str] = {}
# Ops whose raw op is not compared with TF 1.15.
_FUNC_OPS_NOT_CHECKED: frozenset[str] = frozenset()


def _takes_functions(sig: _op_signatures.OpSignature) -> bool:
    return any(a.type in ("func", "list(func)") for a in sig.attrs)


def _removed(sig: _op_signatures.OpSignature) -> bool:
    """Deprecated at TF 1.15's GraphDef version: TF's raw op only raises NotImplementedError
    (BatchFFT has no kernel in TF either), and so does this one."""
    version = sig.deprecation_version
    return bool(version) and _op_signatures.tf_graph_def_version() >= version


@_functools.cache
def implemented_ops() -> frozenset[str]:
    """TF 1.15 op types that tf.raw_ops builds: defined in tfcluster's op table, with a CPU
    kernel, or with no kernel on any device in TF 1.15's CPU build either (running one fails
    in the placer as in TF), or removed from TF 1.15's GraphDef version (building one raises
    as in TF). A func attr takes what TF's takes: a concrete function, or the name of one
    added to the graph."""
    out = set()
    for op_type in _op_signatures.op_types():
        sig = _op_signatures.lookup(op_type)
        if sig is None or op_type in _FUNC_OPS_NOT_CHECKED:
            continue
        if _op_def_registry.lookup(op_type) is not None and (
            _kernel_table.has_kernel(op_type, "CPU") or _removed(sig) or sig.no_kernel
        ):
            out.add(op_type)
    return frozenset(out)


def _note_reasons() -> None:
    for op_type in _op_signatures.op_types():
        sig = _op_signatures.lookup(op_type)
        # Only read for the ops tf.raw_ops does not build (implemented_ops() is not called
        # here: kernels may still be loading).
        if sig is not None and _takes_functions(sig):
            public = _PUBLIC_FOR_FUNC_OPS.get(op_type, "the tf.data / tf.* function that builds it")
            path = _unimplemented.public_path(_MODULE, op_type)
            _unimplemented.REASONS.setdefault(path, _FUNC_ATTR_REASON.format(public=public))


_note_reasons()


@_functools.cache
def _raw_op(op_type: str) -> _Callable[..., _typing.Any]:
    return _raw_op_library.raw_op_function(op_type)


_fallback = _unimplemented.module_getattr(_MODULE)


def __getattr__(name: str) -> _typing.Any:
    if name in implemented_ops():
        return _raw_op(name)
    return _fallback(name)


__dir__ = _unimplemented.module_dir(_MODULE, lambda: [])
