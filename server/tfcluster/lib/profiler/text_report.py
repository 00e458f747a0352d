"""tf.profiler's text report (TF 1.15's tfprof layout): the options, the column docs, then
one line per shown node."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.profiler.profile_nodes import ROOT_NAME
from tfcluster.lib.profiler.views import TreeNode

_OPTION_ORDER: tuple[tuple[str, Any], ...] = (
    ("max_depth", 100),
    ("min_bytes", 0),
    ("min_peak_bytes", 0),
    ("min_residual_bytes", 0),
    ("min_output_bytes", 0),
    ("min_micros", 0),
    ("min_accelerator_micros", 0),
    ("min_cpu_micros", 0),
    ("min_params", 0),
    ("min_float_ops", 0),
    ("min_occurrence", 0),
    ("step", -1),
    ("order_by", "name"),
    ("account_type_regexes", [".*"]),
    ("start_name_regexes", [".*"]),
    ("trim_name_regexes", []),
    ("show_name_regexes", [".*"]),
    ("hide_name_regexes", []),
    ("account_displayed_op_only", False),
    ("select", ["micros"]),
    ("output", "stdout"),
)

_VIEW_DOCS = {
    "scope": "scope: The nodes in the model graph are organized by their names, which is "
    "hierarchical like filesystem.",
    "graph": "graph: The nodes in the model graph are organized by their operation input and "
    "output.",
    "op": "op: The nodes are operation kernel type, such as MatMul, Conv2D. Graph nodes "
    "belonging to the same type are aggregated together.",
}
_SELECT_DOCS = {
    "bytes": "requested bytes: The memory requested by the operation, accumulatively.",
    "float_ops": "flops: Number of float operations. Note: Please read the implementation for "
    "the math behind it.",
    "micros": "total execution time: Sum of accelerator execution time and cpu execution time.\n"
    "cpu execution time: The time from the start to the end of the operation. It's the sum of "
    "actual cpu run time plus the time that it spends waiting if part of computation is "
    "launched asynchronously.\naccelerator execution time: Time spent executing on the "
    "accelerator. This is normally measured by the actual hardware library.",
    "occurrence": "occurrence: The number of times it occurs",
    "op_types": "op_types: The attributes of the operation, includes the Kernel name device "
    "placed on and user-defined strings.",
    "params": "param: Number of parameters (in the Variable).",
    "device": "device: Which device is placed on.",
}
_COLUMNS = (
    ("bytes", "requested bytes"),
    ("micros", "total execution time | accelerator execution time | cpu execution time"),
    ("params", "# parameters"),
    ("float_ops", "# float_ops"),
    ("device", "assigned devices"),
    ("op_types", "op types"),
    ("occurrence", "op count (run|defined)"),
)


def format_number(n: int) -> str:
    if n < 1000:
        return str(n)
    if n < 1000000:
        return f"{n / 1e3:.2f}k"
    if n < 1000000000:
        return f"{n / 1e6:.2f}m"
    return f"{n / 1e9:.2f}b"


def format_time(micros: int) -> str:
    if micros < 1000:
        return f"{micros}us"
    if micros < 1000000:
        return f"{micros / 1e3:.2f}ms"
    return f"{micros / 1e6:.2f}sec"


def format_memory(n: int) -> str:
    if n < 1000:
        return f"{n}B"
    if n < 1000000:
        return f"{n / 1e3:.2f}KB"
    if n < 1000000000:
        return f"{n / 1e6:.2f}MB"
    return f"{n / 1e9:.2f}GB"


def options_block(options: dict[str, Any]) -> str:
    lines = ["", "=========================Options============================="]
    for key, default in _OPTION_ORDER:
        value = options.get(key, default)
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, (list, tuple)):
            text = ",".join(str(v) for v in value)
        elif key == "output":
            kind, _, rest = str(value).partition(":")
            text = f"{kind}:{rest}"
        else:
            text = str(value)
        lines.append(f"-{key:<27}{text}")
    return "\n".join(lines) + "\n"


def header(view: str, options: dict[str, Any]) -> str:
    select = sorted(set(options.get("select", [])))
    docs = [_VIEW_DOCS.get(view, "")] + [_SELECT_DOCS[s] for s in select if s in _SELECT_DOCS]
    columns = ["node name"] + [c for key, c in _COLUMNS if key in select]
    return (
        "\n==================Model Analysis Report======================\n\nDoc:\n"
        + "\n".join(docs)
        + "\n\nProfile:\n"
        + " | ".join(columns)
        + "\n"
    )


FOOTER = "\n======================End of Report==========================\n"


def _own(node: TreeNode, value: str) -> str:
    return value if node.account and node.name != ROOT_NAME else "--"


def format_node(node: TreeNode, options: dict[str, Any]) -> str:
    select = set(options.get("select", []))
    s, t = node.stats, node.totals
    info: list[str] = []
    if "bytes" in select:
        info.append(
            f"{_own(node, format_memory(s.requested_bytes))}/{format_memory(t['requested_bytes'])}"
        )
    if "micros" in select:
        for own, total in (
            (s.exec_micros, t["exec_micros"]),
            (s.accelerator_exec_micros, t["accelerator_exec_micros"]),
            (s.cpu_exec_micros, t["cpu_exec_micros"]),
        ):
            info.append(f"{_own(node, format_time(own))}/{format_time(total)}")
    if "params" in select:
        if s.shape:
            info.append("x".join(str(d) for d in s.shape))
        info.append(
            f"{_own(node, format_number(s.parameters))}/{format_number(t['parameters'])} params"
        )
    if "float_ops" in select:
        info.append(
            f"{_own(node, format_number(s.float_ops))}/{format_number(t['float_ops'])} flops"
        )
    if "device" in select:
        info.append("|".join(s.devices))
    if "op_types" in select:
        info.append("|".join(s.op_types))
    if "occurrence" in select:
        runs = f"{_own(node, str(s.run_count))}/{t['run_count']}"
        defined = f"{_own(node, '1')}/{node.definitions}"
        info.append(f"{runs}|{defined}")
    return f"{node.name} ({', '.join(info)})"


def tree_lines(node: TreeNode, options: dict[str, Any], indent: int = 0) -> list[str]:
    lines = [" " * indent + format_node(node, options)]
    for c in node.children:
        lines.extend(tree_lines(c, options, indent + 2))
    return lines


def op_lines(
    rows: list[tuple[str, dict[str, int], dict[str, int]]],
    grand: dict[str, int],
    options: dict[str, Any],
) -> list[str]:
    """One line per op type: its value and (accumulated %, own %) of the whole, as tfprof's op
    view prints them (each column right-aligned in 30 characters, names in 25)."""
    select = set(options.get("select", []))
    lines = []

    def pct(part: int, whole: int) -> float:
        return 100.0 * part / whole if whole else 0.0

    for name, own, accumulated in rows:
        parts = []
        if "bytes" in select:
            parts.append(format_memory(own["requested_bytes"]))
        if "micros" in select:
            parts.append(format_time(own["exec_micros"]))
        if "params" in select:
            text = (
                f"{format_number(own['parameters'])} params "
                f"({pct(accumulated['parameters'], grand['parameters']):.2f}%, "
                f"{pct(own['parameters'], grand['parameters']):.2f}%)"
            )
            parts.append(f"{text:>30}")
        if "float_ops" in select:
            text = (
                f"{format_number(own['float_ops'])} float_ops "
                f"({pct(accumulated['float_ops'], grand['float_ops']):.2f}%, "
                f"{pct(own['float_ops'], grand['float_ops']):.2f}%)"
            )
            parts.append(f"{text:>30}")
        if "occurrence" in select:
            parts.append(f"{str(own['run_count']) + '|' + str(own.get('definitions', 0)):>10}")
        lines.append(f"{name:<25}{', '.join(parts)}")
    return lines


__all__ = ["FOOTER", "format_number", "header", "op_lines", "options_block", "tree_lines"]
