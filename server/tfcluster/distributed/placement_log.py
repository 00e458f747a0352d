"""ConfigProto.log_device_placement: the lines TF 1.15 prints when it places a graph.

TF 1.15 prints (printf, to stdout) and logs (its C++ INFO log, to stderr):
- when a local session is made (DirectSession): "Device mapping:" and a line per device that
  has a physical description;
- whenever it places the session's graph, i.e. at the first run after the graph grew: a
  line "name: (Type): device" for every node of the whole graph (not only the nodes the run
  needs), in the order its placer assigns them: nodes that are not "generators" first, then
  the generators (no inputs, one output that is not a ref: constants, placeholders, resource
  handles), which the placer puts last so that they join their consumers; each group in graph
  order. A grpc:// session's master (the server process) prints the node lines; neither the
  server nor the client prints a device mapping;
- where a local session's config places pruned graphs (graph_options.place_pruned_graph, as
  InteractiveSession's does), at each new step instead: the nodes that step needs, and the
  `_Arg` / `_Retval` nodes that stand for its feeds and fetches (pruned_step_text).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Collection, Iterable, Mapping

from tfcluster.framework import op_def_registry
from tfcluster.runtime import cpp_log, gpu
from tfcluster.runtime.graph_ir import Node

# TF 1.15's pip wheels (tensorflow and tensorflow-cpu) register an XLA_CPU JIT device in every
# process, and it is the only CPU-side device with a physical description, so a CPU-only TF
# 1.15 prints exactly this mapping. tfcluster has no XLA devices and places nothing there, but
# tutorials' output is compared with TF's, so the mapping says what TF 1.15 says.
_XLA_CPU_LINE = "/job:localhost/replica:0/task:0/device:XLA_CPU:0 -> device: XLA_CPU device"


def device_mapping_text(gpu_descriptions: Iterable[str] = ()) -> str:
    """What a local session prints when made: XLA_CPU, then (as a GPU build of TF 1.15 does)
    each GPU's XLA_GPU twin and the GPU itself, `gpu_descriptions` giving each GPU's
    "device: I, name: ..., pci bus id: ..., compute capability: X.Y" text."""
    local = "/job:localhost/replica:0/task:0/device"
    lines = ["Device mapping:", _XLA_CPU_LINE]
    gpus = list(gpu_descriptions)
    for i in range(len(gpus)):
        lines.append(
            f"/job:localhost/replica:0/task:0/device:XLA_GPU:{i} -> device: XLA_GPU device"
        )
    for i, desc in enumerate(gpus):
        lines.append(f"{local}:GPU:{i} -> {desc}")
    return "\n".join(lines) + "\n"


def gpu_description(index: int, name: str) -> str:
    """TF's physical description of a GPU (cupy is imported: the process has GPUs)."""
    text = f"device: {index}, name: {name}"
    try:
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(index)
        bus = f"{props['pciDomainID']:04x}:{props['pciBusID']:02x}:{props['pciDeviceID']:02x}.0"
        return f"{text}, pci bus id: {bus}, compute capability: {props['major']}.{props['minor']}"
    except Exception:  # an older cupy without these properties: the name is still right
        return text


def print_device_mapping(gpu_descriptions: Iterable[str] = ()) -> None:
    text = device_mapping_text(gpu_descriptions)
    sys.stdout.write(text)
    sys.stdout.flush()
    # TF's stderr log line holds the same text, followed by an empty line.
    _log("direct_session.cc:359", text + "\n")


def print_local_device_mapping(device_count: Mapping[str, int]) -> None:
    """A local session's mapping: this process's GPUs, as many as ConfigProto.device_count
    lets it have."""
    gpus = gpu.local_gpus()
    if "GPU" in device_count:
        gpus = gpus[: max(0, int(device_count["GPU"]))]
    print_device_mapping([gpu_description(g.index, g.name) for g in gpus])


def placement_order(
    nodes: Mapping[str, Node], output_names: Iterable[str], kept: Collection[str] = ()
) -> list[str]:
    """The nodes (graph order) in the order TF 1.15's placer assigns and logs them."""
    first, generators = _placer_passes(nodes, output_names, kept)
    return first + generators


