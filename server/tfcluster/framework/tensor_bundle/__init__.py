"""TensorFlow's checkpoint format V2 (the tensor bundle): the table of the .index file, the
data shards, slices of partitioned tensors, and tfcluster's earlier npz format (read only)."""
