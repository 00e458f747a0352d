"""tf.profiler.profile / advise / Profiler / write_op_log over a tfcluster Graph.

The scope, graph and op views are built here (see views.py); the code view needs the Python
stack of each op's creation, which tfcluster graphs do not keep: it raises
UnimplementedError naming it.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from tfcluster.framework import errors
from tfcluster.framework.graph import Graph, get_default_graph
from tfcluster.lib.profiler import profile_nodes, text_report, views
from tfcluster.lib.profiler.option_builder import ProfileOptionBuilder
from tfcluster.protos import tfprof_log_pb2, tfprof_output_pb2

_VIEWS = ("scope", "graph", "op", "code")
ALL_ADVICE: dict[str, dict[str, Any]] = {
    "ExpensiveOperationChecker": {},
    "AcceleratorUtilizationChecker": {},
    "JobChecker": {},
    "OperationChecker": {},
}


def _check_cmd(cmd: str) -> None:
    if cmd not in _VIEWS:
        raise errors.InvalidArgumentError(None, None, f"Unknown profiler cmd: {cmd}")
    if cmd == "code":
        raise errors.UnimplementedError(
            None,
            None,
            "tf.profiler's code view is not implemented in tfcluster: its graphs do not keep "
            "the Python stack that created each op (use cmd='scope', 'graph' or 'op')",
        )


def _emit(text: str, options: dict[str, Any]) -> None:
    output = str(options.get("output", "stdout"))
    kind, _, rest = output.partition(":")
    if kind == "none":
        return
    if kind == "stdout":
        sys.stdout.write(text)
        return
    if kind == "file":
        path = dict(p.split("=", 1) for p in rest.split(",") if "=" in p).get("outfile")
        if not path:
            raise errors.InvalidArgumentError(None, None, f"output {output!r} names no outfile")
        with open(path, "w") as f:
            f.write(text)
        return
    raise errors.UnimplementedError(
        None, None, f"tf.profiler output {kind!r} is not implemented in tfcluster"
    )


def _report(
    cmd: str, graph: Graph, stats: dict[str, profile_nodes.NodeStats], options: dict[str, Any]
) -> Any:
    if cmd == "op":
        proto, rows, grand = views.op_view(stats, options)
        lines = text_report.op_lines(rows, grand, options)
    else:
        if cmd == "scope":
            tree = views.scope_tree(stats)
        else:
            inputs = {
                op.name: [t.op.name for t in op.inputs] + [c.name for c in op.control_inputs]
                for op in graph.get_operations()
            }
            tree = views.graph_tree(inputs, stats)
        root = views.build_view(tree, options, require_account=cmd == "graph")
        proto = views.to_graph_node_proto(root)
        lines = text_report.tree_lines(root, options)
    if str(options.get("output", "stdout")) != "none":
        text = (
            text_report.options_block(options)
            + text_report.header(cmd, options)
            + "\n".join(lines)
            + "\n"
            + text_report.FOOTER
        )
        _emit(text, options)
    return proto


def profile(
    graph: Graph | None = None,
    run_meta: Any = None,
    op_log: tfprof_log_pb2.OpLogProto | None = None,
    cmd: str = "scope",
    options: Any = 0,  # TF's _DEFAULT_PROFILE_OPTIONS
) -> Any:
    """Profiles `graph` (default: the default graph): a GraphNodeProto for the scope and graph
    views, a MultiGraphNodeProto for the op view."""
    _check_cmd(cmd)
    if options is None or options == 0:
        options = ProfileOptionBuilder.trainable_variables_parameter()
    graph = graph if graph is not None else get_default_graph()
    sys.stdout.write("Parsing Inputs...\n")
    stats = profile_nodes.collect(graph, run_meta, op_log)
    return _report(cmd, graph, stats, options)


def advise(
    graph: Graph | None = None,
    run_meta: Any = None,
    options: Any = 0,  # TF's _DEFAULT_ADVISE_OPTIONS
) -> tfprof_output_pb2.AdviceProto:
    """Runs the checkers named in `options` (default: all) over the graph and run metadata."""
    graph = graph if graph is not None else get_default_graph()
    options = ALL_ADVICE if options is None or options == 0 else options
    stats = profile_nodes.collect(graph, run_meta)
    advice = tfprof_output_pb2.AdviceProto()
    for checker in options:
        reports = _CHECKERS.get(checker)
        if reports is None:
            raise errors.InvalidArgumentError(None, None, f"Unknown profiler checker: {checker}")
        advice.checkers[checker].reports.extend(reports(graph, stats, run_meta))
    for checker, body in advice.checkers.items():
        sys.stdout.write(f"{checker}:\n")
        for r in body.reports:
            sys.stdout.write(f"{r}\n")
    return advice


def _expensive_ops(graph: Graph, stats: dict[str, Any], run_meta: Any) -> list[str]:
    if run_meta is None:
        return []
    by_type: dict[str, list[int]] = {}
    for s in stats.values():
        if s.run_count:
            entry = by_type.setdefault(s.op_types[0], [0, 0, 0])
            entry[0] += s.exec_micros
            entry[1] += s.cpu_exec_micros
            entry[2] += s.accelerator_exec_micros
    total = sum(v[0] for v in by_type.values()) or 1
    top = sorted(by_type.items(), key=lambda kv: (-kv[1][0], kv[0]))[:3]
    return [
        f"top {i + 1} operation type: {name}, cpu: {text_report.format_time(v[1])}, "
        f"accelerator: {text_report.format_time(v[2])}, total: "
        f"{text_report.format_time(v[0])} ({100.0 * v[0] / total:.2f}%)"
        for i, (name, v) in enumerate(top)
    ]


def _accelerator_utilization(graph: Graph, stats: dict[str, Any], run_meta: Any) -> list[str]:
    if run_meta is None or not any(s.accelerator_exec_micros for s in stats.values()):
        return ["No kernel timeline information provided"]
    return []


def _job_checker(graph: Graph, stats: dict[str, Any], run_meta: Any) -> list[str]:
    return []


def _operation_checker(graph: Graph, stats: dict[str, Any], run_meta: Any) -> list[str]:
    reports = []
    nchw_on_cpu = [
        op.name
        for op in graph.get_operations()
        if op.attrs.get("data_format") in ("NCHW", b"NCHW") and "GPU" not in op.device.upper()
    ]
    if nchw_on_cpu:
        reports.append(
            "Found operation using NCHW data_format on CPU, which is usually slower than NHWC: "
            + ", ".join(nchw_on_cpu[:3])
        )
    return reports


_CHECKERS = {
    "ExpensiveOperationChecker": _expensive_ops,
    "AcceleratorUtilizationChecker": _accelerator_utilization,
    "JobChecker": _job_checker,
    "OperationChecker": _operation_checker,
}


def _op_log_for(graph: Graph, op_log: Any = None) -> tfprof_log_pb2.OpLogProto:
    """TF's merged op log: trainable variables typed, FLOP statistics, the given entries."""
    merged: dict[str, tfprof_log_pb2.OpLogEntry] = {}
    stats = profile_nodes.collect(graph)
    for name, s in stats.items():
        extra = [t for t in s.op_types[1:]]
        if s.float_ops or extra:
            entry = tfprof_log_pb2.OpLogEntry(name=name, float_ops=s.float_ops)
            entry.types.extend(extra)
            merged[name] = entry
    if op_log is not None:
        for e in op_log.log_entries:
            entry = merged.setdefault(e.name, tfprof_log_pb2.OpLogEntry(name=e.name))
            if e.float_ops:
                entry.float_ops = e.float_ops
            for t in e.types:
                if t not in entry.types:
                    entry.types.append(t)
    out = tfprof_log_pb2.OpLogProto()
    out.log_entries.extend(merged[k] for k in sorted(merged))
    return out


