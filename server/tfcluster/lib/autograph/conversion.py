"""AutoGraph's source-to-source conversion (Python `ast`), the subset tfcluster converts.

Converted, in the function's own body (nested blocks included):
- `if` / `elif` / `else`: through `ag__.if_stmt`, a tf.cond when the test is a tensor, plain
  Python otherwise. Names assigned in a branch are the cond's outputs.
- `while` loops: through `ag__.while_stmt`, a tf.while_loop when the test is a tensor, plain
  Python otherwise (a Python loop whose test becomes a tensor turns into a tf.while_loop).
- `for x in ...`: through `ag__.for_stmt`: over a tensor (its first dimension) or a
  `range(...)` with a tensor bound, a tf.while_loop; over anything else, a Python loop.
- `return` at the end of an `if`'s branches (an `if c: return a` followed by more code is
  read as `if c: return a` / `else: <the rest>`).
- `a and b`, `a or b`, `not a`: tf.logical_* when an operand is a tensor (b evaluated lazily
  in Python).
- `tf.autograph.experimental.set_loop_options(...)` as the first statement of a loop body.

Not converted, raising AutographNotSupportedError when the construct would be converted:
`break` / `continue` in a converted loop, a `while`/`for` with an `else:` clause, `return`
elsewhere inside a converted block, `yield`, `try` around a converted block is fine (left as
Python), functions the converted function calls (they run as written: decorate them with
tf.function to have them converted too).
"""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import textwrap
import types
from collections.abc import Callable
from typing import Any

from tfcluster.framework.converted_code import register_converted_code
from tfcluster.lib.autograph import operators

_uid = itertools.count(1)
DO_NOT_CONVERT_ATTR = "__ag_do_not_convert__"
CONVERTED_ATTR = "__ag_converted__"


class AutographNotSupportedError(NotImplementedError):
    """A Python construct AutoGraph in tfcluster does not convert."""


def convert(fn: Callable[..., Any], recursive: bool = True) -> Callable[..., Any]:
    """The converted function (fn itself when it has no Python source or asked not to be)."""
    if getattr(fn, DO_NOT_CONVERT_ATTR, False) or getattr(fn, CONVERTED_ATTR, False):
        return fn
    if isinstance(fn, functools.partial):
        inner = convert(fn.func, recursive)
        return functools.partial(inner, *fn.args, **fn.keywords)
    if inspect.ismethod(fn):
        return types.MethodType(convert(fn.__func__, recursive), fn.__self__)
    if not inspect.isfunction(fn) or fn.__name__ == "<lambda>":
        return fn
    try:
        tree, source_name = _parse(fn)
    except (OSError, TypeError, SyntaxError):
        return fn  # no source to read: run as written (TF does too, with a warning)
    converted_tree = _convert_tree(tree, fn)
    factory_name = f"__ag_factory_{next(_uid)}"
    freevars = fn.__code__.co_freevars
    factory = _def(
        factory_name,
        ["ag__", *freevars],
        [converted_tree, ast.Return(value=ast.Name(id=converted_tree.name, ctx=ast.Load()))],
    )
    module = ast.fix_missing_locations(ast.Module(body=[factory], type_ignores=[]))
    code = compile(module, source_name, "exec")
    register_converted_code(code)
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    make = types.FunctionType(factory_code, fn.__globals__, factory_name)
    cells = [c.cell_contents for c in (fn.__closure__ or ())]
    new_fn = make(operators, *cells)
    new_fn.__defaults__ = fn.__defaults__
    new_fn.__kwdefaults__ = fn.__kwdefaults__
    functools.update_wrapper(new_fn, fn)
    del new_fn.__wrapped__
    setattr(new_fn, CONVERTED_ATTR, True)
    return new_fn  # type: ignore[no-any-return]


def to_code(fn: Callable[..., Any]) -> str:
    """The converted function's source."""
    tree, _ = _parse(fn)
    return ast.unparse(ast.fix_missing_locations(_convert_tree(tree, fn))) + "\n"


def _parse(fn: Callable[..., Any]) -> tuple[ast.FunctionDef, str]:
    lines, first_line = inspect.getsourcelines(fn)
    module = ast.parse(textwrap.dedent("".join(lines)))
    node = module.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise TypeError(f"{fn!r} is not defined by a def statement")
    # The converted code keeps the lines of the file (tracebacks and TF's "From prog.py:<line>"
    # warnings name the program's own lines, as TF's source maps do).
    ast.increment_lineno(node, max(first_line, 1) - 1)
    return node, inspect.getsourcefile(fn) or "<autograph>"


def _convert_tree(tree: ast.FunctionDef, fn: Callable[..., Any]) -> ast.FunctionDef:
    tree = _Converter(fn.__name__).visit_function(tree)
    return tree


