"""tf.train.experimental.enable/disable_mixed_precision_graph_rewrite (TF 1.15's v1 forms):
enabling wraps the optimizer in a MixedPrecisionLossScaleOptimizer and turns the graph rewrite
flag on. TF's rewrite (grappler's auto_mixed_precision) only acts on NVIDIA GPUs of compute
capability 7.0 or more and skips every other device; tfcluster does not rewrite graphs to
float16 anywhere, so — as TF on a CPU — the numbers stay float32 and only loss scaling applies."""

from __future__ import annotations

import logging
from typing import Any

from tfcluster.client import context_config
from tfcluster.training.loss_scale_optimizer import MixedPrecisionLossScaleOptimizer
from tfcluster.training.optimizer import Optimizer

_log = logging.getLogger("tensorflow")


class _State:
    rewrite_enabled = False


def is_graph_rewrite_enabled() -> bool:
    return _State.rewrite_enabled


def enable_mixed_precision_graph_rewrite(opt: Any, loss_scale: Any = "dynamic") -> Any:
    if isinstance(opt, MixedPrecisionLossScaleOptimizer):
        raise ValueError(
            '"opt" must not already be an instance of a MixedPrecisionLossScaleOptimizer. '
            "`enable_mixed_precision_graph_rewrite` will automatically wrap the optimizer "
            "with a MixedPrecisionLossScaleOptimizer."
        )
    if not isinstance(opt, Optimizer):
        raise ValueError(
            '"opt" must be an instance of a tf.train.Optimizer or a '
            f"tf.keras.optimizers.Optimizer, but got: {opt}"
        )
    wrapped = MixedPrecisionLossScaleOptimizer(opt, loss_scale)
    context_config.set_optimizer_experimental_options({"auto_mixed_precision": True})
    _State.rewrite_enabled = True
    _log.warning(
        "Mixed precision graph rewrite: no float16 rewrite is done (as TensorFlow on devices "
        "other than NVIDIA GPUs of compute capability >= 7.0); loss scaling applies."
    )
    return wrapped


def disable_mixed_precision_graph_rewrite() -> None:
    context_config.set_optimizer_experimental_options({"auto_mixed_precision": False})
    _State.rewrite_enabled = False