def write_op_log(
    graph: Graph | None,
    log_dir: str,
    op_log: Any = None,
    run_meta: Any = None,
    add_trace: bool = True,
) -> None:
    """Writes `log_dir`/tfprof_log: the graph's op log (an OpLogProto)."""
    graph = graph if graph is not None else get_default_graph()
    log = _op_log_for(graph, op_log)
    os.makedirs(log_dir, exist_ok=True)
    with open(os.path.join(log_dir, "tfprof_log"), "wb") as f:
        f.write(log.SerializeToString())


class Profiler:
    """Profiles a graph over several steps: add_step(step, run_meta), then profile_*."""

    def __init__(self, graph: Graph | None = None, op_log: Any = None) -> None:
        self._graph = graph if graph is not None else get_default_graph()
        self._op_log = op_log
        self._steps: dict[int, Any] = {}

    def add_step(self, step: int, run_meta: Any) -> None:
        self._steps[int(step)] = run_meta

    def _run_meta(self, options: dict[str, Any]) -> Any:
        if not self._steps:
            return None
        step = int(options.get("step", -1))
        if step < 0:
            step = max(self._steps)
        if step not in self._steps:
            raise errors.InvalidArgumentError(None, None, f"No profile of step {step}")
        return self._steps[step]

    def _profile(self, cmd: str, options: dict[str, Any]) -> Any:
        _check_cmd(cmd)
        stats = profile_nodes.collect(self._graph, self._run_meta(options), self._op_log)
        return _report(cmd, self._graph, stats, options)

    def profile_name_scope(self, options: dict[str, Any]) -> Any:
        return self._profile("scope", options)

    def profile_graph(self, options: dict[str, Any]) -> Any:
        return self._profile("graph", options)

    def profile_operations(self, options: dict[str, Any]) -> Any:
        return self._profile("op", options)

    def profile_python(self, options: dict[str, Any]) -> Any:
        return self._profile("code", options)

    def advise(self, options: dict[str, Any]) -> Any:
        return advise(self._graph, self._run_meta({}), options)

    def serialize_to_string(self) -> bytes:
        return _op_log_for(self._graph, self._op_log).SerializeToString()

    def _write_profile(self, filename: str) -> None:
        with open(filename, "wb") as f:
            f.write(self.serialize_to_string())


__all__ = ["ALL_ADVICE", "Profiler", "advise", "profile", "write_op_log"]
