"""Kernel fusion of a step's graph before it is placed, as TensorFlow's graph optimizer
(grappler's remapper) does on the CPU.

- Conv2D -> BiasAdd -> Relu becomes one `_FusedConv2D` node (TF's own op type, attr
  fused_ops = [BiasAdd, Relu]) named as the Relu: the bias and the ReLU are applied to each
  block of the convolution's output while it is still in the cache, instead of two passes
  over the whole activation (what the conv net's first layer spends most of its time on).
- MatMul -> BiasAdd (float32) becomes one `_FusedMatMul` node (TF's op type, fused_ops =
  [BiasAdd]) named as the BiasAdd. Not for speed: TF's fused kernel takes its general
  product (MKL-DNN's sgemm) even for one output column, where a plain MatMul takes Eigen's
  matrix-vector routine, so a dense layer of one unit rounds as TF's only when fused as TF
  fuses it (kernels/_mkldnn_sgemm.py).
- MaxPoolGrad -> ReluGrad, where the ReluGrad's features are the pool's own input (the
  gradient of relu then max_pool), becomes one `_FusedMaxPoolGradReluGrad` node named as the
  ReluGrad: for windows that tile the input, the ReLU's mask is applied to the pooled
  gradient (a quarter of the elements for 2x2 windows) before it is routed to each window's
  maximum. This is exact: the routed value lands only where the input equals its window's
  maximum, so `g * (max > 0)` there is `g * (x > 0)`; zeros stay zeros. Windows that do not
  tile the input get the two kernels' results, computed one after the other.

- Conv2DBackpropFilter and Conv2DBackpropInput of one out_backprop (a convolution's two
  gradients) become one `_FusedConv2DBackprop` node named as the filter gradient, whose
  second output the input gradient's name now gives through an Identity: on the CPU,
  Winograd's tiles of the out_backprop are transformed once for both gradients
  (kernels/_winograd.backward). The filter gradient is the same bit for bit; the input
  gradient is the forward pass's transpose instead of a correlation with the flipped
  filter, as accurate (float32 rounding of the same sums, in another order). Only for
  stride 1 and no dilation, where Winograd's tiles may apply: a strided or dilated pair
  fused would only run its two products one after the other, while as two kernels the
  input gradient goes on to the layers below as soon as it is made and the executor may run
  the filter gradient beside them (a DQN's 4x4 stride-2 layer: beside the first layer's
  ReluGrad and filter gradient), as TensorFlow runs the two.

Forwards whose results their gradients would find again are marked (a copy of the node with
an attr): a convolution whose input a fused backprop also reads keeps its Winograd input
tiles (KEEP_INPUT_TILES), a MaxPool whose MaxPoolGrad (fused or not) runs in the step keeps
each window's first maximum (KEEP_FIRST_MAX).

A chain fuses only when its inner results have no other use in the step: consumed once,
not fetched, fed, targeted or waited on through a control edge, and all on one requested
device. The fused node keeps the last node's name, so fetches, timelines and step stats
name it as before (TF's fused node also keeps the Relu's name).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.runtime.graph_ir import Node, split_tensor_name

FUSED_CONV = "_FusedConv2D"
FUSED_MATMUL = "_FusedMatMul"
FUSED_POOL_GRAD = "_FusedMaxPoolGradReluGrad"
FUSED_CONV_BACKPROP = "_FusedConv2DBackprop"
# The attr (True) of a forward convolution whose input a fused backprop also reads.
KEEP_INPUT_TILES = "_keep_input_tiles"
# The attr (True) of a MaxPool whose gradient (MaxPoolGrad, or fused with a ReluGrad) runs
# in the same step: it keeps each window's first maximum for it (kernels/_first_max.py).
KEEP_FIRST_MAX = "_keep_first_max"

_FLOATS = frozenset({"float32", "float64"})


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _dtype_name(value: Any) -> str:
    try:
        return dtypes.as_dtype(value).name
    except (TypeError, ValueError, KeyError):
        return ""


class _Uses:
    """Who uses each tensor and node of the step."""

    def __init__(
        self,
        nodes: Mapping[str, Node],
        needed: Collection[str],
        feeds: Sequence[str],
        fetches: Sequence[str],
        targets: Sequence[str],
    ) -> None:
        # node -> (output index, reader) for every read of one of its outputs
        self.reads: dict[str, list[tuple[int, str]]] = defaultdict(list)
        self.waited_on: set[str] = set()
        for name in needed:
            node = nodes[name]
            for src, idx in node.inputs:
                self.reads[src].append((idx, name))
            self.waited_on.update(node.control_inputs)
        self.pinned: set[str] = {split_tensor_name(t)[0] for t in (*feeds, *fetches)}
        self.pinned.update(targets)

    def only_feeds(self, node: Node, consumer: str) -> bool:
        """Whether node's results are used by `consumer` alone (its output 0, once)."""
        if node.name in self.pinned or node.name in self.waited_on:
            return False
        return self.reads.get(node.name) == [(0, consumer)]


