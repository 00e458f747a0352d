"""tf.keras.optimizers.schedules (TF 1.15): learning rates as functions of the optimizer's step,
built from the same ops as TF's (a schedule passed as `learning_rate` is evaluated at
`optimizer.iterations` every step)."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras.utils import object_registry
from tfcluster.training import learning_rate_decay


class LearningRateSchedule:
    def __call__(self, step: Any) -> Any:
        raise NotImplementedError("Learning rate schedule must override __call__")

    def get_config(self) -> dict[str, Any]:
        raise NotImplementedError("Learning rate schedule must override get_config")

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        return cls(**config)


class ExponentialDecay(LearningRateSchedule):
    """initial_learning_rate * decay_rate ^ (step / decay_steps): tf.train.exponential_decay's
    graph (TF 1.15's is this schedule called at once)."""

    def __init__(
        self,
        initial_learning_rate: Any,
        decay_steps: Any,
        decay_rate: Any,
        staircase: bool = False,
        name: str | None = None,
    ) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step: Any) -> Any:
        return learning_rate_decay.exponential_decay(
            self.initial_learning_rate,
            step,
            self.decay_steps,
            self.decay_rate,
            self.staircase,
            self.name,
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class PiecewiseConstantDecay(LearningRateSchedule):
    """values[0] up to boundaries[0] (inclusive), values[i] in (boundaries[i-1], boundaries[i]],
    values[-1] after the last boundary."""

    def __init__(self, boundaries: Any, values: Any, name: str | None = None) -> None:
        if len(boundaries) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of values")
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step: Any) -> Any:
        return learning_rate_decay.piecewise_constant_schedule(
            step, self.boundaries, self.values, self.name
        )

    def get_config(self) -> dict[str, Any]:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    def __init__(
        self,
        initial_learning_rate: Any,
        decay_steps: Any,
        end_learning_rate: Any = 0.0001,
        power: Any = 1.0,
        cycle: bool = False,
        name: str | None = None,
    ) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def __call__(self, step: Any) -> Any:
        return learning_rate_decay.polynomial_decay(
            self.initial_learning_rate,
            step,
            self.decay_steps,
            self.end_learning_rate,
            self.power,
            self.cycle,
            self.name,
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "cycle": self.cycle,
            "name": self.name,
        }


class InverseTimeDecay(LearningRateSchedule):
    def __init__(
        self,
        initial_learning_rate: Any,
        decay_steps: Any,
        decay_rate: Any,
        staircase: bool = False,
        name: str | None = None,
    ) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step: Any) -> Any:
        return learning_rate_decay.inverse_time_decay(
            self.initial_learning_rate,
            step,
            self.decay_steps,
            self.decay_rate,
            self.staircase,
            self.name,
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class _DecaySchedule(LearningRateSchedule):
    """A schedule that is one of tf.train's decay functions at the optimizer's step: its
    parameters (in the function's order after the step) are its attributes and its config."""

    _params: tuple[str, ...] = ()

    @staticmethod
    def _decay(*args: Any) -> Any:
        raise NotImplementedError

    def __call__(self, step: Any) -> Any:
        initial, *rest = (getattr(self, p) for p in self._params)
        return self._decay(initial, step, *rest)

    def get_config(self) -> dict[str, Any]:
        return {p: getattr(self, p) for p in self._params}


class CosineDecay(_DecaySchedule):
    """tf.keras.experimental.CosineDecay: tf.train.cosine_decay at the optimizer's step."""

    _params = ("initial_learning_rate", "decay_steps", "alpha", "name")
    _decay = staticmethod(learning_rate_decay.cosine_decay)

    def __init__(
        self,
        initial_learning_rate: Any,
        decay_steps: Any,
        alpha: Any = 0.0,
        name: str | None = None,
    ) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name


class CosineDecayRestarts(_DecaySchedule):
    """tf.keras.experimental.CosineDecayRestarts: SGDR (tf.train.cosine_decay_restarts)."""

    _params = ("initial_learning_rate", "first_decay_steps", "t_mul", "m_mul", "alpha", "name")
    _decay = staticmethod(learning_rate_decay.cosine_decay_restarts)

    def __init__(
        self,
        initial_learning_rate: Any,
        first_decay_steps: Any,
        t_mul: Any = 2.0,
        m_mul: Any = 1.0,
        alpha: Any = 0.0,
        name: str | None = None,
    ) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self.t_mul = t_mul
        self.m_mul = m_mul
        self.alpha = alpha
        self.name = name


class LinearCosineDecay(_DecaySchedule):
    """tf.keras.experimental.LinearCosineDecay (tf.train.linear_cosine_decay)."""

    _params = ("initial_learning_rate", "decay_steps", "num_periods", "alpha", "beta", "name")
    _decay = staticmethod(learning_rate_decay.linear_cosine_decay)

    def __init__(
        self,
        initial_learning_rate: Any,
        decay_steps: Any,
        num_periods: Any = 0.5,
        alpha: Any = 0.0,
        beta: Any = 0.001,
        name: str | None = None,
    ) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.num_periods = num_periods
        self.alpha = alpha
        self.beta = beta
        self.name = name


class NoisyLinearCosineDecay(_DecaySchedule):
    """tf.keras.experimental.NoisyLinearCosineDecay (tf.train.noisy_linear_cosine_decay)."""

    _params = (
        "initial_learning_rate",
        "decay_steps",
        "initial_variance",
        "variance_decay",
        "num_periods",
        "alpha",
        "beta",
        "name",
    )
    _decay = staticmethod(learning_rate_decay.noisy_linear_cosine_decay)

    def __init__(
        self,
        initial_learning_rate: Any,
        decay_steps: Any,
        initial_variance: Any = 1.0,
        variance_decay: Any = 0.55,
        num_periods: Any = 0.5,
        alpha: Any = 0.0,
        beta: Any = 0.001,
        name: str | None = None,
    ) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.initial_variance = initial_variance
        self.variance_decay = variance_decay
        self.num_periods = num_periods
        self.alpha = alpha
        self.beta = beta
        self.name = name


_MODULE_OBJECTS: dict[str, Any] = {
    "LearningRateSchedule": LearningRateSchedule,
    "ExponentialDecay": ExponentialDecay,
    "PiecewiseConstantDecay": PiecewiseConstantDecay,
    "PolynomialDecay": PolynomialDecay,
    "InverseTimeDecay": InverseTimeDecay,
    "CosineDecay": CosineDecay,
    "CosineDecayRestarts": CosineDecayRestarts,
    "LinearCosineDecay": LinearCosineDecay,
    "NoisyLinearCosineDecay": NoisyLinearCosineDecay,
}


def serialize(learning_rate_schedule: Any) -> Any:
    return object_registry.serialize_keras_object(learning_rate_schedule)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    return object_registry.deserialize_keras_object(
        config, _MODULE_OBJECTS, custom_objects, printable_module_name="decay"
    )
