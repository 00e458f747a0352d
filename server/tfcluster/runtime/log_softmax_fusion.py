"""tf.log(tf.nn.softmax(x)) computed as LogSoftmax(x), as TensorFlow 1.15's arithmetic
optimizer (grappler's LogSoftmaxStage) rewrites it before a step runs.

A classifier written with a hand-made cross entropy, -reduce_sum(y * tf.log(softmax)), prints
a cost TF computed with its LogSoftmax kernel (x - max - log(sum(exp))), not with Log of
Softmax's rounded probabilities: the two differ in the last bit for many rows. TF rewrites a
Log whose input is a Softmax that nothing else reads (its only data reader) and that is not
fetched, fed or targeted; the Log keeps its name (so it may be fetched itself) and the Softmax
becomes an Identity of x, read by nobody. Only in graphs of at least four nodes: TF's meta
optimizer leaves smaller ones alone (RewriterConfig.min_graph_nodes, 4 by default).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from tfcluster.runtime.graph_ir import Node, split_tensor_name

# TF's meta optimizer skips graphs with fewer nodes (kDefaultMinGraphNodes).
MIN_GRAPH_NODES = 4


def fuse_log_softmax(
    nodes: Mapping[str, Node],
    needed: Sequence[str],
    feeds: Collection[str],
    fetches: Collection[str],
    targets: Collection[str],
) -> dict[str, Node]:
    """The rewritten Log and Softmax nodes, by name."""
    pinned = {split_tensor_name(t)[0] for t in (*feeds, *fetches)} | set(targets)
    # TF counts the fed nodes too (its graph keeps them as placeholders).
    fed_nodes = {split_tensor_name(t)[0] for t in feeds} - set(needed)
    if len(needed) + len(fed_nodes) < MIN_GRAPH_NODES:
        return {}
    readers = Counter(src for name in needed for src, _ in nodes[name].inputs)
    out: dict[str, Node] = {}
    for name in needed:
        log = nodes[name]
        if log.op != "Log" or len(log.inputs) != 1:
            continue
        src, index = log.inputs[0]
        softmax = nodes[src]
        if softmax.op != "Softmax" or index != 0 or src in pinned or readers[src] != 1:
            continue
        out[name] = replace(log, op="LogSoftmax", inputs=list(softmax.inputs))
        out[src] = replace(softmax, op="Identity")
    return out
