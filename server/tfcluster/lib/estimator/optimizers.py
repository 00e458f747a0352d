"""Optimizer arguments of the canned estimators: a name ('Adagrad', 'Adam', 'Ftrl',
'RMSProp', 'SGD') with the estimator's default learning rate, an Optimizer, or a callable
returning one."""

from __future__ import annotations

from typing import Any

from tfcluster.training.ftrl import FtrlOptimizer
from tfcluster.training.optimizer import Optimizer
from tfcluster.training.optimizers import (
    AdagradOptimizer,
    AdamOptimizer,
    GradientDescentOptimizer,
    RMSPropOptimizer,
)

_BY_NAME: dict[str, Any] = {
    "Adagrad": AdagradOptimizer,
    "Adam": AdamOptimizer,
    "Ftrl": FtrlOptimizer,
    "RMSProp": RMSPropOptimizer,
    "SGD": GradientDescentOptimizer,
}


def get_optimizer_instance(opt: Any, learning_rate: float | None = None) -> Optimizer:
    if isinstance(opt, str):
        if opt in _BY_NAME:
            if not learning_rate:
                raise ValueError("learning_rate must be specified when opt is string.")
            return _BY_NAME[opt](learning_rate=learning_rate)
        raise ValueError(
            f"Unsupported optimizer name: {opt}. Supported names are: {tuple(sorted(_BY_NAME))}"
        )
    if callable(opt) and not isinstance(opt, Optimizer):
        opt = opt()
    if not isinstance(opt, Optimizer):
        raise ValueError(f"The given object is not an Optimizer instance. Given: {opt}")
    return opt