def fuse_kernels(
    nodes: Mapping[str, Node],
    needed: Collection[str],
    feeds: Sequence[str],
    fetches: Sequence[str],
    targets: Sequence[str],
) -> dict[str, Node]:
    """The fused nodes that replace the last node of each chain (by name); the chains' other
    nodes are no longer read, and a new prune drops them."""
    uses = _Uses(nodes, needed, feeds, fetches, targets)
    fused: dict[str, Node] = {}
    for name in needed:
        node = nodes[name]
        if node.op == "Relu":
            new = _conv_bias_relu(nodes, node, uses)
        elif node.op == "BiasAdd":
            new = _matmul_bias(nodes, node, uses)
        elif node.op == "ReluGrad":
            new = _max_pool_grad_relu_grad(nodes, node, uses)
        elif node.op == "Conv2DBackpropFilter":
            pair = _conv_backprops(nodes, node, uses)
            if pair is not None:
                fused.update(pair)
            new = None
        else:
            new = None
        if new is not None:
            fused[name] = new
    _mark_kept_inputs(nodes, needed, fused)
    _mark_pools_keeping_first_max(nodes, needed, fused)
    return fused


def _mark_kept_inputs(
    nodes: Mapping[str, Node], needed: Collection[str], fused: dict[str, Node]
) -> None:
    """Marks, for each fused backprop, one forward convolution of the same input tensor and
    window on the same device (replaced by a copy with the attr): a fused one first, since
    a Conv2D that a fused node took in is still among the needed nodes here."""
    after = {name: fused.get(name, nodes[name]) for name in needed}
    for backprop in [n for n in fused.values() if n.op == FUSED_CONV_BACKPROP]:
        x = backprop.inputs[0]
        forwards = sorted(
            (
                node
                for node in after.values()
                if node.op in (FUSED_CONV, "Conv2D")
                and node.inputs[:1] == [x]
                and node.device == backprop.device
                and _same_window(node, backprop)
            ),
            key=lambda node: (node.op != FUSED_CONV, node.name),
        )
        if any(KEEP_INPUT_TILES in node.attrs for node in forwards) or not forwards:
            continue
        node = forwards[0]
        fused[node.name] = _marked(node, KEEP_INPUT_TILES)
        after[node.name] = fused[node.name]


# Attrs that must agree for a MaxPoolGrad to be its pool's.
_POOL_ATTRS = ("ksize", "strides", "padding", "data_format", "T")


def _mark_pools_keeping_first_max(
    nodes: Mapping[str, Node], needed: Collection[str], fused: dict[str, Node]
) -> None:
    """Marks each MaxPool whose output and input a MaxPoolGrad (fused or not) of the same
    window on the same device reads (replaced by a copy with the attr)."""
    after = {name: fused.get(name, nodes[name]) for name in needed}
    for grad in [n for n in after.values() if n.op in ("MaxPoolGrad", FUSED_POOL_GRAD)]:
        if len(grad.inputs) != 3:
            continue
        (name, index), x = grad.inputs[1], grad.inputs[0]
        pool = after.get(name)
        if pool is None or pool.op != "MaxPool" or index != 0 or pool.inputs[:1] != [x]:
            continue
        if pool.device != grad.device or KEEP_FIRST_MAX in pool.attrs:
            continue
        if not all(pool.attrs.get(k) == grad.attrs.get(k) for k in _POOL_ATTRS):
            continue
        fused[pool.name] = after[pool.name] = _marked(pool, KEEP_FIRST_MAX)


