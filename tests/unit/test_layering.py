"""The house rules of the package's layout, read from the import statements of every module.

Each top-level folder of server/tfcluster (framework, ops, gradients, kernels, runtime,
distributed, rpc, client, training, cli, api, ...) is one layer. The rules:
- no import cycle between folders (a folder may import those below it, never one above);
- framework/ is the floor: it imports nothing but itself and the generated protos;
- distributed/ (master and worker, transport-free) imports nothing from rpc/ (the transport).

Every `import` statement counts, at module level or inside a function, so that moving an
import into a function cannot hide a dependency. Imports made by name at run time
(importlib) are not seen. A failure prints the chain of imports that breaks the rule.
"""

from __future__ import annotations

import ast
import collections
import itertools
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "tfcluster"
ROOT = "tfcluster"  # the public namespace (tfcluster/__init__.py): it may import anything


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, e.g. tfcluster.framework.graph
    line: int
    target: str  # the imported module, e.g. tfcluster.client.session

    def __str__(self) -> str:
        path = self.module.replace(".", "/")
        return f"{path}.py:{self.line} imports {self.target}"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _folder(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ROOT


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module an ImportFrom names (relative imports resolved against `module`)."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _collect_imports() -> tuple[set[str], list[Import]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {_module_name(p) for p in paths}
    found: list[Import] = []
    for path in paths:
        module = _module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _resolve(node, module, path.name == "__init__.py")
                # `from pkg import name` imports the submodule pkg.name when there is one.
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                    for a in node.names
                ]
            for target in targets:
                if target == ROOT or target.startswith(ROOT + "."):
                    found.append(Import(module, node.lineno, target))
    return modules, found


MODULES, IMPORTS = _collect_imports()


def _edges() -> dict[tuple[str, str], list[Import]]:
    """Folder -> folder, with the imports that make each arrow."""
    edges: dict[tuple[str, str], list[Import]] = collections.defaultdict(list)
    for imp in IMPORTS:
        src, dst = _folder(imp.module), _folder(imp.target)
        if src != dst:
            edges[(src, dst)].append(imp)
    return edges


def _strongly_connected(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The folder groups that import each other in a circle (Tarjan), each of 2+ folders."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(frozenset(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def _shortest_cycle(graph: dict[str, set[str]], group: frozenset[str]) -> list[str]:
    """A shortest circle through the group's first folder, as [a, b, ..., a]."""
    start = min(group)
    paths = {start: [start]}
    queue = collections.deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(graph.get(v, set()) & group):
            if w == start:
                return [*paths[v], start]
            if w not in paths:
                paths[w] = [*paths[v], w]
                queue.append(w)
    raise AssertionError(f"no circle through {start} in {sorted(group)}")


def _describe_chain(chain: list[str], edges: dict[tuple[str, str], list[Import]]) -> str:
    lines = [" -> ".join(chain)]
    for src, dst in itertools.pairwise(chain):
        imps = edges[(src, dst)]
        more = f" (and {len(imps) - 1} more)" if len(imps) > 1 else ""
        lines.append(f"  {src} -> {dst}: {imps[0]}{more}")
    return "\n".join(lines)


def _imports_from(folder: str, allowed: set[str]) -> list[Import]:
    return [
        imp
        for imp in IMPORTS
        if _folder(imp.module) == folder and _folder(imp.target) not in allowed | {folder}
    ]


def test_the_reader_sees_every_folder_and_their_imports() -> None:
    folders = {_folder(m) for m in MODULES}
    assert {"framework", "ops", "kernels", "runtime", "distributed", "rpc", "client"} <= folders
    # A known arrow, so an empty scan cannot pass the rules below.
    assert any(
        imp.module == "tfcluster.ops.math_ops" and imp.target == "tfcluster.framework.graph"
        for imp in IMPORTS
    )


def test_no_import_cycle_between_folders() -> None:
    edges = _edges()
    graph: dict[str, set[str]] = collections.defaultdict(set)
    for src, dst in edges:
        graph[src].add(dst)
    groups = _strongly_connected(graph)
    assert not groups, "Folders import each other in a circle:\n" + "\n".join(
        f"{', '.join(sorted(g))}; one circle:\n{_describe_chain(_shortest_cycle(graph, g), edges)}"
        for g in groups
    )


def test_framework_is_the_floor() -> None:
    """framework/ imports only itself and the generated protos: never client/, ops/, ..."""
    bad = _imports_from("framework", {"protos"})
    assert not bad, "framework/ imports a folder above it:\n" + "\n".join(f"  {b}" for b in bad)


def test_distributed_imports_nothing_from_rpc() -> None:
    bad = [imp for imp in _imports_from("distributed", set()) if _folder(imp.target) == "rpc"]
    assert not bad, "distributed/ imports the transport:\n" + "\n".join(f"  {b}" for b in bad)