# ---- name analysis ---------------------------------------------------------------------------
class _Assigned(ast.NodeVisitor):
    """Names a block binds (not inside nested functions, lambdas or comprehensions)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def _add(self, name: str) -> None:
        if name not in self.names:
            self.names.append(name)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            self._add(node.id)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if not node.name.startswith("ag__"):
            self._add(node.name)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        return None

    def visit_ListComp(self, node: ast.ListComp) -> None:
        return None

    visit_SetComp = visit_ListComp  # type: ignore[assignment]
    visit_DictComp = visit_ListComp  # type: ignore[assignment]
    visit_GeneratorExp = visit_ListComp  # type: ignore[assignment]


def _assigned(stmts: list[ast.stmt]) -> list[str]:
    v = _Assigned()
    for s in stmts:
        v.visit(s)
    return v.names


def _contains(stmts: list[ast.stmt], kinds: tuple[type, ...], stop_at_loops: bool) -> bool:
    """Whether `kinds` occur in the block (not in nested functions; with stop_at_loops, not in
    nested loops either: a break there belongs to that loop)."""
    stack: list[ast.AST] = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, kinds):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if stop_at_loops and isinstance(node, (ast.For, ast.While)):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def _name(id_: str, store: bool = False) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _ag(attr: str) -> ast.Attribute:
    return ast.Attribute(value=_name("ag__"), attr=attr, ctx=ast.Load())


def _tuple(names: list[str], store: bool = False) -> ast.Tuple:
    return ast.Tuple(
        elts=[_name(n, store) for n in names], ctx=ast.Store() if store else ast.Load()
    )


def _str_tuple(names: list[str]) -> ast.Tuple:
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


def _def(name: str, params: list[str], body: list[ast.stmt]) -> ast.FunctionDef:
    fields: dict[str, Any] = {}
    if "type_params" in ast.FunctionDef._fields:  # Python 3.12+
        fields["type_params"] = []
    return ast.FunctionDef(
        name=name,
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=p) for p in params],
            kwonlyargs=[],
            kw_defaults=[],
            defaults=[],
        ),
        body=body or [ast.Pass()],
        decorator_list=[],
        returns=None,
        **fields,
    )


def _current_values(names: list[str]) -> ast.Tuple:
    """(ag__.ld(locals(), 'a'), ...): each name's value, or Undefined when unbound."""
    locals_call = ast.Call(func=_name("locals"), args=[], keywords=[])
    return ast.Tuple(
        elts=[
            ast.Call(func=_ag("ld"), args=[locals_call, ast.Constant(n)], keywords=[])
            for n in names
        ],
        ctx=ast.Load(),
    )