def _marked(node: Node, mark: str) -> Node:
    """A copy of `node` with the attr `mark` set (the kernel keeps buffers for its backward)."""
    return Node(
        name=node.name,
        op=node.op,
        inputs=list(node.inputs),
        control_inputs=list(node.control_inputs),
        device=node.device,
        attrs={**node.attrs, mark: True},
    )


# Attrs that must agree for two backprops to be one convolution's.
_WINDOW_ATTRS = ("strides", "padding", "explicit_paddings", "dilations", "data_format", "T")


def _conv_backprops(
    nodes: Mapping[str, Node], by_filter: Node, uses: _Uses
) -> dict[str, Node] | None:
    """The fused node (named as the filter gradient) and the Identity that keeps the input
    gradient's name, for a Conv2DBackpropFilter with a Conv2DBackpropInput of the same
    out_backprop, stride 1 and no dilation."""
    if len(by_filter.inputs) != 3 or _dtype_name(by_filter.attrs.get("T")) != "float32":
        return None
    if _text(by_filter.attrs.get("data_format", "NHWC")) != "NHWC":
        return None
    if not _unit_steps(by_filter):
        return None
    dy = by_filter.inputs[2]
    partners = [
        nodes[reader]
        for idx, reader in uses.reads.get(dy[0], [])
        if idx == dy[1] and nodes[reader].op == "Conv2DBackpropInput"
    ]
    by_input = next((p for p in partners if _same_window(p, by_filter)), None)
    if by_input is None or len(by_input.inputs) != 3 or by_input.inputs[2] != dy:
        return None
    if by_input.device != by_filter.device:
        return None
    # Neither may wait for the other (second-order gradients: a filter gradient of what
    # the input gradient feeds, of the same out_backprop): one node would be a cycle.
    if _reaches(nodes, by_filter, by_input.name) or _reaches(nodes, by_input, by_filter.name):
        return None
    fused = Node(
        name=by_filter.name,
        op=FUSED_CONV_BACKPROP,
        inputs=[*by_filter.inputs, by_input.inputs[0], by_input.inputs[1]],
        control_inputs=_union(by_filter.control_inputs, by_input.control_inputs),
        device=by_filter.device,
        attrs=dict(by_filter.attrs),
    )
    keep_name = Node(
        name=by_input.name,
        op="Identity",
        inputs=[(by_filter.name, 1)],
        control_inputs=[],
        device=by_input.device,
        attrs={"T": by_input.attrs["T"]},
    )
    return {fused.name: fused, keep_name.name: keep_name}


def _unit_steps(node: Node) -> bool:
    """Whether a convolution's strides and dilations are all 1 (Winograd's tiles may apply:
    kernels/_winograd.applicable)."""
    return all(
        int(v) == 1 for key in ("strides", "dilations") for v in node.attrs.get(key, [1, 1, 1, 1])
    )


def _reaches(nodes: Mapping[str, Node], node: Node, target: str) -> bool:
    """Whether `node` reads, directly or through others, a result of `target` (or waits
    for it)."""
    seen: set[str] = set()
    stack = [src for src, _ in node.inputs] + list(node.control_inputs)
    while stack:
        name = stack.pop()
        if name == target:
            return True
        if name in seen or name not in nodes:
            continue
        seen.add(name)
        other = nodes[name]
        stack.extend(src for src, _ in other.inputs)
        stack.extend(other.control_inputs)
    return False


