"""A traced step (RunMetadata.step_stats) as a Chrome trace (chrome://tracing, Perfetto):
the same JSON TensorFlow's timeline writes (tensorflow/python/client/timeline.py).

Each device gets two processes, "<device> Compute" (one complete event per node, on lanes
that never overlap) and "<device> Tensors" (the node outputs, with show_memory); flow events
join a tensor's producer to its consumers on other lanes or devices (show_dataflow), and an
"Allocators" process carries the bytes each allocator holds over time (show_memory).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

_LABEL = re.compile(r"(.*) = (.*)\((.*)\)")


def parse_timeline_label(label: str) -> tuple[str, str, list[str]]:
    """'name = Op(a, b)' -> ('name', 'Op', ['a', 'b']); anything else is unknown."""
    match = _LABEL.match(label)
    if match is None:
        return "unknown", "unknown", []
    name, op, inputs = match.groups()
    return name, op, inputs.split(", ") if inputs else []


class AllocationMaximum(NamedTuple):
    timestamp: int
    num_bytes: int
    tensors: set[str]


class StepStatsAnalysis(NamedTuple):
    chrome_trace: ChromeTrace
    allocator_maximums: dict[str, AllocationMaximum]


class ChromeTrace:
    """Trace events in the Chrome trace event format: metadata first, then the events."""

    def __init__(self) -> None:
        self._metadata: list[dict[str, Any]] = []
        self._events: list[dict[str, Any]] = []

    def _event(
        self, ph: str, cat: str, name: str, pid: int, tid: int, ts: int, **more: Any
    ) -> None:
        self._events.append(
            {"ph": ph, "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, **more}
        )

    def process_name(self, name: str, pid: int) -> None:
        self._metadata.append(
            {"name": "process_name", "ph": "M", "pid": pid, "args": {"name": name}}
        )

    def thread_name(self, name: str, pid: int, tid: int) -> None:
        self._metadata.append(
            {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}}
        )

    def region(self, ts: int, dur: int, pid: int, tid: int, cat: str, name: str, args: Any) -> None:
        self._event("X", cat, name, pid, tid, ts, dur=dur, args=args)

    def object_created(self, cat: str, name: str, ts: int, pid: int, tid: int, oid: int) -> None:
        self._event("N", cat, name, pid, tid, ts, id=oid)

    def object_deleted(self, cat: str, name: str, ts: int, pid: int, tid: int, oid: int) -> None:
        self._event("D", cat, name, pid, tid, ts, id=oid)

    def object_snapshot(
        self, cat: str, name: str, ts: int, pid: int, tid: int, oid: int, snapshot: Any
    ) -> None:
        self._event("O", cat, name, pid, tid, ts, id=oid, args={"snapshot": snapshot})

    def flow_start(self, name: str, ts: int, pid: int, tid: int, flow_id: int) -> None:
        self._event("s", "DataFlow", name, pid, tid, ts, id=flow_id)

    def flow_end(self, name: str, ts: int, pid: int, tid: int, flow_id: int) -> None:
        self._event("t", "DataFlow", name, pid, tid, ts, id=flow_id)

    def counter(self, cat: str, name: str, pid: int, ts: int, counter: str, value: int) -> None:
        self._event("C", cat, name, pid, 0, ts, args={counter: value})

    def counters(self, cat: str, name: str, pid: int, ts: int, values: dict[str, Any]) -> None:
        self._event("C", cat, name, pid, 0, ts, args=dict(values))

    def format_to_string(self, pretty: bool = False) -> str:
        trace = {"traceEvents": self._metadata + self._events}
        if pretty:
            return json.dumps(trace, indent=4, separators=(",", ": "))
        return json.dumps(trace, separators=(",", ":"))


@dataclass
class _Tensor:
    name: str
    object_id: int
    create_time: int
    pid: int
    allocator: str
    num_bytes: int
    unref_times: list[int] = field(default_factory=list)

    @property
    def last_unref(self) -> int:
        return max(self.unref_times)


def _is_gpu_trace(device: str) -> bool:
    """Devices of the GPU tracer (streams, memcpy), whose node names are 'name:op'."""
    return "/stream:" in device or "/memcpy" in device


def _lanes(node_stats: Iterable[Any]) -> list[int]:
    """A lane per node so that no two nodes of one lane overlap (first lane free at start)."""
    ends = [0]
    out = []
    for ns in node_stats:
        free = [i for i, end in enumerate(ends) if ns.all_start_micros > end]
        lane = free[0] if free else len(ends)
        if not free:
            ends.append(0)
        ends[lane] = ns.all_start_micros + ns.all_end_rel_micros
        out.append(lane)
    return out


class Timeline:
    """tensorflow.python.client.timeline.Timeline: one traced step, drawn."""

    def __init__(self, step_stats: Any, graph: Any = None) -> None:
        self._step_stats = step_stats
        self._graph = graph
        self._trace = ChromeTrace()
        self._next_pid = 0
        self._allocators_pid = -1
        self._device_pids: dict[str, int] = {}
        self._tensor_pids: dict[str, int] = {}
        self._lanes: dict[str, list[int]] = {}
        self._tensors: dict[str, _Tensor] = {}
        self._flow_starts: dict[str, tuple[int, int, int]] = {}
        self._next_flow_id = 0
        self._allocator_maximums: dict[str, AllocationMaximum] = {}

    def _new_pid(self) -> int:
        pid = self._next_pid
        self._next_pid += 1
        return pid

    def _allocate_pids(self) -> None:
        self._allocators_pid = self._new_pid()
        self._trace.process_name("Allocators", self._allocators_pid)
        for dev in self._step_stats.dev_stats:
            compute, tensors = self._new_pid(), self._new_pid()
            self._device_pids[dev.device] = compute
            self._tensor_pids[dev.device] = tensors
            self._trace.process_name(dev.device + " Compute", compute)
            self._trace.process_name(dev.device + " Tensors", tensors)

    def _assign_lanes(self) -> None:
        for dev in self._step_stats.dev_stats:
            self._lanes[dev.device] = _lanes(dev.node_stats)

    def _analyze_tensors(self, show_memory: bool) -> None:
        for dev in self._step_stats.dev_stats:
            device_pid = self._device_pids[dev.device]
            tensors_pid = self._tensor_pids[dev.device]
            for ns, tid in zip(dev.node_stats, self._lanes[dev.device]):
                start = ns.all_start_micros
                end = start + ns.all_end_rel_micros
                for index, output in enumerate(ns.output):
                    name = ns.node_name if index == 0 else f"{ns.node_name}:{index}"
                    alloc = output.tensor_description.allocation_description
                    tensor = _Tensor(
                        name, len(self._tensors), start, tensors_pid,
                        alloc.allocator_name, alloc.requested_bytes,
                    )  # fmt: skip
                    self._tensors[name] = tensor
                    tensor.unref_times.append(end)
                    self._flow_starts[name] = (end, device_pid, tid)
                    if show_memory:
                        self._trace.object_created(
                            "Tensor", name, start, tensors_pid, tid, tensor.object_id
                        )
                        description = str(output.tensor_description).replace('"', "")
                        self._trace.object_snapshot(
                            "Tensor", name, end - 1, tensors_pid, tid, tensor.object_id,
                            {"tensor_description": description},
                        )  # fmt: skip

    def _show_compute(self, show_dataflow: bool) -> None:
        for dev in self._step_stats.dev_stats:
            device_pid = self._device_pids[dev.device]
            gpu_trace = _is_gpu_trace(dev.device)
            for ns, tid in zip(dev.node_stats, self._lanes[dev.device]):
                start = ns.all_start_micros
                end = start + ns.all_end_rel_micros
                name = ns.node_name
                inputs: list[str] = []
                if gpu_trace:
                    name, op = [*name.split(":"), "unknown"][:2]
                elif name == "RecvTensor":
                    op = "RecvTensor"
                else:
                    _, op, inputs = parse_timeline_label(ns.timeline_label)
                args = {"name": name, "op": op}
                args.update({f"input{i}": n for i, n in enumerate(inputs)})
                self._trace.region(start, ns.all_end_rel_micros, device_pid, tid, "Op", op, args)
                for input_name in inputs:
                    self._consume(input_name, start, end, device_pid, tid, show_dataflow)

    def _consume(
        self, input_name: str, start: int, end: int, pid: int, tid: int, show_dataflow: bool
    ) -> None:
        if input_name not in self._tensors:
            cut = input_name.rfind("/_")  # a tensor received from another device
            if cut > 0:
                input_name = input_name[:cut]
        tensor = self._tensors.get(input_name)
        if tensor is None:
            return
        tensor.unref_times.append(end - 1)
        if not show_dataflow:
            return
        made_at, made_pid, made_tid = self._flow_starts[input_name]
        if made_pid != pid or made_tid != tid:
            flow_id = self._next_flow_id
            self._next_flow_id += 1
            self._trace.flow_start(input_name, made_at, made_pid, made_tid, flow_id)
            self._trace.flow_end(input_name, start, pid, tid, flow_id)

    def _show_memory_counters(self) -> None:
        by_allocator: dict[str, list[tuple[int, int, str]]] = {}
        for name, tensor in self._tensors.items():
            self._trace.object_deleted(
                "Tensor", name, tensor.last_unref, tensor.pid, 0, tensor.object_id
            )
            changes = by_allocator.setdefault(tensor.allocator, [])
            changes.append((tensor.create_time, tensor.num_bytes, name))
            changes.append((tensor.last_unref, -tensor.num_bytes, name))
        for allocator, changes in by_allocator.items():
            changes.sort()
            total = 0
            live: set[str] = set()
            best = AllocationMaximum(timestamp=0, num_bytes=0, tensors=set())
            for ts, num_bytes, name in changes:
                total += num_bytes
                if num_bytes < 0:
                    live.discard(name)
                else:
                    live.add(name)
                if total > best.num_bytes:
                    best = AllocationMaximum(timestamp=ts, num_bytes=total, tensors=set(live))
                self._trace.counter("Memory", allocator, self._allocators_pid, ts, allocator, total)
            self._allocator_maximums[allocator] = best

    def analyze_step_stats(
        self, show_dataflow: bool = True, show_memory: bool = True
    ) -> StepStatsAnalysis:
        self._allocate_pids()
        self._assign_lanes()
        self._analyze_tensors(show_memory)
        self._show_compute(show_dataflow)
        if show_memory:
            self._show_memory_counters()
        return StepStatsAnalysis(self._trace, self._allocator_maximums)

    def generate_chrome_trace_format(
        self, show_dataflow: bool = True, show_memory: bool = False
    ) -> str:
        """The trace as JSON text (indented)."""
        analysis = self.analyze_step_stats(show_dataflow=show_dataflow, show_memory=show_memory)
        return analysis.chrome_trace.format_to_string(pretty=True)


__all__ = [
    "AllocationMaximum",
    "ChromeTrace",
    "StepStatsAnalysis",
    "Timeline",
    "parse_timeline_label",
]
