"""The dual loss updaters of TF's SDCA optimizer (logistic, squared, hinge, smooth hinge and
Poisson loss): each gives the new dual value of one example, its primal and dual losses, the
primal loss's derivative (adaptive sampling) and the loss's smoothness constant, with the
formulas of TF 1.15's kernels (double precision throughout, as there)."""

from __future__ import annotations

import math
import sys

from tfcluster.kernels.common import invalid

# Newton's method converges quadratically: TF takes 10 steps for the logistic and Poisson
# duals.
_NEWTON_STEPS = 10
# The dual losses of hinge-type losses outside their domain (TF returns DBL_MAX there).
_DUAL_INFINITE = sys.float_info.max


class LossUpdater:
    smoothness = 1.0

    def convert_label(self, label: float) -> float:
        return label

    def updated_dual(
        self, partitions: int, label: float, weight: float, dual: float, wx: float, norm: float
    ) -> float:
        raise NotImplementedError

    def dual_loss(self, dual: float, label: float, weight: float) -> float:
        raise NotImplementedError

    def primal_loss(self, wx: float, label: float, weight: float) -> float:
        raise NotImplementedError

    def primal_derivative(self, wx: float, label: float, weight: float) -> float:
        raise NotImplementedError


def _binary_label(label: float) -> float:
    """0/1 labels become -1/+1, as the classification losses expect."""
    if label == 0.0:
        return -1.0
    if label == 1.0:
        return 1.0
    raise invalid(
        "Only labels of 0.0 or 1.0 are supported right now. "
        f"Found example with label: {_float_text(label)}"
    )


def _float_text(x: float) -> str:
    return f"{x:g}"


class LogisticLoss(LossUpdater):
    smoothness = 4.0

    def convert_label(self, label: float) -> float:
        return _binary_label(label)

    def updated_dual(
        self, partitions: int, label: float, weight: float, dual: float, wx: float, norm: float
    ) -> float:
        # Newton's method on tanh-reparametrised dual (x such that dual = (1 + tanh x) / 2y).
        scale = partitions * norm * weight
        x = 0.0
        for _ in range(_NEWTON_STEPS):
            t = math.tanh(x)
            f = -2 * label * x - wx - scale * (0.5 * (1 + t) / label - dual)
            df = -2 * label - scale * (1 - t * t) * 0.5 / label
            x -= f / df
        return 0.5 * (1 + math.tanh(x)) / label

    def dual_loss(self, dual: float, label: float, weight: float) -> float:
        ay = dual * label
        log_ay = math.log(ay) if ay > 0 else 0.0
        rest = 1 - ay
        log_rest = math.log(rest) if rest > 0 else 0.0
        return (ay * log_ay + rest * log_rest) * weight

    def primal_loss(self, wx: float, label: float, weight: float) -> float:
        y_wx = label * wx
        if y_wx > 0:
            return math.log1p(math.exp(-y_wx)) * weight
        return (math.log1p(math.exp(y_wx)) - y_wx) * weight

    def primal_derivative(self, wx: float, label: float, weight: float) -> float:
        if label * wx > 0:
            e = math.exp(-label * wx)
            term = e / (1 + e)
        else:
            term = 1 / (1 + math.exp(label * wx))
        return -term * label * weight


class SquaredLoss(LossUpdater):
    smoothness = 1.0

    def updated_dual(
        self, partitions: int, label: float, weight: float, dual: float, wx: float, norm: float
    ) -> float:
        return dual + (label - dual - wx) / (1 + partitions * norm * weight)

    def dual_loss(self, dual: float, label: float, weight: float) -> float:
        return dual * (0.5 * dual - label) * weight

    def primal_loss(self, wx: float, label: float, weight: float) -> float:
        err = wx - label
        return err * err * weight * 0.5

    def primal_derivative(self, wx: float, label: float, weight: float) -> float:
        return (wx - label) * weight


def _clip_dual(label: float, candidate: float) -> float:
    """The dual of a hinge-type loss lives in [0, 1] times the label."""
    if label * candidate < 0:
        return 0.0
    if label * candidate > 1.0:
        return label
    return candidate


