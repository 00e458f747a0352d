"""Growing a boosted trees ensemble (TF's training_ops.cc and resources.cc): UpdateEnsemble(V2)
picks each node's best split over all features' candidates and adds one layer to the tree
being grown (finalizing it at max_depth, post-pruning it if asked, and starting the next);
CenterBias moves the first tree's root toward the labels' prior. The ensemble is TF's
TreeEnsemble proto, edited as TF edits it, so its serialized bytes are TF's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tfcluster.kernels.boosted_trees_resources import EnsembleResource, ensemble_of, scalar
from tfcluster.kernels.boosted_trees_stats import weights_and_gains
from tfcluster.kernels.common import invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel

_TREE_WEIGHT = 1.0  # layer-by-layer boosting: the learning rate goes into the leaves
_MIN_DELTA_FOR_CENTER_BIAS = np.float32(0.01)
_NO_PRUNING, _PRE_PRUNING, _POST_PRUNING = 0, 1, 2
_F32 = np.float32


def f32(x: Any) -> float:
    """A float32 value as a Python float, -0.0 made 0.0 (TF's proto3 leaves it out)."""
    return float(_F32(x)) + 0.0


@dataclass
class Candidate:
    feature_id: int
    gain: np.float32
    threshold: int
    dimension_id: int
    left: np.float32
    right: np.float32
    split_type: str


def _gains_equal(a: np.float32, b: np.float32) -> bool:
    return bool(abs(_F32(a) - _F32(b)) < _F32(1e-15))


def _gain_larger(a: np.float32, b: np.float32) -> bool:
    return bool(_F32(a) - _F32(b) >= _F32(1e-15))


def _vector(value: Any, what: str, index: int) -> np.ndarray:
    v = np.asarray(value)
    if v.ndim != 1:
        raise invalid(
            f"Each {what} must be a vector, received shape {list(v.shape)} at index {index}"
        )
    return v


def _offer(best: dict[int, Candidate], node_id: int, c: Candidate) -> None:
    """TF's reduce over candidates: the larger gain wins; equal gains go to the lower
    feature id (deterministic tie breaking)."""
    held = best.get(node_id)
    if held is not None and _gains_equal(c.gain, held.gain):
        if c.feature_id < held.feature_id:
            best[node_id] = c
    elif held is None or _gain_larger(c.gain, held.gain):
        best[node_id] = c


def _add_tree(res: EnsembleResource, logit: Any, empty_leaf: bool = False) -> int:
    tree_id = res.num_trees
    node = res.ensemble.trees.add().nodes.add()
    if empty_leaf:
        # TF 1.15's V2 update starts a tree with an empty leaf (it has no logits_dimension
        # attr: no scalar, no values); a split replaces it as it replaces a zero leaf.
        node.leaf.SetInParent()
    else:
        node.leaf.scalar = f32(logit)
    res.ensemble.tree_weights.append(_TREE_WEIGHT)
    res.ensemble.tree_metadata.add()
    return tree_id


def _update_growing_metadata(res: EnsembleResource) -> None:
    meta = res.ensemble.growing_metadata
    meta.num_layers_attempted += 1
    n = res.num_trees
    # A new tree is attempted when growing the first layer of an empty (dummy) tree.
    if n <= 0 or (
        (n == 1 or res.is_finalized(n - 2)) and len(res.ensemble.trees[n - 1].nodes) == 1
    ):
        meta.num_trees_attempted += 1


def _split_node(res: EnsembleResource, tree_id: int, node_id: int, c: Candidate) -> None:
    """TF's AddLeafNodes + Add{Bucketized,Categorical}SplitNode: two new leaves holding the
    parent's value plus the contributions; the parent keeps its old leaf in metadata."""
    tree = res.ensemble.trees[tree_id]
    node = tree.nodes[node_id]
    left_id = len(tree.nodes)
    left, right = tree.nodes.add(), tree.nodes.add()
    had_value = node.HasField("leaf") and node.leaf.scalar != 0
    if node_id != 0 or had_value:
        node.metadata.original_leaf.CopyFrom(node.leaf)
        node.metadata.original_leaf.SetInParent()
    node.metadata.gain = f32(c.gain)
    prev = _F32(node.metadata.original_leaf.scalar)
    left.leaf.scalar = f32(prev + c.left)
    right.leaf.scalar = f32(prev + c.right)
    if c.split_type == "EQUALITY_DEFAULT_RIGHT":
        split = node.categorical_split
        split.value = c.threshold
    else:
        split = node.bucketized_split
        split.threshold = c.threshold
        split.default_direction = 1 if c.split_type == "INEQUALITY_DEFAULT_RIGHT" else 0
    split.feature_id = c.feature_id
    split.dimension_id = c.dimension_id
    split.left_id = left_id
    split.right_id = left_id + 1


def _grow(
    res: EnsembleResource,
    best: dict[int, Candidate],
    max_depth: int,
    pruning_mode: int,
    v2: bool = False,
) -> None:
    res.stamp += 1
    current = res.num_trees - 1
    _update_growing_metadata(res)
    if current < 0:
        current = _add_tree(res, 0.0, empty_leaf=v2)
    if not best:
        res.changed()
        return
    meta = res.ensemble.tree_metadata[current]
    new_layers = meta.num_layers_grown + 1
    start = len(res.ensemble.trees[current].nodes)
    split = False
    for node_id in sorted(best):
        c = best[node_id]
        if pruning_mode == _PRE_PRUNING and c.gain < 0:
            continue  # zero-gain splits are fine
        _split_node(res, current, node_id, c)
        split = True
    end = len(res.ensemble.trees[current].nodes)
    if split:
        meta.num_layers_grown = new_layers
        if new_layers >= max_depth:
            start, end = 0, 1  # the next layer is the next tree's root
            meta.is_finalized = True
            if pruning_mode == _POST_PRUNING:
                _post_prune(res, current)
            _add_tree(res, 0.0, empty_leaf=v2)
        g = res.ensemble.growing_metadata
        g.last_layer_node_start = start
        g.last_layer_node_end = end
    res.changed()


def _post_prune(res: EnsembleResource, tree_id: int) -> None:
    """TF's PostPruneTree: bottom-up, a split with negative gain whose children are both
    leaves becomes its old leaf again; the tree metadata then says, for every old node id,
    where it went and by how much its logit changed (so cached predictions stay right)."""
    tree = res.ensemble.trees[tree_id]
    n = len(tree.nodes)
    if n == 0:
        return
    parent = list(range(n))
    changes: list[list[float]] = [[] for _ in range(n)]
    deleted: list[int] = []

    def is_leaf(i: int) -> bool:
        return tree.nodes[i].WhichOneof("node") == "leaf"

    def visit(i: int) -> None:
        node = tree.nodes[i]
        if node.WhichOneof("node") == "leaf":
            return
        s = node.bucketized_split
        visit(s.left_id)
        visit(s.right_id)
        if node.metadata.gain < 0 and is_leaf(s.left_id) and is_leaf(s.right_id):
            left_id, right_id = s.left_id, s.right_id
            deleted.extend([left_id, right_id])
            had_original = node.metadata.HasField("original_leaf")
            node.leaf.CopyFrom(node.metadata.original_leaf)
            node.leaf.SetInParent()
            parent[left_id] = i
            parent[right_id] = i
            lv, rv = _F32(res.node_value(tree_id, left_id)), _F32(res.node_value(tree_id, right_id))
            pv = _F32(res.node_value(tree_id, i)) if had_original else _F32(0.0)
            changes[left_id].append(float(_F32(pv - lv)))
            changes[right_id].append(float(_F32(pv - rv)))
            node.ClearField("metadata")

    visit(0)
    if not deleted:
        return
    gone = set(deleted)
    old_to_new: dict[int, int] = {}
    next_id = 0
    pruned_meta = res.ensemble.tree_metadata[tree_id].post_pruned_nodes_meta
    for i in range(n):
        entry = pruned_meta.add()
        if i in gone:
            total = _F32(0.0)
            at = i
            while parent[at] != at:
                total = _F32(total + _F32(changes[at][0] if changes[at] else 0.0))
                at = parent[at]
            entry.new_node_id = old_to_new.get(at, 0)
            entry.logit_change.append(f32(total))
        else:
            old_to_new[i] = next_id
            next_id += 1
            entry.new_node_id = old_to_new[i]
            entry.logit_change.append(0.0)
    kept = [tree.nodes[i] for i in range(n) if i not in gone]
    copies = []
    for node in kept:
        c = type(node)()
        c.CopyFrom(node)
        if c.WhichOneof("node") == "bucketized_split":
            c.bucketized_split.left_id = old_to_new.get(c.bucketized_split.left_id, 0)
            c.bucketized_split.right_id = old_to_new.get(c.bucketized_split.right_id, 0)
        copies.append(c)
    del tree.nodes[:]
    tree.nodes.extend(copies)


@kernel("BoostedTreesUpdateEnsemble", devices=CPU_ONLY)
def update_ensemble(node: Any, xp: Any) -> Any:
    n = int(node.attrs["num_features"])
    pruning_mode = int(node.attrs["pruning_mode"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        res = ensemble_of(ins[0])
        feature_ids = np.asarray(ins[1])
        if feature_ids.ndim != 1:
            raise invalid(f"feature_ids must be a vector, received shape {list(feature_ids.shape)}")
        lists = [ins[2 + k * n : 2 + (k + 1) * n] for k in range(5)]
        max_depth = int(scalar(ins[2 + 5 * n], "max_depth"))
        lr = _F32(scalar(ins[3 + 5 * n], "learning_rate"))
        best: dict[int, Candidate] = {}
        for f in range(n):
            node_ids = _vector(lists[0][f], "node_id in node_ids_list", f)
            gains = _vector(lists[1][f], "gain in gains_list", f)
            thresholds = _vector(lists[2][f], "threshold in thresholds_list", f)
            left = np.asarray(lists[3][f], dtype=np.float32).reshape(len(node_ids), -1)
            right = np.asarray(lists[4][f], dtype=np.float32).reshape(len(node_ids), -1)
            for k in range(len(node_ids)):
                c = Candidate(
                    int(feature_ids[f]),
                    _F32(gains[k]),
                    int(thresholds[k]),
                    0,
                    _F32(lr * left[k, 0]),
                    _F32(lr * right[k, 0]),
                    "INEQUALITY_DEFAULT_LEFT",
                )
                _offer(best, int(node_ids[k]), c)
        with res.lock:
            _grow(res, best, max_depth, pruning_mode)
        return ()

    return compute


@kernel("BoostedTreesUpdateEnsembleV2", devices=CPU_ONLY)
def update_ensemble_v2(node: Any, xp: Any) -> Any:
    n = int(node.attrs["num_features"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        res = ensemble_of(ins[0])
        feature_ids = np.asarray(ins[1])
        if feature_ids.ndim != 1:
            raise invalid(f"feature_ids must be a vector, received shape {list(feature_ids.shape)}")
        lists = [ins[2 + k * n : 2 + (k + 1) * n] for k in range(7)]
        dims, node_lists, gain_lists, thr_lists, lefts, rights, types = lists
        max_depth = int(scalar(ins[2 + 7 * n], "max_depth"))
        lr = _F32(scalar(ins[3 + 7 * n], "learning_rate"))
        pruning_mode = int(scalar(ins[4 + 7 * n], "pruning_mode"))
        best: dict[int, Candidate] = {}
        for f in range(n):
            node_ids = _vector(node_lists[f], "node_id in node_ids_list", f)
            gains = _vector(gain_lists[f], "gain in gains_list", f)
            thresholds = _vector(thr_lists[f], "threshold in thresholds_list", f)
            dimension_ids = _vector(dims[f], "dimension_id in dimension_ids_list", f)
            split_types = _vector(types[f], "split_type in split_types_list", f)
            left = np.asarray(lefts[f], dtype=np.float32).reshape(len(node_ids), -1)
            right = np.asarray(rights[f], dtype=np.float32).reshape(len(node_ids), -1)
            for k in range(len(node_ids)):
                st = split_types[k]
                c = Candidate(
                    int(feature_ids[f]),
                    _F32(gains[k]),
                    int(thresholds[k]),
                    int(dimension_ids[k]),
                    _F32(lr * left[k, 0]),
                    _F32(lr * right[k, 0]),
                    st.decode() if isinstance(st, bytes) else str(st),
                )
                _offer(best, int(node_ids[k]), c)
        with res.lock:
            _grow(res, best, max_depth, pruning_mode, v2=True)
        return ()

    return compute


@kernel("BoostedTreesCenterBias", devices=CPU_ONLY)
def center_bias(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        res = ensemble_of(ins[0])
        grads = np.asarray(ins[1], dtype=np.float32).reshape(-1)
        hess = np.asarray(ins[2], dtype=np.float32).reshape(-1)
        l1 = _F32(scalar(ins[3], "l1"))
        l2 = _F32(scalar(ins[4], "l2"))
        if not grads.size or not hess.size:
            raise invalid("mean_gradients and mean_hessians must not be empty")
        weight, _ = weights_and_gains(grads[:1], hess[:1], l1, l2)
        logit = _F32(weight[0])
        with res.lock:
            res.stamp += 1
            keep_going = True
            if res.num_trees == 0:
                _add_tree(res, logit)
            else:
                current = _F32(res.node_value(0, 0))
                with np.errstate(divide="ignore", invalid="ignore"):
                    keep_going = bool(abs(logit / current) > _MIN_DELTA_FOR_CENTER_BIAS)
                root = res.ensemble.trees[0].nodes[0]
                root.leaf.scalar = f32(current + logit)
            res.changed()
        return (np.bool_(keep_going),)

    return compute
