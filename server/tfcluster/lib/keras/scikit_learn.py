"""tf.keras.wrappers.scikit_learn (TF 1.15): a Keras model built by `build_fn` behind
scikit-learn's estimator interface (get_params/set_params/fit/predict/score), so grid search
and cross-validation can drive it. The parameters given at construction go to whichever of
build_fn, fit, predict, predict_classes and evaluate takes them."""

from __future__ import annotations

import copy
import inspect
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.lib.keras import losses
from tfcluster.lib.keras.engine.sequential import Sequential
from tfcluster.lib.keras.utils import to_categorical


def _takes(fn: Callable[..., Any], name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


class BaseWrapper:
    def __init__(self, build_fn: Any = None, **sk_params: Any) -> None:
        self.build_fn = build_fn
        self.sk_params = sk_params
        self.check_params(sk_params)

    def _builder(self) -> Callable[..., Any]:
        """What makes the model: build_fn (a function, or a callable object's __call__), or
        this wrapper's own __call__ when a subclass defines one."""
        if self.build_fn is None:
            return self.__call__  # type: ignore[operator]
        if not isinstance(self.build_fn, (types.FunctionType, types.MethodType)):
            return self.build_fn.__call__  # type: ignore[no-any-return]
        return self.build_fn  # type: ignore[no-any-return]

    def check_params(self, params: dict[str, Any]) -> None:
        """ValueError for a parameter none of the functions it could go to takes."""
        legal: list[Callable[..., Any]] = [
            Sequential.fit,
            Sequential.predict,
            Sequential.predict_classes,
            Sequential.evaluate,
            self._builder(),
        ]
        for name in params:
            if name != "nb_epoch" and not any(_takes(fn, name) for fn in legal):
                raise ValueError(f"{name} is not a legal parameter")

    def get_params(self, **params: Any) -> dict[str, Any]:
        result = copy.deepcopy(self.sk_params)
        result["build_fn"] = self.build_fn
        return result

    def set_params(self, **params: Any) -> BaseWrapper:
        self.check_params(params)
        self.sk_params.update(params)
        return self

    def filter_sk_params(
        self, fn: Callable[..., Any], override: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The construction parameters fn takes, then `override`."""
        result = {k: v for k, v in self.sk_params.items() if _takes(fn, k)}
        result.update(override or {})
        return result

    def fit(self, x: Any, y: Any, **kwargs: Any) -> Any:
        builder = self._builder()
        self.model = builder(**self.filter_sk_params(builder))
        if losses.is_categorical_crossentropy(self.model.loss) and len(np.shape(y)) != 2:
            y = to_categorical(y)
        fit_args = copy.deepcopy(self.filter_sk_params(Sequential.fit))
        fit_args.update(kwargs)
        return self.model.fit(x, y, **fit_args)


class KerasClassifier(BaseWrapper):
    def fit(self, x: Any, y: Any, **kwargs: Any) -> Any:
        y = np.array(y)
        if y.ndim == 2 and y.shape[1] > 1:
            self.classes_ = np.arange(y.shape[1])
        elif (y.ndim == 2 and y.shape[1] == 1) or y.ndim == 1:
            self.classes_ = np.unique(y)
            y = np.searchsorted(self.classes_, y)
        else:
            raise ValueError("Invalid shape for y: " + str(y.shape))
        self.n_classes_ = len(self.classes_)
        return super().fit(x, y, **kwargs)

    def predict(self, x: Any, **kwargs: Any) -> Any:
        kwargs = self.filter_sk_params(Sequential.predict_classes, kwargs)
        return self.classes_[self.model.predict_classes(x, **kwargs)]

    def predict_proba(self, x: Any, **kwargs: Any) -> Any:
        kwargs = self.filter_sk_params(Sequential.predict_proba, kwargs)
        probs = self.model.predict_proba(x, **kwargs)
        if probs.shape[1] == 1:
            probs = np.hstack([1 - probs, probs])
        return probs

    def score(self, x: Any, y: Any, **kwargs: Any) -> Any:
        """The model's accuracy on (x, y) (the compiled 'acc'/'accuracy' metric)."""
        y = np.searchsorted(self.classes_, y)
        kwargs = self.filter_sk_params(Sequential.evaluate, kwargs)
        loss_name = getattr(self.model.loss, "__name__", self.model.loss)
        if loss_name == "categorical_crossentropy" and len(y.shape) != 2:
            y = to_categorical(y)
        outputs = self.model.evaluate(x, y, **kwargs)
        if not isinstance(outputs, list):
            outputs = [outputs]
        for name, output in zip(self.model.metrics_names, outputs):
            if name in ("accuracy", "acc"):
                return output
        raise ValueError(
            "The model is not configured to compute accuracy. You should pass "
            '`metrics=["accuracy"]` to the `model.compile()` method.'
        )


class KerasRegressor(BaseWrapper):
    def predict(self, x: Any, **kwargs: Any) -> Any:
        kwargs = self.filter_sk_params(Sequential.predict, kwargs)
        return np.squeeze(self.model.predict(x, **kwargs))

    def score(self, x: Any, y: Any, **kwargs: Any) -> Any:
        """The negated loss on (x, y) (scikit-learn maximizes scores)."""
        kwargs = self.filter_sk_params(Sequential.evaluate, kwargs)
        loss = self.model.evaluate(x, y, **kwargs)
        return -loss[0] if isinstance(loss, list) else -loss