class HingeLoss(LossUpdater):
    smoothness = 0.0

    def convert_label(self, label: float) -> float:
        return _binary_label(label)

    def updated_dual(
        self, partitions: int, label: float, weight: float, dual: float, wx: float, norm: float
    ) -> float:
        return _clip_dual(label, dual + (label - wx) / (partitions * weight * norm))

    def dual_loss(self, dual: float, label: float, weight: float) -> float:
        y_alpha = dual * label
        if y_alpha < 0 or y_alpha > 1.0:
            return _DUAL_INFINITE
        return -y_alpha * weight

    def primal_loss(self, wx: float, label: float, weight: float) -> float:
        return max(0.0, 1 - label * wx) * weight

    def primal_derivative(self, wx: float, label: float, weight: float) -> float:
        return -label * weight if label * wx < 1 else 0.0


class SmoothHingeLoss(LossUpdater):
    # gamma, the smoothing width (fixed at 1 in TF)
    smoothness = 1.0

    def convert_label(self, label: float) -> float:
        return _binary_label(label)

    def updated_dual(
        self, partitions: int, label: float, weight: float, dual: float, wx: float, norm: float
    ) -> float:
        gamma = self.smoothness
        step = (label - wx - gamma * dual) / (partitions * weight * norm + gamma)
        return _clip_dual(label, dual + step)

    def dual_loss(self, dual: float, label: float, weight: float) -> float:
        y_alpha = dual * label
        if y_alpha < 0 or y_alpha > 1.0:
            return _DUAL_INFINITE
        return (-y_alpha + 0.5 * self.smoothness * dual * dual) * weight

    def primal_loss(self, wx: float, label: float, weight: float) -> float:
        gamma = self.smoothness
        y_wx = label * wx
        if y_wx >= 1:
            return 0.0
        if y_wx <= 1 - gamma:
            return (1 - y_wx - gamma / 2) * weight
        return (1 - y_wx) * (1 - y_wx) * weight * 0.5 / gamma

    def primal_derivative(self, wx: float, label: float, weight: float) -> float:
        gamma = self.smoothness
        if label * wx >= 1:
            return 0.0
        if label * wx <= 1 - gamma:
            return -label
        return (wx - label) / gamma


class PoissonLoss(LossUpdater):
    smoothness = 1.0

    def convert_label(self, label: float) -> float:
        if label < 0.0:
            raise invalid(
                "Only non-negative labels can be used with the Poisson log loss. "
                f"Found example with label: {_float_text(label)}"
            )
        return label

    def updated_dual(
        self, partitions: int, label: float, weight: float, dual: float, wx: float, norm: float
    ) -> float:
        # Newton's method on x = log(label - dual), started where exp(x) = label - dual.
        scale = partitions * norm * weight
        y_minus_a = label - dual
        x = math.log(y_minus_a) if y_minus_a > 0 else 0.0
        for _ in range(_NEWTON_STEPS):
            e = math.exp(x)
            f = x - wx - scale * (label - dual - e)
            df = 1 + scale * e
            x -= f / df
        return label - math.exp(x)

    def dual_loss(self, dual: float, label: float, weight: float) -> float:
        y_minus_a = label - dual
        if y_minus_a == 0.0:
            return 0.0
        if y_minus_a < 0.0:
            return _DUAL_INFINITE
        return y_minus_a * (math.log(y_minus_a) - 1) * weight

    def primal_loss(self, wx: float, label: float, weight: float) -> float:
        return (math.exp(wx) - wx * label) * weight

    def primal_derivative(self, wx: float, label: float, weight: float) -> float:
        return (math.exp(wx) - label) * weight


LOSSES: dict[str, type[LossUpdater]] = {
    "logistic_loss": LogisticLoss,
    "squared_loss": SquaredLoss,
    "hinge_loss": HingeLoss,
    "smooth_hinge_loss": SmoothHingeLoss,
    "poisson_loss": PoissonLoss,
}


def loss_updater(loss_type: str) -> LossUpdater:
    cls = LOSSES.get(loss_type)
    if cls is None:
        raise invalid(f"Unsupported loss type: {loss_type}")
    return cls()