# ---- the converter ---------------------------------------------------------------------------
class _Converter(ast.NodeTransformer):
    def __init__(self, fn_name: str) -> None:
        self.fn_name = fn_name
        self.counter = itertools.count(1)

    def visit_function(self, tree: ast.FunctionDef) -> ast.FunctionDef:
        tree.decorator_list = []
        if _contains(tree.body, (ast.Yield, ast.YieldFrom), stop_at_loops=False):
            raise AutographNotSupportedError(
                f"{self.fn_name}: generators (yield) are not converted by AutoGraph"
            )
        tree.body = self._block(_lift_returns(tree.body))
        return tree

    def _block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for s in stmts:
            r = self.visit(s)
            if isinstance(r, list):
                out.extend(r)
            elif r is not None:
                out.append(r)
        return out

    # nested functions keep their own bodies (they are called as written)
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        fn = "and_" if isinstance(node.op, ast.And) else "or_"
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = ast.Call(
                func=_ag(fn),
                args=[
                    ast.Lambda(args=_no_args(), body=value),
                    ast.Lambda(args=_no_args(), body=result),
                ],
                keywords=[],
            )
        return result

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.Call(func=_ag("not_"), args=[node.operand], keywords=[])
        return node

    def visit_If(self, node: ast.If) -> list[ast.stmt]:
        k = next(self.counter)
        test = self.visit(node.test)
        returns = _ends_with_return(node.body) and _ends_with_return(node.orelse)
        body, orelse = list(node.body), list(node.orelse)
        retval = f"ag__retval_{k}"
        if returns:
            body = [*body[:-1], _assign(retval, body[-1].value)]  # type: ignore[attr-defined]
            orelse = [*orelse[:-1], _assign(retval, orelse[-1].value)]  # type: ignore[attr-defined]
        for block in (body, orelse):
            if _contains(block, (ast.Return,), stop_at_loops=False):
                raise AutographNotSupportedError(
                    f"{self.fn_name}: a return inside a converted if (line {node.lineno}) must end "
                    "both branches (or the if's branch, with the rest of the function after it)"
                )
        body = self._block(body)
        orelse = self._block(orelse)
        names = [n for n in _assigned(body + orelse)]
        true_name, false_name = f"ag__if_true_{k}", f"ag__if_false_{k}"
        stmts: list[ast.stmt] = [
            _def(true_name, names, [*body, ast.Return(value=_tuple(names))]),
            _def(false_name, names, [*orelse, ast.Return(value=_tuple(names))]),
        ]
        call = ast.Call(
            func=_ag("if_stmt"),
            args=[
                test,
                _name(true_name),
                _name(false_name),
                _current_values(names),
                _str_tuple(names),
            ],
            keywords=[],
        )
        if names:
            stmts.append(ast.Assign(targets=[_tuple(names, store=True)], value=call))
        else:
            stmts.append(ast.Expr(value=call))
        if returns:
            stmts.append(ast.Return(value=_name(retval)))
        return stmts

    def _check_loop(self, node: ast.While | ast.For, what: str) -> None:
        if node.orelse:
            raise AutographNotSupportedError(
                f"{self.fn_name}: a {what} loop with an else clause (line {node.lineno}) is not "
                "converted"
            )
        if _contains(node.body, (ast.Break, ast.Continue), stop_at_loops=True):
            raise AutographNotSupportedError(
                f"{self.fn_name}: break/continue in a {what} loop (line {node.lineno}) is not "
                "converted; use the loop's condition instead"
            )
        if _contains(node.body, (ast.Return,), stop_at_loops=False):
            raise AutographNotSupportedError(
                f"{self.fn_name}: return inside a {what} loop (line {node.lineno}) is not converted"
            )

    def visit_While(self, node: ast.While) -> list[ast.stmt]:
        self._check_loop(node, "while")
        k = next(self.counter)
        opts, body_stmts = _loop_options(node.body)
        body = self._block(body_stmts)
        test = self.visit(node.test)
        names = _assigned(body)
        test_name, body_name = f"ag__loop_test_{k}", f"ag__loop_body_{k}"
        stmts: list[ast.stmt] = [
            _def(test_name, names, [ast.Return(value=test)]),
            _def(body_name, names, [*body, ast.Return(value=_tuple(names))]),
        ]
        call = ast.Call(
            func=_ag("while_stmt"),
            args=[_name(test_name), _name(body_name), _current_values(names), _str_tuple(names)],
            keywords=[ast.keyword(arg="opts", value=opts)],
        )
        if names:
            stmts.append(ast.Assign(targets=[_tuple(names, store=True)], value=call))
        else:
            stmts.append(ast.Expr(value=call))
        return stmts

    def visit_For(self, node: ast.For) -> list[ast.stmt]:  # type: ignore[override]
        self._check_loop(node, "for")
        k = next(self.counter)
        opts, body_stmts = _loop_options(node.body)
        iterated = self.visit(node.iter)
        if (
            isinstance(iterated, ast.Call)
            and isinstance(iterated.func, ast.Name)
            and iterated.func.id == "range"
        ):
            iterated = ast.Call(func=_ag("range_"), args=iterated.args, keywords=[])
        item = f"ag__item_{k}"
        target_assign = ast.Assign(targets=[node.target], value=_name(item))
        body = self._block(body_stmts)
        names = _assigned([target_assign, *body])
        body_name = f"ag__loop_body_{k}"
        stmts: list[ast.stmt] = [
            _def(
                body_name, [item, *names], [target_assign, *body, ast.Return(value=_tuple(names))]
            ),
        ]
        call = ast.Call(
            func=_ag("for_stmt"),
            args=[iterated, _name(body_name), _current_values(names), _str_tuple(names)],
            keywords=[ast.keyword(arg="opts", value=opts)],
        )
        if names:
            stmts.append(ast.Assign(targets=[_tuple(names, store=True)], value=call))
        else:
            stmts.append(ast.Expr(value=call))
        return stmts


def _no_args() -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])


def _assign(name: str, value: ast.expr | None) -> ast.Assign:
    return ast.Assign(targets=[_name(name, store=True)], value=value or ast.Constant(None))


def _ends_with_return(block: list[ast.stmt]) -> bool:
    return bool(block) and isinstance(block[-1], ast.Return)


def _lift_returns(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """`if c: ...; return a` followed by more statements becomes `if c: ... return a`
    `else: <the rest>`, so that both branches end in a return (recursively)."""
    out: list[ast.stmt] = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.If):
            s.body = _lift_returns(s.body)
            s.orelse = _lift_returns(s.orelse)
            rest = stmts[i + 1 :]
            if _ends_with_return(s.body) and not s.orelse and rest:
                s.orelse = _lift_returns(list(rest))
                out.append(s)
                return out
            if _ends_with_return(s.body) and not _ends_with_return(s.orelse) and rest:
                s.orelse = _lift_returns(s.orelse + list(rest))
                out.append(s)
                return out
        out.append(s)
    return out


def _is_loop_options(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return False
    func = stmt.value.func
    return (isinstance(func, ast.Attribute) and func.attr == "set_loop_options") or (
        isinstance(func, ast.Name) and func.id == "set_loop_options"
    )


def _loop_options(body: list[ast.stmt]) -> tuple[ast.expr, list[ast.stmt]]:
    """The keywords of a leading set_loop_options(...) call, as a dict expression."""
    if body and _is_loop_options(body[0]):
        call = body[0].value  # type: ignore[attr-defined]
        if call.args:
            raise AutographNotSupportedError("set_loop_options takes keyword arguments only")
        keys: list[ast.expr | None] = [ast.Constant(kw.arg) for kw in call.keywords]
        values = [kw.value for kw in call.keywords]
        return ast.Dict(keys=keys, values=values), body[1:]
    return ast.Dict(keys=[], values=[]), body


__all__ = ["AutographNotSupportedError", "convert", "to_code"]
