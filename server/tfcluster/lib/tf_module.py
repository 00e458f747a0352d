"""tf.Module (TF 1.15, graph mode): a named container of variables and other modules.

Making one opens its name scope once (a second module of the same name gets "<name>_1/");
`name_scope` re-enters that scope. `variables`, `trainable_variables` and `submodules` are
found by walking the module's attributes in name order (inside lists, tuples, dicts and
namedtuples), then the submodules' breadth first, each object once.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from tfcluster.framework.graph import name_scope
from tfcluster.ops import nest
from tfcluster.ops.variables import Variable

_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def camel_to_snake(value: str) -> str:
    return _CAMEL_TO_SNAKE.sub(r"_\1", value).lower()


def valid_identifier(name: str) -> bool:
    return bool(_VALID_IDENTIFIER.match(name))


class ModuleNameScope:
    """TF 2's name_scope object, as tf.Module.name_scope gives it: the scope's full name, and a
    context manager that enters it (yielding that name)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._entered: list[Any] = []

    @property
    def name(self) -> str:
        return self._name

    def __enter__(self) -> str:
        scope = name_scope(self._name)
        entered: str = scope.__enter__()
        self._entered.append(scope)
        return entered

    def __exit__(self, *exc: Any) -> None:
        self._entered.pop().__exit__(*exc)


class Module:
    # Attributes TF's tracking base class keeps on every module, never walked.
    _TF_MODULE_IGNORED_PROPERTIES: frozenset[str] = frozenset(
        ("_self_unconditional_checkpoint_dependencies", "_self_unconditional_dependency_names")
    )
    # Whether TF's walk of such a module meets a set among its attributes (a Keras layer's
    # name-based restores), which TF's nest warns about once per process.
    _walk_meets_a_set = False

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not valid_identifier(name):
            raise ValueError(
                f"{name!r} is not a valid module name. Module names must be valid Python "
                "identifiers (e.g. a valid class name)."
            )
        self._name = name
        with name_scope(name) as scope_name:
            self._scope_name = scope_name

    @property
    def name(self) -> str:
        return self._name

    @property
    def name_scope(self) -> ModuleNameScope:
        """The module's name scope (TF's name_scope object: `.name` is "<scope>/"), entered
        again with `with` (its ops are named "<scope>/...")."""
        return ModuleNameScope(self._scope_name)

    @property
    def variables(self) -> tuple[Any, ...]:
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self) -> tuple[Any, ...]:
        return tuple(self._flatten(predicate=_is_trainable_variable))

    @property
    def submodules(self) -> tuple[Module, ...]:
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(
        self,
        recursive: bool = True,
        predicate: Callable[[Any], bool] | None = None,
        attribute_traversal_key: Callable[[str], Any] | None = None,
        with_path: bool = False,
    ) -> Iterator[Any]:
        return _flatten_module(
            self,
            recursive=recursive,
            predicate=predicate or (lambda _: True),
            attribute_traversal_key=attribute_traversal_key,
            attributes_to_ignore=self._TF_MODULE_IGNORED_PROPERTIES,
            with_path=with_path,
        )

    @classmethod
    def with_name_scope(cls, method: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: the method runs inside the module's name scope."""

        @functools.wraps(method)
        def method_with_name_scope(self: Module, *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)

        return method_with_name_scope


def _is_variable(obj: Any) -> bool:
    return isinstance(obj, Variable)


def _is_trainable_variable(obj: Any) -> bool:
    return _is_variable(obj) and bool(getattr(obj, "trainable", False))


def _is_module(obj: Any) -> bool:
    return isinstance(obj, Module)


def _leaves_with_paths(value: Any) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """TF's nest.flatten_with_tuple_paths: dicts by sorted key, namedtuples by field,
    lists and tuples by index; anything else is a leaf."""
    if isinstance(value, dict):
        items: Any = ((k, value[k]) for k in sorted(value))
    elif isinstance(value, tuple) and hasattr(value, "_fields"):
        items = zip(value._fields, value)
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    else:
        yield (), value
        return
    for key, item in items:
        for path, leaf in _leaves_with_paths(item):
            yield (key, *path), leaf


def _flatten_module(
    module: Module,
    recursive: bool,
    predicate: Callable[[Any], bool],
    attribute_traversal_key: Callable[[str], Any] | None,
    attributes_to_ignore: frozenset[str],
    with_path: bool,
    module_path: tuple[Any, ...] = (),
    seen: set[int] | None = None,
) -> Iterator[Any]:
    if seen is None:
        seen = {id(module)}
    if module._walk_meets_a_set:
        nest.warn_sets_are_not_sequences()
    module_dict = vars(module)
    submodules = []
    for key in sorted(module_dict, key=attribute_traversal_key):
        if key in attributes_to_ignore:
            continue
        for leaf_path, leaf in _leaves_with_paths(module_dict[key]):
            leaf_path = (key, *leaf_path)
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (module_path + leaf_path, leaf) if with_path else leaf
            if recursive and _is_module(leaf):
                submodules.append((module_path + leaf_path, leaf))
    for submodule_path, submodule in submodules:
        yield from _flatten_module(
            submodule,
            recursive=recursive,
            predicate=predicate,
            attribute_traversal_key=attribute_traversal_key,
            attributes_to_ignore=submodule._TF_MODULE_IGNORED_PROPERTIES,
            with_path=with_path,
            module_path=submodule_path,
            seen=seen,
        )
