"""TF 1.15's public names that tfcluster lacks: each exists and raises, on use,
`tf.errors.UnimplementedError` naming itself (never AttributeError).

The list of names is TensorFlow's own v1 API at tag v1.15.0, module by module
(tf115_v1_names.json; "" is the top level). A face module ends with
`__getattr__ = unimplemented.module_getattr("<module path>")`: names it does not define, and
TF submodules it has no face for, come from here.
"""

from __future__ import annotations

import functools
import json
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from tfcluster.api import _deprecated_names
from tfcluster.framework import errors

_NAMES_FILE = Path(__file__).with_name("tf115_v1_names.json")
# Modules of TF 1.15 outside tfcluster's scope: their names are still answered, as unimplemented.
OUT_OF_SCOPE = ("lite", "tpu", "xla")


@functools.cache
def tf_names() -> dict[str, frozenset[str]]:
    """module path ("" for the top, "nn.rnn_cell", ...) -> the public names TF 1.15 has there."""
    with _NAMES_FILE.open() as f:
        return {module: frozenset(names) for module, names in json.load(f).items()}


@functools.cache
def tf_submodules(module_path: str) -> frozenset[str]:
    """The direct submodules TF 1.15 has under module_path ("" for the top)."""
    prefix = f"{module_path}." if module_path else ""
    out = set()
    for module in tf_names():
        if module and module.startswith(prefix):
            out.add(module[len(prefix) :].split(".")[0])
    return frozenset(out)


def public_path(module_path: str, name: str = "") -> str:
    """'nn', 'dynamic_rnn' -> 'tf.nn.dynamic_rnn'."""
    return ".".join(p for p in ("tf", module_path, name) if p)


# Where TF 1.15's module objects live (their __name__, which its AttributeError names): the
# generated API under tensorflow._api.v1, Keras's and the Estimator's own API packages, and
# absl's flags wrapper for tf.flags / tf.app.flags.
_TF_PACKAGES = {
    "keras": "tensorflow.python.keras.api._v1.keras",
    "estimator": "tensorflow_estimator.python.estimator.api._v1.estimator",
}
_TF_FLAGS_MODULE = "tensorflow.python.platform.flags"


def tf_module_name(module_path: str) -> str:
    """The __name__ of TF 1.15's module at `tf.<module_path>`: 'train' ->
    'tensorflow._api.v1.train', '' -> 'tensorflow'."""
    if not module_path:
        return "tensorflow"
    if module_path in ("flags", "app.flags"):
        return _TF_FLAGS_MODULE
    head, _, rest = module_path.partition(".")
    if head in _TF_PACKAGES:
        return _TF_PACKAGES[head] + (f".{rest}" if rest else "")
    return f"tensorflow._api.v1.{module_path}"


def tf_compat_v1_module_name(module_path: str) -> str:
    """The __name__ of TF 1.15's module at `tf.compat.v1.<module_path>`: a module of its own
    under tensorflow._api.v1.compat.v1, or the very module of tf.<module_path> (tf.flags',
    tf.estimator's, tf.keras')."""
    name = tf_module_name(module_path)
    if not module_path:
        return "tensorflow._api.v1.compat.v1"
    if name.startswith("tensorflow._api.v1."):
        return "tensorflow._api.v1.compat.v1." + name[len("tensorflow._api.v1.") :]
    return name


# TF 1.15's lazily loaded tf.contrib: not part of the API tfcluster follows, but programs reach
# for it by attribute, so its use says so instead of failing with AttributeError.
CONTRIB = "contrib"


# Why some names are missing, where a person can act on it.
REASONS = {
    "tf.distribute.experimental.TPUStrategy": (
        "TPUs are outside tfcluster's scope (CPUs and GPUs); use MirroredStrategy, "
        "MultiWorkerMirroredStrategy or ParameterServerStrategy"
    ),
}


def raise_unimplemented(path: str) -> NoReturn:
    if path in REASONS:
        raise errors.UnimplementedError(
            None, None, f"{path} is not implemented in tfcluster: {REASONS[path]}"
        )
    if path == f"tf.{CONTRIB}" or path.startswith(f"tf.{CONTRIB}."):
        raise errors.UnimplementedError(
            None,
            None,
            f"{path} is not implemented in tfcluster: tf.contrib is outside the TF 1.15 API "
            "it follows (contrib aside); use the core equivalent (e.g. tf.nn.rnn_cell for "
            "tf.contrib.rnn, tf.layers for tf.contrib.layers)",
        )
    reason = _REASONS.get(path)
    if reason is not None:
        raise errors.UnimplementedError(
            None, None, f"{path} is not implemented in tfcluster: {reason}"
        )
    raise errors.UnimplementedError(
        None, None, f"{path} is not implemented in tfcluster (it is part of TensorFlow 1.15's API)"
    )


