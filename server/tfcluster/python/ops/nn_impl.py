"""tensorflow.python.ops.nn_impl (`nn_impl.l2_normalize`, `nn_impl._compute_sampled_logits` in
sampled-loss code): tf.nn's own functions for the names TF 1.15's module shares with it, and
the sampled-loss helpers. Its TF2 forms (`*_v2`) tfcluster lacks raise UnimplementedError."""

from __future__ import annotations

from tfcluster.ops.sampled_losses import _compute_sampled_logits, _sum_rows
from tfcluster.python._alias import face_function
from tfcluster.python._private_module import module_getattr

batch_norm_with_global_normalization = face_function("nn", "batch_norm_with_global_normalization")
batch_normalization = face_function("nn", "batch_normalization")
compute_average_loss = face_function("nn", "compute_average_loss")
depthwise_conv2d = face_function("nn", "depthwise_conv2d")
fused_batch_norm = face_function("nn", "fused_batch_norm")
l2_normalize = face_function("nn", "l2_normalize")
log_poisson_loss = face_function("nn", "log_poisson_loss")
moments = face_function("nn", "moments")
nce_loss = face_function("nn", "nce_loss")
normalize = face_function("linalg", "normalize")
normalize_moments = face_function("nn", "normalize_moments")
relu_layer = face_function("nn", "relu_layer")
sampled_softmax_loss = face_function("nn", "sampled_softmax_loss")
scale_regularization_loss = face_function("nn", "scale_regularization_loss")
separable_conv2d = face_function("nn", "separable_conv2d")
sigmoid_cross_entropy_with_logits = face_function("nn", "sigmoid_cross_entropy_with_logits")
sufficient_statistics = face_function("nn", "sufficient_statistics")
swish = face_function("nn", "swish")
weighted_cross_entropy_with_logits = face_function("nn", "weighted_cross_entropy_with_logits")
weighted_moments = face_function("nn", "weighted_moments")
zero_fraction = face_function("nn", "zero_fraction")

__getattr__ = module_getattr("python.ops.nn_impl")

__all__ = [
    "_compute_sampled_logits",
    "_sum_rows",
    "batch_norm_with_global_normalization",
    "batch_normalization",
    "compute_average_loss",
    "depthwise_conv2d",
    "fused_batch_norm",
    "l2_normalize",
    "log_poisson_loss",
    "moments",
    "nce_loss",
    "normalize",
    "normalize_moments",
    "relu_layer",
    "sampled_softmax_loss",
    "scale_regularization_loss",
    "separable_conv2d",
    "sigmoid_cross_entropy_with_logits",
    "sufficient_statistics",
    "swish",
    "weighted_cross_entropy_with_logits",
    "weighted_moments",
    "zero_fraction",
]
