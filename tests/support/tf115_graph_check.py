"""Checks a GraphDef against TF 1.15's op defs (framework/tf115_op_defs.json), as TF's
importer would: every node's op type is one TF 1.15 has (or a function of the library),
every attr not starting with "_" is declared with the right kind, required attrs are
there, and the node has as many inputs as its op def says. Function bodies in the library
are checked the same way."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import op_signatures

# AttrValue's oneof field for each OpDef attr type.
_KIND = {
    "int": "i",
    "float": "f",
    "bool": "b",
    "string": "s",
    "type": "type",
    "shape": "shape",
    "tensor": "tensor",
    "func": "func",
}


def _attr_problem(kind: str, value: Any) -> str | None:
    have = value.WhichOneof("value")
    if kind.startswith("list("):
        if have != "list":
            return f"is {have}, TF's op def says {kind}"
        inner = _KIND.get(kind[5:-1])
        for field in ("i", "f", "b", "s", "type", "shape", "tensor", "func"):
            if field != inner and len(getattr(value.list, field)):
                return f"holds a list of {field}, TF's op def says {kind}"
        return None
    if have != _KIND.get(kind, kind):
        return f"is {have}, TF's op def says {kind}"
    return None


def _expected_inputs(sig: op_signatures.OpSignature, node: Any) -> int | None:
    total = 0
    for arg in sig.inputs:
        if arg.number_attr is not None:
            if arg.number_attr not in node.attr:
                return None
            total += int(node.attr[arg.number_attr].i)
        elif arg.type_list_attr is not None:
            if arg.type_list_attr not in node.attr:
                return None
            total += len(node.attr[arg.type_list_attr].list.type)
        else:
            total += 1
    return total


def node_problems(node: Any, functions: set[str], where: str = "") -> list[str]:
    at = f"{where}node '{node.name}' ({node.op})"
    if node.op in functions:
        return []
    sig = op_signatures.lookup(node.op)
    if sig is None:
        return [f"{at}: op type unknown to TF 1.15"]
    problems = []
    declared = {a.name: a for a in sig.attrs}
    for key, value in node.attr.items():
        if key.startswith("_"):
            continue
        if key not in declared:
            problems.append(f"{at}: attr '{key}' is not in TF's op def")
            continue
        bad = _attr_problem(declared[key].type, value)
        if bad:
            problems.append(f"{at}: attr '{key}' {bad}")
        if declared[key].type == "func" and value.func.name not in functions:
            problems.append(f"{at}: attr '{key}' names '{value.func.name}', not in the library")
    for a in sig.attrs:
        if not a.has_default and a.name not in node.attr:
            problems.append(f"{at}: required attr '{a.name}' is missing")
    expected = _expected_inputs(sig, node)
    given = sum(1 for i in node.input if not i.startswith("^"))
    if expected is not None and given != expected:
        problems.append(f"{at}: {given} inputs, TF's op def takes {expected}")
    return problems


def graph_def_problems(graph_def: Any) -> list[str]:
    """Every way TF 1.15's importer would refuse the GraphDef (empty: it imports)."""
    functions = {f.signature.name for f in graph_def.library.function}
    problems = []
    for node in graph_def.node:
        problems.extend(node_problems(node, functions))
    for f in graph_def.library.function:
        for node in f.node_def:
            problems.extend(node_problems(node, functions, f"function '{f.signature.name}' "))
    return problems
