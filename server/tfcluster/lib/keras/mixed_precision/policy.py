"""tf.keras.mixed_precision.experimental.Policy (TF 1.15): a layer's compute and variable
dtypes from a name ("float32", "mixed_float16", "float16_with_float32_vars", "infer", ...)
and its loss scale ("mixed_float16" defaults to a dynamic one). In TensorFlow 1 the global
policy is "infer" and can only be set to an "infer" policy; layers take any policy as dtype."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.training import loss_scale as loss_scale_module
from tfcluster.training import mixed_precision as graph_rewrite

USE_DEFAULT = "USE_DEFAULT"


class Policy:
    def __init__(self, name: str, loss_scale: Any = USE_DEFAULT) -> None:
        if isinstance(name, dtypes.DType):
            raise TypeError(
                f"'name' must be a string, not a DType. Instead, pass DType.name. Got: {name.name}"
            )
        if not isinstance(name, str):
            raise TypeError(f"'name' must be a string, but got: {name}")
        if name == "infer_float32_vars":
            name = "infer_with_float32_vars"
        if name == "float32_with_float32_vars":
            name = "float32"
        self._name = name
        self._compute_dtype, self._variable_dtype = self._parse_name(name)
        if loss_scale == USE_DEFAULT:
            loss_scale = "dynamic" if name == "mixed_float16" else None
        if loss_scale and self._compute_dtype not in (None, "float16"):
            logging.warning(
                "Creating a Policy with a loss scale is only useful for float16 policies. You "
                "passed loss_scale=%r for policy %s. Consider not passing any loss_scale "
                "instead.",
                loss_scale,
                name,
            )
        self._loss_scale = loss_scale_module.get(loss_scale)

    @staticmethod
    def _parse_name(name: str) -> tuple[str | None, str | None]:
        if name == "mixed_float16":
            return "float16", "float32"
        if name == "mixed_bfloat16":
            return "bfloat16", "float32"
        float32_vars = name.endswith("_with_float32_vars")
        base_name = name[: -len("_with_float32_vars")] if float32_vars else name
        if base_name == "infer":
            base_dtype = None
        else:
            try:
                base_dtype = dtypes.as_dtype(base_name).name
            except TypeError:
                error = (
                    f"Cannot convert value {name} to a mixed precision Policy. Valid policies "
                    'include include those in the form "<dtype>" and '
                    '"<dtype>_with_float32_vars", where <dtype> is the name of a dtype.'
                )
                if float32_vars:
                    error += (
                        f" The value {name} ends with _with_float32_vars, but {base_name} "
                        "cannot be converted to a DType"
                    )
                raise ValueError(error) from None
        return base_dtype, ("float32" if float32_vars else base_dtype)

    @property
    def variable_dtype(self) -> str | None:
        return self._variable_dtype

    @property
    def compute_dtype(self) -> str | None:
        return self._compute_dtype

    @property
    def should_cast_variables(self) -> bool:
        return self.variable_dtype != self.compute_dtype

    @property
    def loss_scale(self) -> Any:
        return self._loss_scale

    @property
    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f'<Policy "{self._name}", loss_scale={self.loss_scale}>'


def with_input_dtype(policy: Policy, dtype: Any) -> Policy:
    """An "infer" policy made concrete by a layer's first input dtype."""
    name = dtypes.as_dtype(dtype).name
    if policy.variable_dtype is None:
        return Policy(name)
    return Policy(name + "_with_float32_vars")


_global_policy: Policy | None = None


def global_policy() -> Policy:
    """The policy of layers given none: "infer" unless set_policy chose another."""
    return _global_policy if _global_policy is not None else Policy("infer")


def set_policy(policy: Any) -> None:
    global _global_policy
    if graph_rewrite.is_graph_rewrite_enabled():
        raise ValueError(
            "The mixed precision policy cannot be set, because the mixed precision graph "
            "rewrite has already been enabled.\nAt most, one of the following functions can "
            "be called:\n\n  1. tf.train.experimental.enable_mixed_precision_graph_rewrite() "
            "(You called this first)\n  2. tf.keras.mixed_precision.experimental.set_policy() "
            "(You called this second)\n\nYou called both functions, which is an error, because "
            "both functions enable you to use mixed precision."
        )
    if policy is not None and not isinstance(policy, Policy):
        policy = Policy(policy)
    if policy is not None and policy.compute_dtype:
        raise ValueError("The global policy can only be set to a non-infer policy in TensorFlow 2")
    _global_policy = policy


@contextlib.contextmanager
def policy_scope(policy: Any) -> Iterator[None]:
    old_policy = _global_policy
    try:
        set_policy(policy)
        yield
    finally:
        set_policy(old_policy)
