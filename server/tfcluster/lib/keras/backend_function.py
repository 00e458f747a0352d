"""K.function (TF 1.15's GraphExecutionFunction): a callable that feeds its inputs with the
values it is given and returns the run outputs, in their structure, after running the updates
(grouped under a control dependency on the first output, so they run after it is computed)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.framework.func_graph import flatten, pack_as
from tfcluster.framework.graph import control_dependencies, convert_to_tensor
from tfcluster.ops import array_ops, state_ops
from tfcluster.ops.array_extras import is_tensor


class GraphExecutionFunction:
    def __init__(
        self,
        inputs: Any,
        outputs: Any,
        updates: Any = None,
        name: str | None = None,
        **session_kwargs: Any,
    ) -> None:
        from tfcluster.ops.control_flow_ops import group

        updates = updates or []
        if not isinstance(updates, (list, tuple)):
            raise TypeError("`updates` in a Keras backend function should be a list or tuple.")
        self._outputs_structure = outputs
        self.inputs = flatten(inputs)
        # Variables among the outputs are read as tensors, as TF's cast_variables_to_tensor.
        self.outputs = [_as_tensor(o) for o in flatten(outputs)]
        with control_dependencies([self.outputs[0]] if self.outputs else []):
            update_ops = [
                state_ops.assign(u[0], u[1]) if isinstance(u, tuple) else u for u in updates
            ]
            self.updates_op = group(*update_ops)
        self.name = name
        self.feed_dict = session_kwargs.pop("feed_dict", None)
        fetches = session_kwargs.pop("fetches", [])
        if not isinstance(fetches, list):
            fetches = [fetches]
        self.run_options = session_kwargs.pop("options", None)
        self.run_metadata = session_kwargs.pop("run_metadata", None)
        # Extra fetches are wrapped in Identity ops (custom updates a callback runs).
        self.fetches = [array_ops.identity(x) for x in fetches]
        # fetch -> function given its value (a callback that added the fetch).
        self.fetch_callbacks: dict[Any, Callable[[Any], Any]] = {}
        if session_kwargs:
            raise ValueError(
                "Some keys in session_kwargs are not supported at this time: "
                f"{session_kwargs.keys()}"
            )

    def __call__(self, inputs: Sequence[Any]) -> Any:
        from tfcluster.lib.keras.backend import get_session

        values = flatten(inputs)
        session = get_session(values)
        feed: dict[Any, Any] = {}
        symbolic: list[tuple[Any, Any]] = []
        for tensor, value in zip(self.inputs, values):
            if value is None:
                continue
            if is_tensor(value):
                symbolic.append((tensor, value))
            else:
                # Cast as TF does before its callable, which takes exact dtypes only.
                feed[tensor] = np.asarray(value, dtype=tensor.dtype.base_dtype.as_numpy_dtype)
        if symbolic:
            # A symbolic value is computed, then fed (TF connects it inside one step).
            computed = session.run([v for _, v in symbolic], feed_dict=feed)
            feed.update({t: v for (t, _), v in zip(symbolic, computed)})
        if self.feed_dict:
            for key in sorted(self.feed_dict, key=lambda k: getattr(k, "name", str(k))):
                feed[key] = np.asarray(self.feed_dict[key], dtype=key.dtype.base_dtype.name)
        try:
            fetched = session.run(
                [*self.outputs, self.updates_op, *self.fetches],
                feed_dict=feed,
                options=self.run_options,
                run_metadata=self.run_metadata,
            )
        except errors.OpError as e:
            raise as_callable_error(e) from None
        extra = fetched[len(self.outputs) + 1 :]
        for fetch, value in zip(self.fetches, extra):
            if fetch in self.fetch_callbacks:
                self.fetch_callbacks[fetch](value)
        return pack_as(self._outputs_structure, list(fetched[: len(self.outputs)]))


def run_step(session: Any, fetches: Any, feed_dict: Any = None) -> Any:
    """One step of a model's train, test or predict function (fit, evaluate, predict and the
    *_on_batch methods). TF 1.15's Keras runs these through session callables as it runs
    K.function, so a failing step raises the runtime's error uninterpolated, as here."""
    try:
        return session.run(fetches, feed_dict=feed_dict)
    except errors.OpError as e:
        raise as_callable_error(e) from None


def as_callable_error(error: errors.OpError) -> errors.OpError:
    """The error as TF 1.15's Keras function raises it: its step runs through a session
    callable, whose errors come as the runtime gave them (the failing node a `{{node X}}` tag,
    no op, no node_def), not interpolated as Session.run's are."""
    raw = error.__context__ if isinstance(error.__context__, errors.OpError) else error
    return type(error)(None, None, raw.message)


def _as_tensor(value: Any) -> Any:
    if hasattr(value, "_as_graph_element") and not is_tensor(value):
        return convert_to_tensor(value)
    return value
