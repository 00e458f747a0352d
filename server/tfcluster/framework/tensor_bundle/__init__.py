"""TensorFlow's checkpoint format V2 (the tensor bundle): the table of the .index file, the
data shards, slices of partitioned tensors, and tfcluster's earlier npz format (read only)."""

from __future__ import annotations

from tfcluster.framework.tensor_bundle import bundle, legacy, v1_table


def open_checkpoint(
    prefix: str,
) -> bundle.BundleReader | legacy.LegacyReader | v1_table.V1Reader:
    """A reader of the checkpoint `prefix`: V2, TF's V1 (files matching prefix, no .index:
    TF's RestoreV2 reads those too), or tfcluster's earlier format."""
    if legacy.is_legacy(prefix):
        return legacy.LegacyReader(prefix)
    if v1_table.is_v1(prefix):
        return v1_table.V1Reader(prefix)
    return bundle.BundleReader(prefix)
