"""The names whose use TF 1.15 announces as deprecated: "WARNING:tensorflow:From prog.py:3: The
name tf.placeholder is deprecated. Please use tf.compat.v1.placeholder instead."

TF 1.15's v1 modules print this once per name when a program reads a name TF 2 renames
(tf115_deprecated_names.json, recorded from TF by tools/record_tf115_deprecated_names.py);
the same names read through `tf.compat.v1` say nothing, nor do reads from code whose file
name is not a file ("<stdin>", "<ipython-input-...>", `python -c`). Reads by tfcluster's own
code say nothing either and leave the name to the program's first read.

The face modules of those paths (and `tfcluster` itself) get DeprecatingModule as their class;
`tf.compat.v1` and the modules under it are QuietModule views of the same modules.
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
import threading
import types
from pathlib import Path
from typing import Any

from tfcluster.api import _converted_reads
from tfcluster.framework import deprecation_switch, internal_deprecations
from tfcluster.framework.converted_code import in_converted_function
from tfcluster.framework.python37_lines import as_given as _as_given
from tfcluster.framework.python37_lines import in_package, python37_line

_TABLE_FILE = Path(__file__).with_name("tf115_deprecated_names.json")
_FUNCTIONS_FILE = Path(__file__).with_name("tf115_deprecated_functions.json")
# tfcluster's own source files: their reads are not the program's.
_lock = threading.Lock()


@functools.cache
def _table() -> dict[str, dict[str, str]]:
    with _TABLE_FILE.open() as f:
        table: dict[str, dict[str, str]] = json.load(f)
    return table


@functools.cache
def _pending(module_path: str) -> set[str]:
    """The names of `tf.<module_path>` not read by the program yet that TF warns about."""
    return set(_table().get(module_path, ()))


@functools.cache
def _functions_by_module() -> dict[str, dict[str, tuple[str, str, str | None, str]]]:
    """module path -> {name: (qualified name, TF's module, date, instructions)} of the
    functions TF 1.15 deprecates as a whole (tools/record_tf115_deprecated_functions.py)."""
    return {
        path: {name: tuple(record) for name, record in records.items()}  # type: ignore[misc]
        for path, records in _by_module("functions").items()
    }


@functools.cache
def _arguments_by_module() -> dict[str, dict[str, list[dict[str, Any]]]]:
    """module path -> {name: the records of its deprecated_args decorators} (TF's argument
    names in order, and each deprecated argument's position and value that says nothing)."""
    return _by_module("arguments")


@functools.cache
def _classes_by_module() -> dict[str, dict[str, tuple[str, str, str | None, str]]]:
    """module path -> {class name: its __init__'s whole deprecation} (as for functions)."""
    return {
        path: {name: tuple(record) for name, record in records.items()}  # type: ignore[misc]
        for path, records in _by_module("classes").items()
    }


@functools.cache
def _class_arguments_by_module() -> dict[str, dict[str, list[dict[str, Any]]]]:
    """module path -> {class name: its __init__'s deprecated_args records}."""
    return _by_module("class_arguments")


@functools.cache
def _methods_by_module() -> dict[str, dict[str, dict[str, list[Any]]]]:
    """module path -> {class name: {attribute: [qualified name, module, date, instructions,
    kind]}} of the methods and properties TF 1.15 deprecates ("DatasetV1.make_one_shot_iterator
    (from ...) is deprecated ...")."""
    return _by_module("methods")


@functools.cache
def _under_decorator_by_module() -> dict[str, dict[str, tuple[str, str, str | None, str]]]:
    """module path -> {name: whole deprecation} of the functions whose deprecation TF wraps in
    another decorator (tf_should_use's for initialize_all_variables, dispatch's for
    batch_gather): TF announces them from that decorator's file, a library file."""
    return {
        path: {name: tuple(record) for name, record in records.items()}  # type: ignore[misc]
        for path, records in _by_module("functions_under_decorator").items()
    }


@functools.cache
def _functions_file() -> dict[str, dict[str, Any]]:
    with _FUNCTIONS_FILE.open() as f:
        tables: dict[str, dict[str, Any]] = json.load(f)
    return tables


def _by_module(kind: str) -> dict[str, dict[str, Any]]:
    """One table of the functions file ("functions", "arguments", "classes",
    "class_arguments") by module path, then name."""
    out: dict[str, dict[str, Any]] = {}
    for full, record in _functions_file()[kind].items():
        path, _, name = full[len("tf.") :].rpartition(".")
        out.setdefault(path, {})[name] = record
    return out


# The deprecated functions already announced (by TF's qualified name and module: every name
# of a function shares its one announcement, as TF keys it by the function).
_announced_functions: set[tuple[str, str]] = set()
# Wrapped function by the original's id: a function under several names gets one wrapper.
_wrappers: dict[int, Any] = {}


def _announcing(
    fn: Any, deprecation: tuple[str, str, str | None, str], from_library: bool = False
) -> Any:
    """fn, announcing on the program's first call what TF 1.15's deprecation decorator does:
    from the program's line, or with from_library (TF's decorator under another one) from a
    tfcluster file, where TF names that other decorator's."""
    qualified, module, date, instructions = deprecation
    key = (qualified, module)

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if key not in _announced_functions and deprecation_switch.printing():
            frame = sys._getframe(1)
            if not in_package(frame.f_code.co_filename):
                with _lock:
                    first = key not in _announced_functions
                    _announced_functions.add(key)
                if first:
                    _warn_from(
                        sys._getframe(0) if from_library else frame,
                        "%s (from %s) is deprecated and will be removed %s.\n"
                        "Instructions for updating:\n%s",
                        qualified,
                        module,
                        _until(date),
                        instructions,
                    )
        return fn(*args, **kwargs)

    return call


@functools.cache
def _function_deprecations() -> dict[tuple[str, str], tuple[str | None, str]]:
    """(qualified name, TF's module) -> (date, instructions) of the functions and methods TF
    1.15 deprecates as a whole."""
    out: dict[tuple[str, str], tuple[str | None, str]] = {}
    functions = [
        *_functions_file()["functions"].values(),
        *_functions_file()["functions_under_decorator"].values(),
    ]
    for qualified, module, date, instructions in functions:
        out[(qualified, module)] = (date, instructions)
    # And classes' constructors (QueueRunner.__init__, which input producers call), methods
    # (Layer.apply, which tf.layers' functions call) and methods of classes only TF's code
    # uses (RefVariable.count_up_to, which limit_epochs calls).
    for qualified, module, date, instructions in _functions_file()["classes"].values():
        out.setdefault((qualified, module), (date, instructions))
    for attributes in _functions_file()["methods"].values():
        for qualified, module, date, instructions, _ in attributes.values():
            out.setdefault((qualified, module), (date, instructions))
    # (By TF module, then class: the v1 protocol of TF's feature columns too,
    # "EmbeddingColumn._get_dense_tensor".)
    for classes in _functions_file()["internal_methods"].values():
        for attributes in classes.values():
            for qualified, module, date, instructions, _ in attributes.values():
                out.setdefault((qualified, module), (date, instructions))
    return out


def _called_internally(qualified: str, module: str, frame: types.FrameType) -> None:
    """A deprecated function TF's own code calls (framework/internal_deprecations.py): the
    first call announces it from `frame` (a tfcluster file, where TF names its own), and the
    program's later calls say nothing."""
    key = (qualified, module)
    record = _function_deprecations().get(key)
    if record is None or key in _announced_functions or not deprecation_switch.printing():
        return
    with _lock:
        first = key not in _announced_functions
        _announced_functions.add(key)
    if first:
        _warn_from(
            frame,
            "%s (from %s) is deprecated and will be removed %s.\nInstructions for updating:\n%s",
            qualified,
            module,
            _until(record[0]),
            record[1],
        )


internal_deprecations.set_reporter(_called_internally)


def _called_internally_with_argument(
    qualified: str, module: str, argument: str, instructions: str, frame: types.FrameType
) -> None:
    """A deprecated argument TF's own code passes: announced once, from `frame`."""
    if not deprecation_switch.printing():
        return
    key = (qualified, module, argument)
    with _lock:
        first = key not in _announced_arguments
        _announced_arguments.add(key)
    if first:
        _warn_from(
            frame,
            "calling %s (from %s) with %s is deprecated and will be removed %s.\n"
            "Instructions for updating:\n%s",
            qualified,
            module,
            argument,
            _until(None),
            instructions,
        )


internal_deprecations.set_argument_reporter(_called_internally_with_argument)


def _passed_deprecated(
    record: dict[str, Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[str]:
    """The deprecated arguments a call passes, as TF's deprecated_args finds them: by
    position or keyword, unless given the value that says nothing."""
    found = []
    for name, position, has_ok, ok_value in record["deprecated"]:
        if position is not None and position < len(args):
            value, passed = args[position], True
        elif name in kwargs:
            value, passed = kwargs[name], True
        else:
            passed = False
        if passed and not (has_ok and _same_value(value, ok_value)):
            found.append(name)
    if record["varargs"] and len(args) > len(record["args"]):
        found.append(record["varargs"])
    if record["varkw"] and kwargs:
        found.append(record["varkw"])
    return found


def _passed_deprecated_values(
    record: dict[str, Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[tuple[str, Any]]:
    """The arguments a call passes with the value TF's deprecated_arg_values decorator
    deprecates (`tf.nn.conv1d(..., data_format="NCHW")`): [(name, value)]."""
    found = []
    positions = {name: i for i, name in enumerate(record["args"])}
    for name, deprecated in record.get("values", ()):
        position = positions.get(name)
        if position is not None and position < len(args):
            value, passed = args[position], True
        elif name in kwargs:
            value, passed = kwargs[name], True
        else:
            passed = False
        if passed and _same_value(value, deprecated):
            found.append((name, deprecated))
    return found


def _same_value(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        equal = a == b
    except TypeError:
        return False
    return equal if isinstance(equal, bool) else False


def _announcing_arguments(fn: Any, records: list[dict[str, Any]]) -> Any:
    """fn, announcing what TF 1.15's deprecated_args decorators do when a program's call passes
    a deprecated argument (once per function and argument)."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        frame = sys._getframe(1)
        if not in_package(frame.f_code.co_filename) and deprecation_switch.printing():
            for record in records:
                # Under another decorator TF's warning names that decorator's file
                # (dispatch.py, deprecation.py), not the program: here, this library line.
                place = frame if record["outermost"] else sys._getframe(0)
                for name in _passed_deprecated(record, args, kwargs):
                    key = (record["qualified"], record["module"], name)
                    with _lock:
                        first = key not in _announced_arguments
                        _announced_arguments.add(key)
                    if first:
                        _warn_arguments(place, record, name)
                for name, value in _passed_deprecated_values(record, args, kwargs):
                    key = (record["qualified"], record["module"], f"{name}={value}")
                    with _lock:
                        first = key not in _announced_arguments
                        _announced_arguments.add(key)
                    if first:
                        _warn_arguments(place, record, f"{name}={value}")
        return fn(*args, **kwargs)

    return call


_announced_arguments: set[tuple[str, str, str]] = set()


def _warn_arguments(frame: types.FrameType, record: dict[str, Any], name: str) -> None:
    _warn_from(
        frame,
        "calling %s (from %s) with %s is deprecated and will be removed %s.\n"
        "Instructions for updating:\n%s",
        record["qualified"],
        record["module"],
        name,
        _until(record["date"]),
        record["instructions"],
    )


def _until(date: str | None) -> str:
    return "in a future version" if date is None else f"after {date}"


def _warn_from(frame: types.FrameType, message: str, *args: Any) -> None:
    """TF 1.15's deprecation warning, "From <file>:<line>: <message>", naming frame's line."""
    from tfcluster.lib.platform import tf_logging

    tf_logging.warning(
        "From %s:%d: " + message,
        _as_given(frame.f_code.co_filename),
        python37_line(frame),
        *args,
    )


def _wrap_deprecated_functions(module: types.ModuleType, module_path: str) -> None:
    namespace = types.ModuleType.__getattribute__(module, "__dict__")
    whole = _functions_by_module().get(module_path, {})
    arguments = _arguments_by_module().get(module_path, {})
    from_library = _under_decorator_by_module().get(module_path, {})
    for name in sorted({*whole, *arguments, *from_library}):
        fn = namespace.get(name)
        if fn is None or not callable(fn) or isinstance(fn, type):
            continue
        with _lock:
            wrapper = _wrappers.get(id(fn))
            if wrapper is None:
                wrapper = _announcing_call(
                    fn,
                    whole.get(name) or from_library.get(name),
                    arguments.get(name),
                    name in from_library,
                )
                _wrappers[id(fn)] = wrapper
        namespace[name] = wrapper
    classes = _classes_by_module().get(module_path, {})
    class_arguments = _class_arguments_by_module().get(module_path, {})
    for name in sorted({*classes, *class_arguments}):
        cls = namespace.get(name)
        if not isinstance(cls, type):
            continue
        with _lock:
            if id(cls) in _wrappers:
                continue
            _wrappers[id(cls)] = cls
            own_init = getattr(cls, "__init__")  # noqa: B009 (the class's, inherited or not)
            init = _announcing_call(own_init, classes.get(name), class_arguments.get(name))
            type.__setattr__(cls, "__init__", init)
    for name, attributes in sorted(_methods_by_module().get(module_path, {}).items()):
        cls = namespace.get(name)
        if isinstance(cls, type):
            for attribute, record in sorted(attributes.items()):
                _wrap_method(cls, attribute, record)


def _wrap_method(cls: type, attribute: str, record: list[Any]) -> None:
    """cls's method or property `attribute` (its own or inherited), announcing on the program's
    first use what TF's decorator on it does; one already announcing is left as it is."""
    qualified, module, date, instructions, kind = record
    deprecation = (qualified, module, date, instructions)
    with _lock:
        try:
            raw = inspect.getattr_static(cls, attribute)
        except AttributeError:
            return
        inner = raw.fget if isinstance(raw, property) else getattr(raw, "__func__", raw)
        if inner is None or getattr(inner, "_tf_announces", False):
            return
        new: Any
        if kind == "property" and isinstance(raw, property):
            fget = _announcing(raw.fget, deprecation)
            fget._tf_announces = True  # type: ignore[attr-defined]
            new = property(fget, raw.fset, raw.fdel, raw.__doc__)
        elif kind == "method" and inspect.isfunction(raw):
            new = _announcing(raw, deprecation)
            new._tf_announces = True
        elif kind in ("staticmethod", "classmethod") and type(raw).__name__ == kind:
            fn = _announcing(raw.__func__, deprecation)
            fn._tf_announces = True  # type: ignore[attr-defined]
            new = staticmethod(fn) if kind == "staticmethod" else classmethod(fn)
        else:
            return
        type.__setattr__(cls, attribute, new)


def _announcing_call(
    fn: Any,
    whole: tuple[str, str, str | None, str] | None,
    arguments: list[dict[str, Any]] | None,
    from_library: bool = False,
) -> Any:
    """fn, announcing its deprecation (as a whole, and for the arguments a call passes)."""
    if arguments:
        fn = _announcing_arguments(fn, arguments)
    if whole:
        fn = _announcing(fn, whole, from_library)
    return fn


def _announce(module_path: str, name: str, frame: types.FrameType | None) -> None:
    """The warning for the program's first read of `tf.<module_path>.<name>` from `frame`."""
    if frame is None:
        return
    filename = frame.f_code.co_filename
    if in_package(filename):
        return
    if in_converted_function() and _converted_reads.first_scan(frame.f_code):
        # AutoGraph resolves every `module.name` of the function when it converts it: the
        # function's deprecated names are announced together, in source order, before the
        # rest of its body runs.
        for module, attribute in _converted_reads.module_reads(frame):
            path = _module_path(module)
            if path is not None and attribute in _pending(path):
                _announce(path, attribute, frame)
    with _lock:
        pending = _pending(module_path)
        if name not in pending:
            return
        pending.discard(name)
    if filename.startswith("<"):
        return
    if in_converted_function():
        # TF's AutoGraph reads the names of a function it converts (a tf.data function's)
        # and announces them from its own file (autograph/converters/directives.py): here,
        # from the tfcluster frame tracing the function.
        library = _first_internal_caller(frame)
        if library is None:
            return
        frame = library
    full = ".".join(p for p in ("tf", module_path, name) if p)
    _warn_from(
        frame,
        "The name %s is deprecated. Please use %s instead.\n",
        full,
        _table()[module_path][name],
    )


def _first_internal_caller(frame: types.FrameType) -> types.FrameType | None:
    """The nearest frame up the stack in tfcluster's own files."""
    caller: types.FrameType | None = frame
    while caller is not None and not in_package(caller.f_code.co_filename):
        caller = caller.f_back
    return caller


def _module_path(module: types.ModuleType) -> str | None:
    return types.ModuleType.__getattribute__(module, "__dict__").get("_tf_module_path")


class DeprecatingModule(types.ModuleType):
    """A face module of TF's v1 tree whose reads of renamed names warn, as TF 1.15's do."""

    def __getattribute__(self, name: str) -> Any:
        value = super().__getattribute__(name)
        if name[:1] != "_":
            path = _module_path(self)
            if path is not None:
                if name in _pending(path):
                    _announce(path, name, sys._getframe(1))
                if type(value) is types.ModuleType and value.__name__.startswith(_FACES):
                    # A face bound as an attribute of its parent's (tf.nn.rnn_cell).
                    make_deprecating(value, f"{path}.{name}" if path else name)
        return value


# The package of the face modules of TF's tree.
_FACES = "tfcluster.api."


def make_deprecating(module: types.ModuleType, module_path: str) -> None:
    """Gives `module` (the face of `tf.<module_path>`) TF's warnings: its deprecated names'
    and functions', and its submodules' when they are read."""
    if _module_path(module) is not None:
        return
    _wrap_deprecated_functions(module, module_path)
    module.__dict__["_tf_module_path"] = module_path
    if type(module) is types.ModuleType:
        module.__class__ = DeprecatingModule


_views: dict[int, QuietModule] = {}


def quiet_view(module: types.ModuleType) -> types.ModuleType:
    """The `tf.compat.v1` view of a module of the tree: the same names, read without
    warnings (a module that never warns is its own view)."""
    if _module_path(module) is None or isinstance(module, QuietModule):
        return module
    with _lock:
        view = _views.get(id(module))
        if view is None:
            view = _views[id(module)] = QuietModule(module)
    return view


def _compat_v1_error(
    target: types.ModuleType, name: str, error: AttributeError
) -> AttributeError | None:
    """TF's "no attribute" error of `tf.<path>` read through tf.compat.v1, which TF 1.15 says
    of its own module there ('tensorflow._api.v1.compat.v1.nn'); None for any other error."""
    from tfcluster.api import _unimplemented

    path = _module_path(target)
    if path is None:
        return None
    said = f"module '{_unimplemented.tf_module_name(path)}' has no attribute '{name}'"
    if str(error) != said:
        return None
    module = _unimplemented.tf_compat_v1_module_name(path)
    return AttributeError(f"module '{module}' has no attribute '{name}'", name=None, obj=None)


class QuietModule(types.ModuleType):
    """A module of the tree as `tf.compat.v1` shows it: every read and write goes to the
    module itself, without its deprecation warnings; its submodules are views too."""

    def __init__(self, target: types.ModuleType) -> None:
        super().__init__(target.__name__, target.__doc__)
        object.__setattr__(self, "_quiet_target", target)
        # A package, so that `import tfcluster.compat.v1.<module>` finds its submodules.
        object.__setattr__(self, "__path__", [])

    def __getattr__(self, name: str) -> Any:
        target = object.__getattribute__(self, "_quiet_target")
        try:
            if isinstance(target, DeprecatingModule):
                # Past the warnings of DeprecatingModule.__getattribute__.
                value = types.ModuleType.__getattribute__(target, name)
            else:
                # (A module of its own class, such as an unimplemented module's, answers itself.)
                value = getattr(target, name)
        except AttributeError as e:
            compat = _compat_v1_error(target, name, e)
            if compat is None:
                raise
            raise compat from None
        return quiet_view(value) if isinstance(value, types.ModuleType) else value

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, QuietModule):
            # The import system binding a view of a submodule (`import tfcluster.compat.v1.nn`)
            # keeps it here: the module itself keeps its own submodule.
            object.__setattr__(self, name, value)
            return
        setattr(object.__getattribute__(self, "_quiet_target"), name, value)

    def __delattr__(self, name: str) -> None:
        delattr(object.__getattribute__(self, "_quiet_target"), name)

    def __dir__(self) -> list[str]:
        return dir(object.__getattribute__(self, "_quiet_target"))

    def __repr__(self) -> str:
        return repr(object.__getattribute__(self, "_quiet_target"))
