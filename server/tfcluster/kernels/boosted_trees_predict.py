"""Predictions of a boosted trees ensemble (TF's prediction_ops.cc): every example walks every
tree from its root to a leaf, the leaf values weighted by the tree weights summed in float32 in
tree order. The walk is vectorised over the batch: one step of all examples still inside a
tree at a time."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.kernels.boosted_trees_resources import ensemble_of
from tfcluster.kernels.common import invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.protos import boosted_trees_pb2 as bt_pb2


def _one_dimension(node: Any) -> None:
    if int(node.attrs["logits_dimension"]) != 1:
        raise invalid("Currently only one dimensional outputs are supported.")


def feature_matrix(values: list[Any]) -> np.ndarray:
    """The bucketized features as one [num_features, batch] int array (each a vector)."""
    cols = [np.asarray(v) for v in values]
    for c in cols:
        if c.ndim != 1:
            raise invalid(f"bucketized_features must be vectors, got shape {list(c.shape)}")
    if len({c.shape[0] for c in cols}) > 1:
        raise invalid("All bucketized features must have the same batch size")
    return np.stack([c.astype(np.int64) for c in cols]) if cols else np.zeros((0, 0), np.int64)


@kernel("BoostedTreesPredict", devices=CPU_ONLY)
def predict(node: Any, xp: Any) -> Any:
    _one_dimension(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        res = ensemble_of(ins[0])
        features = feature_matrix(ins[1:])
        batch = features.shape[1]
        logits = np.zeros(batch, dtype=np.float32)
        with res.lock:
            trees, weights = res.arrays(), res.tree_weights()
        rows = np.arange(batch)
        for t, tree in enumerate(trees):
            leaves = tree.walk(np.zeros(batch, dtype=np.int64), rows, features)
            logits = logits + weights[t] * tree.value[leaves]
        return (logits.reshape(batch, 1),)

    return compute


def _post_prune_correction(res: Any, tree_ids: np.ndarray, node_ids: np.ndarray) -> Any:
    """Cached nodes of finalized post-pruned trees moved to where pruning put them, with the
    logit change on the way (TF's GetPostPruneCorrection)."""
    nodes = node_ids.copy()
    change = np.zeros(node_ids.shape[0], dtype=np.float32)
    for t in np.unique(tree_ids):
        t = int(t)
        if t >= res.num_trees:
            continue
        meta = res.ensemble.tree_metadata[t]
        if not (meta.is_finalized and len(meta.post_pruned_nodes_meta)):
            continue
        moves = meta.post_pruned_nodes_meta
        new_ids = np.asarray([m.new_node_id for m in moves], dtype=np.int64)
        changes = np.asarray(
            [m.logit_change[0] if len(m.logit_change) else 0.0 for m in moves], dtype=np.float32
        )
        sel = tree_ids == t
        nodes[sel] = new_ids[node_ids[sel]]
        change[sel] = changes[node_ids[sel]]
    return nodes, change


@kernel("BoostedTreesTrainingPredict", devices=CPU_ONLY)
def training_predict(node: Any, xp: Any) -> Any:
    _one_dimension(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        res = ensemble_of(ins[0])
        cached_trees = np.asarray(ins[1]).astype(np.int64)
        cached_nodes = np.asarray(ins[2]).astype(np.int64)
        features = feature_matrix(ins[3:])
        batch = features.shape[1]
        with res.lock:
            latest = res.num_trees - 1
            if latest < 0:
                return (
                    np.zeros((batch, 1), dtype=np.float32),
                    np.asarray(ins[1], dtype=np.int32),
                    np.zeros(batch, dtype=np.int32),
                )
            trees, weights = res.arrays(), res.tree_weights()
            tree_ids = cached_trees.copy()
            cached = cached_nodes >= 0
            nodes = np.where(cached, cached_nodes, 0)
            partial = np.zeros(batch, dtype=np.float32)
            if cached.any():
                idx = np.nonzero(cached)[0]
                moved, change = _post_prune_correction(res, tree_ids[idx], nodes[idx])
                nodes[idx] = moved
                old = np.zeros(idx.size, dtype=np.float32)
                for t in np.unique(tree_ids[idx]):
                    of_t = tree_ids[idx] == t
                    old[of_t] = trees[int(t)].value[moved[of_t]]
                # A cached leaf's value is added again at the leaf; a node split since then
                # gives its old value back.
                partial[idx] = change - old
        total = np.zeros(batch, dtype=np.float32)
        rows = np.arange(batch)
        first = int(tree_ids.min()) if batch else latest
        for t in range(max(first, 0), latest + 1):
            sel = np.nonzero(tree_ids == t)[0]
            if not sel.size:
                continue
            leaves = trees[t].walk(nodes[sel], rows[sel], features)
            part = partial[sel] + trees[t].value[leaves]
            total[sel] = total[sel] + weights[t] * part
            partial[sel] = 0.0
            nodes[sel] = leaves
            if t < latest:
                tree_ids[sel] = t + 1
                nodes[sel] = 0
        return (
            total.reshape(batch, 1),
            np.full(batch, latest, dtype=np.int32),
            nodes.astype(np.int32),
        )

    return compute


@kernel("BoostedTreesExampleDebugOutputs", devices=CPU_ONLY)
def example_debug_outputs(node: Any, xp: Any) -> Any:
    _one_dimension(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        res = ensemble_of(ins[0])
        features = feature_matrix(ins[1:])
        batch = features.shape[1]
        with res.lock:
            trees, weights = res.arrays(), res.tree_weights()
        if not trees:
            raise invalid("The tree ensemble is empty: it has no path to explain")
        out = np.empty(batch, dtype=object)
        f32 = np.float32
        for i in range(batch):
            debug = bt_pb2.DebugOutput()
            tree_logit = f32(weights[0]) * trees[0].value[0]
            debug.logits_path.append(float(tree_logit))
            past = f32(0.0)
            tree_id, node_id = 0, 0
            while tree_id < len(trees):
                tree = trees[tree_id]
                if tree.is_leaf[node_id]:
                    # Leaves of later trees count when reached below the root; the bias
                    # tree's always.
                    if tree_id == 0 or node_id > 0:
                        past = f32(past + tree_logit)
                    tree_id, node_id = tree_id + 1, 0
                    continue
                debug.feature_ids.append(int(tree.feature[node_id]))
                node_id = _step(tree, node_id, features[:, i])
                tree_logit = f32(weights[tree_id]) * tree.value[node_id]
                debug.logits_path.append(float(f32(tree_logit + past)))
            out[i] = debug.SerializeToString()
        return (out,)

    return compute


def _step(tree: Any, node_id: int, example: np.ndarray) -> int:
    """One split of one example: its next node."""
    got = example[tree.feature[node_id]]
    thr = tree.threshold[node_id]
    left = got == thr if tree.categorical[node_id] else got <= thr
    return int(tree.left[node_id] if left else tree.right[node_id])
