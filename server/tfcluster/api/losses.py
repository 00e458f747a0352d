"""tf.losses"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.losses.losses_impl import (
    Reduction,
    absolute_difference,
    compute_weighted_loss,
    cosine_distance,
    hinge_loss,
    huber_loss,
    log_loss,
    mean_pairwise_squared_error,
    mean_squared_error,
    sigmoid_cross_entropy,
    softmax_cross_entropy,
    sparse_softmax_cross_entropy,
)
from tfcluster.lib.losses.regularization import (
    get_regularization_loss,
    get_regularization_losses,
)
from tfcluster.lib.losses.util import add_loss, get_losses, get_total_loss

__getattr__ = _unimplemented.module_getattr("losses")
