"""TensorFlow's checkpoint format V2 (the tensor bundle): the table of the .index file, the
data shards, slices of partitioned tensors, and tfcluster's earlier npz format (read only)."""

from __future__ import annotations

from tfcluster.framework.tensor_bundle import bundle, legacy


def open_checkpoint(prefix: str) -> bundle.BundleReader | legacy.LegacyReader:
    """A reader of the checkpoint `prefix`: V2, or tfcluster's earlier format."""
    if legacy.is_legacy(prefix):
        return legacy.LegacyReader(prefix)
    return bundle.BundleReader(prefix)
