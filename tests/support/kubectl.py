"""`kubectl` as a user runs it (the binary built with the control plane), and its output read
the way a person reads it: `get` as a table of columns, `describe` as text."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Kubectl:
    binary: Path
    kubeconfig: Path

    def __call__(self, *args: str, timeout: float = 60) -> str:
        done = subprocess.run(
            [str(self.binary), f"--kubeconfig={self.kubeconfig}", *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise AssertionError(
                f"kubectl {' '.join(args)} exited {done.returncode}: {done.stderr}"
            )
        return done.stdout

    def table(self, *args: str) -> list[dict[str, str]]:
        """``kubectl get ...`` as rows of {COLUMN: cell}: cells are cut at the header's
        column starts (kubectl aligns every cell under its header; cells may hold spaces)."""
        return parse_table(self("get", *args))

    def get_tfc(self, namespace: str, name: str) -> dict[str, str]:
        (row,) = self.table("tfc", name, "-n", namespace)
        return row

    def describe_tfc(self, namespace: str, name: str) -> str:
        return self("describe", "tfc", name, "-n", namespace)


def parse_table(text: str) -> list[dict[str, str]]:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return []
    header = lines[0]
    starts = [m.start() for m in re.finditer(r"\S+", header)]
    names = header.split()
    rows = []
    for line in lines[1:]:
        cells = [
            line[start : starts[i + 1] if i + 1 < len(starts) else None].strip()
            for i, start in enumerate(starts)
        ]
        rows.append(dict(zip(names, cells, strict=True)))
    return rows


def describe_conditions(text: str) -> dict[str, dict[str, str]]:
    """The Conditions of ``kubectl describe tfc`` (it prints the status as YAML-like text):
    {type: {Status, Reason, Message, ...}}."""
    conditions: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    inside = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped == "Conditions:":
            inside = True
            continue
        if inside and line and not line.startswith("    "):
            break  # the next top-level field of Status
        if not inside or not stripped:
            continue
        key, _, value = stripped.partition(":")
        if key == "Last Transition Time":
            current = {}
        if current is None:
            continue
        current[key] = value.strip()
        if key == "Type":
            conditions[value.strip()] = current
    return conditions


def describe_events(text: str) -> list[dict[str, str]]:
    """The Events table at the end of ``kubectl describe``: Type, Reason, Age, From, Message."""
    _, found, tail = text.partition("\nEvents:")
    if not found:
        return []
    lines = [line for line in tail.splitlines() if line.strip()]
    if not lines or lines[0].strip() == "<none>":
        return []
    header = lines[0]
    starts = [m.start() for m in re.finditer(r"\S+", header)]
    names = header.split()
    rows = []
    for line in lines[1:]:
        if set(line.strip()) == {"-"} or line.strip().startswith("----"):
            continue
        cells = [
            line[start : starts[i + 1] if i + 1 < len(starts) else None].strip()
            for i, start in enumerate(starts)
        ]
        rows.append(dict(zip(names, cells, strict=True)))
    return rows