def _placer_passes(
    nodes: Mapping[str, Node], output_names: Iterable[str], kept: Collection[str] = ()
) -> tuple[list[str], list[str]]:
    """The nodes TF's placer assigns in its first pass, and the generators (no inputs, one
    output that is not a reference) it keeps for last, except those `kept` (stateful nodes
    placed when the graph was smaller: TF's session keeps their devices, so its placer logs
    them where they stand)."""
    outputs = Counter(name.rpartition(":")[0] for name in output_names)
    first: list[str] = []
    generators: list[str] = []
    for name, node in nodes.items():
        last = name not in kept and _is_generator(node, outputs[name])
        (generators if last else first).append(name)
    return first, generators


def pruned_step_text(
    nodes: Mapping[str, Node],
    output_names: Iterable[str],
    placement: Mapping[str, str],
    feeds: Iterable[str],
    fetches: Iterable[str],
    client_device: str,
) -> str:
    """What TF 1.15's DirectSession prints when it places a step's pruned graph (a config
    with graph_options.place_pruned_graph, as InteractiveSession's): the step's nodes (graph
    order, `nodes` holding only them), then the `_Arg` node of each feed the step reads (its
    index: the feed's place among all the step's feeds, sorted) and the `_Retval` node of each
    fetch (index: its place among the sorted fetches), on the client's device, which the
    rewrite adds to the graph already placed; the generators last."""
    first, generators = _placer_passes(nodes, output_names)
    lines = [f"{name}: ({nodes[name].op}): {placement[name]}" for name in first]
    fed = set(feeds)
    read = _tensors_read(nodes)
    for index, feed in enumerate(sorted(fed)):
        if feed in read:
            node, _, port = feed.rpartition(":")
            lines.append(f"_arg_{node}_{port}_{index}: (_Arg): {client_device}")
    # A fetch that is fed is answered by TF's Python client itself: the session never sees it.
    for index, fetch in enumerate(sorted(f for f in fetches if f not in fed)):
        node, _, port = fetch.rpartition(":")
        lines.append(f"_retval_{node}_{port}_{index}: (_Retval): {client_device}")
    lines += [f"{name}: ({nodes[name].op}): {placement[name]}" for name in generators]
    return "".join(line + "\n" for line in lines)


def _tensors_read(nodes: Mapping[str, Node]) -> set[str]:
    """The tensors `nodes` read, and "name:0" of the nodes they take control edges from."""
    read: set[str] = set()
    for node in nodes.values():
        read.update(f"{src}:{idx}" for src, idx in node.inputs)
        read.update(f"{c}:0" for c in node.control_inputs)
    return read


def stateful_nodes(placement: Mapping[str, str], nodes: Mapping[str, Node]) -> frozenset[str]:
    """The placed nodes whose ops are stateful: those a TF session keeps on their devices as
    its graph grows."""
    out = set()
    for name in placement:
        op_def = op_def_registry.lookup(nodes[name].op)
        if op_def is not None and op_def.stateful:
            out.add(name)
    return frozenset(out)


def unplaceable_node(message: str) -> str | None:
    """The node a placement error names ("Cannot assign a device for operation X: ...")."""
    found = re.match(r"Cannot assign a device for operation ([^:]+):", message)
    return found.group(1) if found else None


def _is_generator(node: Node, num_outputs: int) -> bool:
    if node.inputs or num_outputs != 1:
        return False
    op_def = op_def_registry.lookup(node.op)
    return not (op_def is not None and op_def.ref_outputs)


def placement_text(
    nodes: Mapping[str, Node],
    output_names: Iterable[str],
    placement: Mapping[str, str],
    kept: Collection[str] = (),
) -> str:
    return "".join(
        f"{name}: ({nodes[name].op}): {placement[name]}\n"
        for name in placement_order(nodes, output_names, kept)
        if name in placement
    )


def print_placement(text: str) -> None:
    """Each node's line on stdout, then the same line in the log, node after node (as TF's
    placer prints and logs them: one stream holding both has them interleaved)."""
    for line in text.splitlines():
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
        _log("placer.cc:54", line + "\n")


def _log(where: str, text: str) -> None:
    cpp_log.info(f"tensorflow/core/common_runtime/{where}", text)
