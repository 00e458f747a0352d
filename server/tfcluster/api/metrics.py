"""tf.metrics"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.metrics import at_k as _at_k
from tfcluster.lib.metrics.metrics_impl import (
    accuracy,
    auc,
    false_negatives,
    false_negatives_at_thresholds,
    false_positives,
    false_positives_at_thresholds,
    mean,
    mean_absolute_error,
    mean_cosine_distance,
    mean_iou,
    mean_relative_error,
    mean_squared_error,
    mean_tensor,
    percentage_below,
    precision,
    precision_at_thresholds,
    recall,
    recall_at_thresholds,
    root_mean_squared_error,
    sensitivity_at_specificity,
    specificity_at_sensitivity,
    true_negatives,
    true_negatives_at_thresholds,
    true_positives,
    true_positives_at_thresholds,
)

# The top-k and per-class metrics, where this build has the ops they need (top_k,
# dynamic_stitch, scatter_add); elsewhere they are unimplemented names.
if _at_k.has_its_ops():
    average_precision_at_k = _at_k.average_precision_at_k
    mean_per_class_accuracy = _at_k.mean_per_class_accuracy
    precision_at_k = _at_k.precision_at_k
    precision_at_top_k = _at_k.precision_at_top_k
    recall_at_k = _at_k.recall_at_k
    recall_at_top_k = _at_k.recall_at_top_k
    sparse_average_precision_at_k = _at_k.sparse_average_precision_at_k
    sparse_precision_at_k = _at_k.sparse_precision_at_k

__getattr__ = _unimplemented.module_getattr("metrics")
