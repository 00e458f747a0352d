"""tensorflow.python.pywrap_tensorflow, as far as TF1 programs use it: reading checkpoints
(`pywrap_tensorflow.NewCheckpointReader(path)`)."""

from tfcluster.training.checkpoint_utils import CheckpointReader, NewCheckpointReader

__all__ = ["CheckpointReader", "NewCheckpointReader"]
