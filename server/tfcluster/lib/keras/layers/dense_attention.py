"""Keras's dot-product (Luong) Attention and additive (Bahdanau) AdditiveAttention layers (TF
1.15): inputs [query, value] or [query, value, key]; masks hide value steps (and query steps
in the output); `causal=True` lets step i see only steps <= i."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.lib.keras import initializers
from tfcluster.lib.keras.engine.base_layer import Layer
from tfcluster.ops import array_ops, math_ops, nn_ops


def _lower_triangular_mask(shape: Any) -> Any:
    ones = array_ops.ones(shape, dtype=dtypes.int32)
    row = math_ops.cumsum(ones, axis=-2)
    col = math_ops.cumsum(ones, axis=-1)
    return math_ops.greater_equal(row, col)


def _merge_masks(x: Any, y: Any) -> Any:
    if x is None:
        return y
    if y is None:
        return x
    return math_ops.logical_and(x, y)


class BaseDenseAttention(Layer):
    def __init__(self, causal: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.causal = causal
        self.supports_masking = True

    def _calculate_scores(self, query: Any, key: Any) -> Any:
        raise NotImplementedError

    @staticmethod
    def _apply_scores(scores: Any, value: Any, scores_mask: Any = None) -> Any:
        if scores_mask is not None:
            padding_mask = math_ops.logical_not(scores_mask)
            scores -= 1.0e9 * math_ops.cast(padding_mask, dtype=scores.dtype)
        distribution = nn_ops.softmax(scores)
        return math_ops.matmul(distribution, value)

    def call(self, inputs: Any, mask: Any = None) -> Any:
        self._validate(inputs, mask)
        q, v = inputs[0], inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        q_mask = mask[0] if mask else None
        v_mask = mask[1] if mask else None
        scores = self._calculate_scores(query=q, key=k)
        if v_mask is not None:
            v_mask = array_ops.expand_dims(v_mask, axis=-2)
        if self.causal:
            scores_shape = array_ops.shape(scores)
            causal_shape = array_ops.concat(
                [array_ops.ones_like(scores_shape[:-2]), scores_shape[-2:]], axis=0
            )
            causal_mask = _lower_triangular_mask(causal_shape)
        else:
            causal_mask = None
        result = self._apply_scores(scores, v, _merge_masks(v_mask, causal_mask))
        if q_mask is not None:
            q_mask = array_ops.expand_dims(q_mask, axis=-1)
            result *= math_ops.cast(q_mask, dtype=result.dtype)
        return result

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        self._validate(inputs, mask)
        if mask:
            return mask[0]
        return None

    def _validate(self, inputs: Any, mask: Any) -> None:
        name = type(self).__name__
        if not isinstance(inputs, list):
            raise ValueError(
                f"{name} layer must be called on a list of inputs, namely [query, value] or "
                "[query, value, key]."
            )
        if len(inputs) < 2 or len(inputs) > 3:
            raise ValueError(
                f"{name} layer accepts inputs list of length 2 or 3, namely [query, value] or "
                f"[query, value, key]. Given length: {len(inputs)}"
            )
        if mask:
            if not isinstance(mask, list):
                raise ValueError(
                    f"{name} layer mask must be a list, namely [query_mask, value_mask]."
                )
            if len(mask) != 2:
                raise ValueError(
                    f"{name} layer mask must be a list of length 2, namely [query_mask, "
                    f"value_mask]. Given length: {len(mask)}"
                )

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "causal": self.causal}


class Attention(BaseDenseAttention):
    def __init__(self, use_scale: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.use_scale = use_scale

    def build(self, input_shape: Any) -> None:
        self.scale = None
        if self.use_scale:
            self.scale = self.add_weight(
                name="scale", shape=(), initializer=initializers.get("ones"), trainable=True
            )
        self.built = True

    def _calculate_scores(self, query: Any, key: Any) -> Any:
        scores = math_ops.matmul(query, key, transpose_b=True)
        if self.scale is not None:
            scores *= self.scale
        return scores

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "use_scale": self.use_scale}


class AdditiveAttention(BaseDenseAttention):
    def __init__(self, use_scale: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.use_scale = use_scale

    def build(self, input_shape: Any) -> None:
        dim = list(input_shape[1])[-1]
        dim = getattr(dim, "value", dim)
        self.scale = None
        if self.use_scale:
            self.scale = self.add_weight(
                name="scale",
                shape=[dim],
                initializer=initializers.get("glorot_uniform"),
                trainable=True,
            )
        self.built = True

    def _calculate_scores(self, query: Any, key: Any) -> Any:
        q = array_ops.expand_dims(query, axis=-2)
        k = array_ops.expand_dims(key, axis=-3)
        scale = self.scale if self.use_scale else 1.0
        return math_ops.reduce_sum(scale * math_ops.tanh(q + k), axis=-1)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "use_scale": self.use_scale}
