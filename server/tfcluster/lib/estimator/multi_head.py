"""MultiHead (TF 1.15): several named heads over one model's logits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.lib.estimator import export_output
from tfcluster.lib.estimator.head_base import (
    DEFAULT_SERVING_KEY,
    PREDICT_SERVING_KEY,
    Head,
    HeadMetric,
    create_train_op,
    spec_of_mode,
)
from tfcluster.lib.estimator.model_fn import EstimatorSpec
from tfcluster.lib.metrics import metrics_impl
from tfcluster.ops import (
    control_flow_ops,
    math_ops,
)


def _no_op_train_fn(loss: Tensor) -> Any:
    return control_flow_ops.no_op()


def _default_export_output(outputs: dict[str, Any], head_name: str | None) -> Any:
    if len(outputs) == 1:
        return next(iter(outputs.values()))
    if DEFAULT_SERVING_KEY not in outputs:
        raise ValueError(
            f"{head_name} did not specify default export_outputs. Given: {outputs} "
            "Suggested fix: Use one of the heads in tf.estimator, or include key "
            f"{DEFAULT_SERVING_KEY} in export_outputs."
        )
    return outputs[DEFAULT_SERVING_KEY]


class MultiHead(Head):
    """Several named heads over one model: logits split (or a dict by head name), labels a
    dict by head name, losses summed (weighted by head_weights), metric keys suffixed with
    each head's name, predictions keyed (head name, key)."""

    def __init__(self, heads: Sequence[Head], head_weights: Any = None) -> None:
        if not heads:
            raise ValueError(f"Must specify heads. Given: {heads}")
        if head_weights and len(head_weights) != len(heads):
            raise ValueError(
                "heads and head_weights must have the same size. "
                f"Given len(heads): {len(heads)}. Given len(head_weights): {len(head_weights)}."
            )
        for head in heads:
            if not head.name:
                raise ValueError(f"All given heads must have name specified. Given: {head}")
        self._heads = tuple(heads)
        self._head_weights = tuple(head_weights) if head_weights else ()
        self._logits_dimension = sum(h.logits_dimension for h in heads)

    @property
    def name(self) -> str:
        return "_".join(str(h.name) for h in self._heads)

    @property
    def logits_dimension(self) -> int:
        return self._logits_dimension

    @property
    def loss_reduction(self) -> str:
        reductions = [h.loss_reduction for h in self._heads]
        if len(set(reductions)) > 1:
            raise ValueError(
                f"The loss_reduction must be the same for different heads. Given: {reductions}"
            )
        return reductions[0]

    def _split_logits(self, logits: Any) -> dict[str, Tensor]:
        logits = convert_to_tensor(logits)
        out: dict[str, Tensor] = {}
        with name_scope("split_logits"):
            last = logits.shape[-1] if logits.shape.ndims else None
            last = getattr(last, "value", last)
            dims = [h.logits_dimension for h in self._heads]
            if last is not None and int(last) != sum(dims):
                raise ValueError(
                    f"Could not split logits of shape {logits.shape!r} among the heads with "
                    f"individual logits dimensions: {dims!r}. The last dimension of the logits "
                    f"tensor should equal {sum(dims)} but is {int(last)}."
                )
            begin = 0
            for head in self._heads:
                out[str(head.name)] = logits[..., begin : begin + head.logits_dimension]
                begin += head.logits_dimension
        return out

    def _check_logits_and_labels(self, logits: Any, labels: Any = None) -> dict[str, Any]:
        names = [str(h.name) for h in self._heads]
        if isinstance(logits, dict):
            missing = [n for n in names if n not in logits]
            if missing:
                raise ValueError(f"logits has missing values for head(s): {missing}")
            logits_dict = dict(logits)
        else:
            logits_dict = self._split_logits(logits)
        if labels is not None:
            if not isinstance(labels, dict):
                raise ValueError(f"labels must be a dict. Given: {labels}")
            missing = [n for n in names if n not in labels]
            if missing:
                raise ValueError(f"labels has missing values for head(s): {missing}")
        return logits_dict

    def loss(
        self,
        labels: Any,
        logits: Any,
        features: Any = None,
        mode: Any = None,
        regularization_losses: Any = None,
    ) -> Tensor:
        logits_dict = self._check_logits_and_labels(logits, labels)
        losses = [
            h.loss(labels[str(h.name)], logits_dict[str(h.name)], features, mode)
            for h in self._heads
        ]
        with name_scope("merge_losses"):
            if self._head_weights:
                losses = [math_ops.multiply(x, w) for x, w in zip(losses, self._head_weights)]
            merged = math_ops.add_n(losses)
            if regularization_losses is not None:
                return merged + math_ops.add_n(list(regularization_losses))
            return merged

    def predictions(self, logits: Any, keys: Any = None) -> dict[Any, Tensor]:
        logits_dict = self._check_logits_and_labels(logits)
        out: dict[Any, Tensor] = {}
        with name_scope("merge_pred"):
            for h in self._heads:
                for k, v in h.predictions(logits_dict[str(h.name)]).items():
                    out[(h.name, k)] = v
        return out

    def metrics(self, regularization_losses: Any = None) -> dict[str, HeadMetric]:
        out: dict[str, HeadMetric] = {}
        if regularization_losses is not None:
            key = self._summary_key("regularization_loss")
            out[key] = HeadMetric(key)
        for h in self._heads:
            key = f"loss/{h.name}"
            out[key] = HeadMetric(key)
            out.update(h.metrics())
        return out

    def update_metrics(
        self,
        eval_metrics: dict[str, HeadMetric],
        features: Any,
        logits: Any,
        labels: Any,
        regularization_losses: Any = None,
    ) -> dict[str, HeadMetric]:
        logits_dict = self._check_logits_and_labels(logits, labels)
        if regularization_losses is not None:
            eval_metrics[self._summary_key("regularization_loss")]._set(
                metrics_impl.mean(math_ops.add_n(list(regularization_losses)))
            )
        for h in self._heads:
            name = str(h.name)
            loss = h.loss(labels[name], logits_dict[name], features)
            eval_metrics[f"loss/{name}"]._set(metrics_impl.mean(loss))
            h.update_metrics(eval_metrics, features, logits_dict[name], labels[name])
        return eval_metrics

    def create_estimator_spec(
        self,
        features: Any,
        mode: str,
        logits: Any,
        labels: Any = None,
        optimizer: Any = None,
        trainable_variables: Any = None,
        train_op_fn: Any = None,
        update_ops: Any = None,
        regularization_losses: Any = None,
    ) -> EstimatorSpec:
        with name_scope(self.name, "multi_head"):
            logits_dict = self._check_logits_and_labels(logits, labels)
            specs = [
                h.create_estimator_spec(
                    features=features,
                    mode=mode,
                    logits=logits_dict[str(h.name)],
                    labels=labels[str(h.name)] if labels else None,
                    train_op_fn=_no_op_train_fn,
                )
                for h in self._heads
            ]
            return spec_of_mode(
                self,
                mode,
                features,
                logits,
                labels,
                self.predictions(logits),
                lambda: self._merge_export_outputs(specs),
                regularization_losses,
                lambda loss: create_train_op(
                    optimizer, trainable_variables, train_op_fn, update_ops, loss
                ),
                lambda key: key,
            )

    def _merge_export_outputs(self, specs: list[EstimatorSpec]) -> dict[str, Any]:
        outputs = {
            DEFAULT_SERVING_KEY: _default_export_output(
                specs[0].export_outputs, self._heads[0].name
            )
        }
        merged: dict[str, Tensor] = {}
        for h, spec in zip(self._heads, specs):
            for k, v in spec.export_outputs.items():
                key = str(h.name) if k == DEFAULT_SERVING_KEY else f"{h.name}/{k}"
                outputs[key] = v
                if k == PREDICT_SERVING_KEY and isinstance(v, export_output.PredictOutput):
                    for kp, vp in v.outputs.items():
                        merged[f"{h.name}/{kp}"] = vp
        outputs[PREDICT_SERVING_KEY] = export_output.PredictOutput(merged)
        return outputs