_EAGER = (
    "eager execution is outside tfcluster's scope: tfcluster runs TF1 graph mode (build a "
    "graph and run it in a tf.Session; tf.function, tf.GradientTape and tf.autograph work "
    "in graph mode)"
)
# Why some names stay unimplemented, and what to use instead.
_REASONS = {
    "tf.enable_eager_execution": _EAGER,
    "tf.enable_v2_behavior": _EAGER,
    "tf.vectorized_map": (
        "pfor vectorization is not implemented; tf.map_fn computes the same values"
    ),
    "tf.nondifferentiable_batch_function": (
        "batching calls across session.run calls (the BatchFunction op) is not implemented"
    ),
    "tf.CriticalSection": (
        "resource mutexes (MutexV2 / MutexLock) are not implemented; order the work with "
        "tf.control_dependencies or a queue"
    ),
}


class _UnimplementedMeta(type):
    """Every use of an unimplemented name (call, attribute, isinstance, subclassing, iteration)
    raises UnimplementedError naming it."""

    _tf_path: str

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
        for base in bases:
            if isinstance(base, _UnimplementedMeta):
                raise_unimplemented(base._tf_path)
        return super().__new__(mcs, name, bases, namespace)

    def __call__(cls, *args: Any, **kwargs: Any) -> NoReturn:
        raise_unimplemented(cls._tf_path)

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        raise_unimplemented(cls._tf_path)

    def __instancecheck__(cls, instance: Any) -> bool:
        raise_unimplemented(cls._tf_path)

    def __subclasscheck__(cls, subclass: type) -> bool:
        raise_unimplemented(cls._tf_path)

    def __iter__(cls) -> NoReturn:
        raise_unimplemented(cls._tf_path)

    def __getitem__(cls, key: Any) -> NoReturn:
        raise_unimplemented(cls._tf_path)

    def __repr__(cls) -> str:
        return f"<unimplemented {cls._tf_path}>"


@functools.cache
def unimplemented(path: str) -> Any:
    """The stand-in for the public name `path` ('tf.nn.ctc_loss')."""
    short = path.rsplit(".", 1)[-1]
    doc = f"{path}: not implemented in tfcluster; any use raises tf.errors.UnimplementedError."
    return _UnimplementedMeta(short, (), {"_tf_path": path, "__doc__": doc})


def is_unimplemented(value: Any) -> bool:
    return isinstance(value, UnimplementedModule) or type(value) is _UnimplementedMeta


class UnimplementedModule(types.ModuleType):
    """A TF 1.15 module that tfcluster has no face for: each of its names is unimplemented."""

    def __init__(self, module_path: str) -> None:
        super().__init__(f"tfcluster.{module_path}", f"{public_path(module_path)}: not implemented")
        self._tf_module_path = module_path

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return lookup(self._tf_module_path, name)

    def __dir__(self) -> list[str]:
        path = self._tf_module_path
        return sorted(tf_names().get(path, frozenset()) | tf_submodules(path))


@functools.cache
def unimplemented_module(module_path: str) -> UnimplementedModule:
    return UnimplementedModule(module_path)


def lookup(module_path: str, name: str) -> Any:
    """What `tf.<module_path>.<name>` is when the face does not define it: a submodule (a face
    when one exists, else unimplemented), an unimplemented name, or AttributeError for names
    TF 1.15 does not have either."""
    if name in tf_submodules(module_path):
        return public_module(f"{module_path}.{name}" if module_path else name)
    if name in tf_names().get(module_path, frozenset()) or (not module_path and name == CONTRIB):
        return unimplemented(public_path(module_path, name))
    # TF's own message, naming its module object (a program printing it prints TF's line).
    # With name and obj given (None), Python 3.10+ does not add "Did you mean: ...?" from
    # this face's names when it prints the error: TF 1.15's Python printed the message alone.
    raise AttributeError(
        f"module '{tf_module_name(module_path)}' has no attribute '{name}'", name=None, obj=None
    )


def face_alias(module_path: str) -> types.ModuleType | None:
    """The module that the parent's face binds as `tf.<module_path>` when it is another module
    of the tree (tf.app.flags is tf.flags; tf.compat.v1 is tf itself), else None."""
    parent, _, child = module_path.rpartition(".")
    if not parent:
        return None
    value = vars(public_module(parent)).get(child)
    return value if isinstance(value, types.ModuleType) else None


def public_module(module_path: str) -> Any:
    """The face module of `tf.<module_path>` (tfcluster.api.<module_path>), or the module its
    parent's face binds there, or, where neither exists yet, an unimplemented module."""
    import importlib

    alias = face_alias(module_path)
    if alias is not None:
        _deprecated_names.make_deprecating(alias, module_path)
        return alias
    face = f"tfcluster.api.{module_path}"
    try:
        module = importlib.import_module(face)
        _deprecated_names.make_deprecating(module, module_path)
        return module
    except ModuleNotFoundError as e:
        if e.name is None or not face.startswith(e.name):
            raise
        return unimplemented_module(module_path)


def module_getattr(module_path: str) -> Callable[[str], Any]:
    """The `__getattr__` of the face module of `tf.<module_path>`."""

    def __getattr__(name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return lookup(module_path, name)

    return __getattr__


def module_dir(module_path: str, defined: Callable[[], list[str]]) -> Callable[[], list[str]]:
    """The `__dir__` of a face: what it defines and what TF 1.15 has there."""

    def __dir__() -> list[str]:
        names = tf_names().get(module_path, frozenset()) | tf_submodules(module_path)
        return sorted(names | {n for n in defined() if not n.startswith("_")})

    return __dir__
