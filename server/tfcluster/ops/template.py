"""tf.make_template: a function whose variables (made with tf.get_variable) are made on the
first call and shared by every later call, in one variable scope of its own."""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable
from typing import Any

from tfcluster.framework.graph import GraphKeys, get_collection, get_collection_ref
from tfcluster.ops import variable_scope
from tfcluster.ops.variable_scope import VariableScope


def make_template(
    name_: str,
    func_: Callable[..., Any],
    create_scope_now_: bool = False,
    unique_name_: str | None = None,
    custom_getter_: Any = None,
    **kwargs: Any,
) -> Template:
    """Wraps func_ so that its variables are shared between calls (see Template)."""
    if kwargs:
        func_ = functools.update_wrapper(functools.partial(func_, **kwargs), func_)
    return Template(
        name_,
        func_,
        create_scope_now=create_scope_now_,
        unique_name=unique_name_,
        custom_getter=custom_getter_,
    )


def _skip_common_stack_elements(stacktrace: list[str], base_case: list[str]) -> list[str]:
    for i, (trace, base) in enumerate(zip(stacktrace, base_case)):
        if trace != base:
            return stacktrace[i:]
    return stacktrace[-1:]


class Template:
    """The scope is opened on the first call (or at construction with create_scope_now),
    unique from `name` unless `unique_name` is given; later calls re-enter it with
    reuse=True, so a variable made after the first call is an error, as in TF."""

    def __init__(
        self,
        name: str,
        func: Callable[..., Any],
        create_scope_now: bool = False,
        unique_name: str | None = None,
        custom_getter: Any = None,
        create_graph_function: bool = False,
    ) -> None:
        if create_graph_function:
            raise ValueError("create_graph_function is not supported by tfcluster's templates")
        self._func = func
        self._stacktrace = traceback.format_stack()[:-2]
        self._name = name
        self._unique_name = unique_name
        self._custom_getter = custom_getter
        if name is None:
            raise ValueError("name cannot be None.")
        self._variable_scope: VariableScope | None = None
        if create_scope_now:
            scope_name = self._unique_name or variable_scope._get_unique_variable_scope(self._name)
            with variable_scope._pure_variable_scope(
                scope_name, custom_getter=self._custom_getter
            ) as vs:
                self._variable_scope = vs
        self._variables_created = False
        self._first_call = True

    def _call_func(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        try:
            if self._variables_created:
                trainable_at_start = len(get_collection_ref(GraphKeys.TRAINABLE_VARIABLES))
                result = self._func(*args, **kwargs)
                trainable = get_collection_ref(GraphKeys.TRAINABLE_VARIABLES)
                if trainable_at_start != len(trainable):
                    raise ValueError(
                        "Trainable variable created when calling a template after the first "
                        "time, perhaps you used tf.Variable when you meant tf.get_variable: "
                        f"{trainable[trainable_at_start:]}"
                    )
            elif self._first_call:
                self._first_call = False
                try:
                    result = self._func(*args, **kwargs)
                except BaseException:
                    self._first_call = True
                    raise
                self._variables_created = True
            else:  # called again from another thread during the first call
                result = self._func(*args, **kwargs)
            return result
        except Exception as exc:
            # Say where the template was defined, as TF does.
            arg0 = exc.args[0] if exc.args else ""
            trace = "".join(_skip_common_stack_elements(self._stacktrace, traceback.format_stack()))
            exc.args = (f"{arg0}\n\noriginally defined at:\n{trace}", *exc.args[1:])
            raise

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._variable_scope is not None:
            with variable_scope.variable_scope(self._variable_scope, reuse=not self._first_call):
                return self._call_func(args, kwargs)
        with variable_scope.variable_scope(
            self._unique_name, self._name, custom_getter=self._custom_getter
        ) as vs:
            self._variable_scope = vs
            return self._call_func(args, kwargs)

    @property
    def name(self) -> str:
        return self._name

    @property
    def func(self) -> Callable[..., Any]:
        return self._func

    @property
    def variable_scope(self) -> VariableScope | None:
        return self._variable_scope

    @property
    def variable_scope_name(self) -> str | None:
        if self._variable_scope is None:
            return None
        name = self._variable_scope.name
        return name if not name or name[-1] == "/" else name + "/"

    @property
    def variables(self) -> list[Any]:
        return self.global_variables + self.local_variables

    def _in_scope(self, key: str) -> list[Any]:
        if not self._variables_created:
            return []
        return get_collection(key, self.variable_scope_name)

    @property
    def trainable_variables(self) -> list[Any]:
        return self._in_scope(GraphKeys.TRAINABLE_VARIABLES)

    @property
    def non_trainable_variables(self) -> list[Any]:
        trainable = set(self.trainable_variables)
        return [x for x in self.global_variables if x not in trainable]

    @property
    def global_variables(self) -> list[Any]:
        return self._in_scope(GraphKeys.GLOBAL_VARIABLES)

    @property
    def local_variables(self) -> list[Any]:
        return self._in_scope(GraphKeys.LOCAL_VARIABLES)

    @property
    def weights(self) -> list[Any]:
        return self.variables

    @property
    def trainable_weights(self) -> list[Any]:
        return self.trainable_variables

    @property
    def non_trainable_weights(self) -> list[Any]:
        return self.non_trainable_variables

    @property
    def var_scope(self) -> VariableScope | None:
        return self._variable_scope


__all__ = ["make_template"]