def _same_window(a: Node, b: Node) -> bool:
    return all(a.attrs.get(k) == b.attrs.get(k) for k in _WINDOW_ATTRS)


def _producer(nodes: Mapping[str, Node], src: tuple[str, int], op: str) -> Node | None:
    node = nodes.get(src[0])
    return node if node is not None and node.op == op and src[1] == 0 else None


def _conv_bias_relu(nodes: Mapping[str, Node], relu: Node, uses: _Uses) -> Node | None:
    bias = _producer(nodes, relu.inputs[0], "BiasAdd") if relu.inputs else None
    conv = _producer(nodes, bias.inputs[0], "Conv2D") if bias is not None else None
    if bias is None or conv is None:
        return None
    if not (uses.only_feeds(conv, bias.name) and uses.only_feeds(bias, relu.name)):
        return None
    if len({relu.device, bias.device, conv.device}) != 1:
        return None
    if _text(conv.attrs.get("data_format", "NHWC")) != "NHWC":
        return None
    if _text(bias.attrs.get("data_format", "NHWC")) != "NHWC":
        return None
    if _dtype_name(conv.attrs.get("T")) not in _FLOATS:
        return None
    attrs = dict(conv.attrs)
    attrs.update(fused_ops=["BiasAdd", "Relu"], num_args=1, epsilon=0.0)
    return Node(
        name=relu.name,
        op=FUSED_CONV,
        inputs=[conv.inputs[0], conv.inputs[1], bias.inputs[1]],
        control_inputs=_union(conv.control_inputs, bias.control_inputs, relu.control_inputs),
        device=relu.device,
        attrs=attrs,
    )


def _matmul_bias(nodes: Mapping[str, Node], bias: Node, uses: _Uses) -> Node | None:
    """TF 1.15's remapper fuses a float32 MatMul into the BiasAdd that alone uses it, on
    the CPU (it leaves GPU products to cuBLAS)."""
    matmul = _producer(nodes, bias.inputs[0], "MatMul") if len(bias.inputs) == 2 else None
    if matmul is None or len(matmul.inputs) != 2 or not uses.only_feeds(matmul, bias.name):
        return None
    if matmul.device != bias.device or "GPU" in matmul.device.upper():
        return None
    if _dtype_name(matmul.attrs.get("T")) != "float32":
        return None
    if _text(bias.attrs.get("data_format", "NHWC")) != "NHWC":
        return None
    attrs = dict(matmul.attrs)
    attrs.update(fused_ops=["BiasAdd"], num_args=1, epsilon=0.0)
    return Node(
        name=bias.name,
        op=FUSED_MATMUL,
        inputs=[matmul.inputs[0], matmul.inputs[1], bias.inputs[1]],
        control_inputs=_union(matmul.control_inputs, bias.control_inputs),
        device=bias.device,
        attrs=attrs,
    )


def _max_pool_grad_relu_grad(
    nodes: Mapping[str, Node], relu_grad: Node, uses: _Uses
) -> Node | None:
    if len(relu_grad.inputs) != 2:
        return None
    pool_grad = _producer(nodes, relu_grad.inputs[0], "MaxPoolGrad")
    if pool_grad is None or len(pool_grad.inputs) != 3:
        return None
    # The ReLU's features must be the pool's own input (the gradient of relu -> max_pool).
    if pool_grad.inputs[0] != relu_grad.inputs[1]:
        return None
    if not uses.only_feeds(pool_grad, relu_grad.name):
        return None
    if relu_grad.device != pool_grad.device:
        return None
    if _dtype_name(pool_grad.attrs.get("T")) not in _FLOATS:
        return None
    return Node(
        name=relu_grad.name,
        op=FUSED_POOL_GRAD,
        inputs=list(pool_grad.inputs),
        control_inputs=_union(pool_grad.control_inputs, relu_grad.control_inputs),
        device=relu_grad.device,
        attrs=dict(pool_grad.attrs),
    )


def _union(*lists: list[str]) -> list[str]:
    return list(dict.fromkeys(c for lst in lists for c in lst))
