"""The tags of a SavedModel's MetaGraphDefs (TF's saved_model/tag_constants)."""

SERVING = "serve"
TRAINING = "train"
EVAL = "eval"
GPU = "gpu"
TPU = "tpu"
