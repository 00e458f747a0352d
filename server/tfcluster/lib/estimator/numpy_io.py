"""tf.estimator.inputs.numpy_input_fn (TF 1.15): numpy arrays fed into a FIFO (or random
shuffle) queue by queue-runner threads in the client, batches taken with dequeue_up_to
(dequeue_many when it repeats forever), so it works against a cluster too. pandas_input_fn
needs pandas, which this environment does not have."""

from __future__ import annotations

import collections
import random
import threading
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors, internal_deprecations
from tfcluster.framework.graph import GraphKeys, name_scope
from tfcluster.ops import array_ops, data_flow_ops, math_ops
from tfcluster.ops.summary_ops import scalar
from tfcluster.training.queue_runner import QueueRunner, add_queue_runner

_INDEX = "__index"
_TARGET_KEY = "__target_key__"


class _ArrayFeeder:
    """Successive feed dicts of batch_size rows, as TF 1.15's feed functions
    (feeding_functions._OrderedDictNumpyFeedFn) give them: the rows in order, wrapping
    around from the last to the first (a batch may span two epochs), from row 0, or with
    shuffle from a random row (the random shuffle queue mixes them); the last batch stops at
    the end of the last epoch; StopIteration after num_epochs.

    Each feeder seeds Python's global `random` module with its seed (None: from the OS) and
    draws its start from it, as TF's do."""

    def __init__(
        self,
        placeholders: list[Any],
        arrays: list[np.ndarray],
        batch_size: int,
        shuffle: bool,
        num_epochs: int | None,
        seed: int | None,
    ) -> None:
        self._placeholders = placeholders
        self._arrays = arrays
        self._n = len(arrays[0])
        self._batch = batch_size
        self._num_epochs = num_epochs
        self._epoch = 0
        random.seed(seed)
        self._trav = random.randrange(self._n) if shuffle else 0
        self._epoch_end = (self._trav - 1) % self._n
        self._lock = threading.Lock()

    def _next_indices(self) -> list[int]:
        if self._num_epochs is not None and self._epoch >= self._num_epochs:
            raise StopIteration
        idx = [j % self._n for j in range(self._trav, self._trav + self._batch)]
        ends = [i for i, row in enumerate(idx) if row == self._epoch_end]
        self._epoch += len(ends)
        if self._num_epochs is not None and self._epoch >= self._num_epochs:
            # Stop at the end of the last epoch.
            idx = idx[: ends[-(self._epoch - self._num_epochs + 1)] + 1]
            self._epoch = self._num_epochs
        return idx

    def __call__(self) -> dict[Any, Any]:
        with self._lock:
            rows = self._next_indices()
            self._trav = (rows[-1] + 1) % self._n
        idx = np.asarray(rows, dtype=np.int64)
        feed = {self._placeholders[0]: idx}
        for p, a in zip(self._placeholders[1:], self._arrays):
            feed[p] = a[idx]
        return feed


class _FeedingQueueRunner(QueueRunner):
    """A QueueRunner whose threads feed each enqueue from a Python feeder."""

    def __init__(
        self,
        queue: Any,
        enqueue_ops: list[Any],
        close_op: Any,
        cancel_op: Any,
        feeders: list[_ArrayFeeder],
    ) -> None:
        super().__init__(
            queue=queue, enqueue_ops=enqueue_ops, close_op=close_op, cancel_op=cancel_op
        )
        self._feeders = dict(zip(map(id, enqueue_ops), feeders))

    def _run(self, sess: Any, enqueue_op: Any, coord: Any) -> None:
        feeder = self._feeders[id(enqueue_op)]
        try:
            while coord is None or not coord.should_stop():
                try:
                    feed = feeder()
                except StopIteration:
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        last = self._runs_per_session[sess] == 0
                    if last:
                        sess.run(self._close_op)
                    return
                try:
                    sess.run(enqueue_op, feed_dict=feed)
                except (errors.CancelledError, errors.AbortedError):
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                    return
        except Exception as e:
            if coord is not None and not coord.should_stop():
                coord.request_stop(e)
            elif coord is None:
                raise


def _validate(x: Any, y: Any) -> None:
    if not isinstance(x, dict):
        raise TypeError(f"x must be a dict or array; got {type(x).__name__}")
    if isinstance(y, dict):
        overlap = set(x) & set(y)
        if overlap:
            raise ValueError(f"{overlap} duplicate keys are found in both x and y.")
    lengths = {len(v) for v in x.values()}
    if y is not None:
        lengths |= {len(v) for v in (y.values() if isinstance(y, dict) else [y])}
    if len(lengths) > 1:
        raise ValueError(
            "Length of tensors in x and y is mismatched. All elements in x and y must "
            f"have the same length. Lengths: {sorted(lengths)}"
        )


def _fraction_full_summary(queue: Any, capacity: int, min_after_dequeue: int) -> None:
    """TF 1.15's enqueue_data summary: how full the queue is past min_after_dequeue. Its ops
    (made before the model's) count towards the op seeds of the model's initializers."""
    full = math_ops.cast(math_ops.maximum(0, queue.size() - min_after_dequeue), dtypes.float32) * (
        1.0 / (capacity - min_after_dequeue)
    )
    scalar(
        f"queue/{queue.name}fraction_over_{min_after_dequeue}_of_"
        f"{capacity - min_after_dequeue}_full",
        full,
    )


def numpy_input_fn(
    x: Any,
    y: Any = None,
    batch_size: int = 128,
    num_epochs: int | None = 1,
    shuffle: Any = None,
    queue_capacity: int = 1000,
    num_threads: int = 1,
) -> Any:
    """An input_fn giving batches of the arrays in x (a dict, or one array) and y."""
    if not isinstance(shuffle, bool):
        raise ValueError(
            "shuffle must be provided and explicitly set as boolean (it is recommended to set "
            f"it as True for training); got {shuffle}"
        )

    def input_fn() -> Any:
        direct = not isinstance(x, dict)
        features = {"__direct_np_input": x} if direct else dict(x)
        _validate(features, y)
        ordered = collections.OrderedDict(sorted((k, np.asarray(v)) for k, v in features.items()))
        if y is not None:
            if isinstance(y, dict):
                for k, v in sorted(y.items()):
                    ordered[k] = np.asarray(v)
            else:
                ordered[_TARGET_KEY] = np.asarray(y)
        keys = list(ordered)
        arrays = list(ordered.values())
        threads = num_threads if shuffle else 1
        with name_scope("enqueue_input"):
            types = [dtypes.int64] + [dtypes.as_dtype(a.dtype) for a in arrays]
            shapes = [[]] + [list(a.shape[1:]) for a in arrays]
            if shuffle:
                queue: Any = data_flow_ops.RandomShuffleQueue(
                    queue_capacity, int(queue_capacity / 4), types, shapes=shapes, seed=None
                )
            else:
                queue = data_flow_ops.FIFOQueue(queue_capacity, types, shapes=shapes)
            enqueue_ops, feeders = [], []
            for i in range(threads):
                placeholders = [
                    array_ops.placeholder(dtypes.int64, [None], name=f"placeholder_{i}_index")
                ] + [
                    array_ops.placeholder(t, [None, *s], name=f"placeholder_{i}_{j}")
                    for j, (t, s) in enumerate(zip(types[1:], shapes[1:]))
                ]
                enqueue_ops.append(queue.enqueue_many(placeholders))
                feeders.append(
                    _ArrayFeeder(
                        placeholders,
                        arrays,
                        batch_size,
                        shuffle,
                        num_epochs,
                        None,  # TF's numpy_input_fn passes no seed to its feed functions
                    )
                )
            internal_deprecations.called_internally(internal_deprecations.QUEUE_RUNNER_INIT)
            runner = _FeedingQueueRunner(
                queue,
                enqueue_ops,
                queue.close(),
                queue.close(cancel_pending_enqueues=True),
                feeders,
            )
            internal_deprecations.called_internally(internal_deprecations.ADD_QUEUE_RUNNER)
            add_queue_runner(runner, GraphKeys.QUEUE_RUNNERS)
            _fraction_full_summary(queue, queue_capacity, int(queue_capacity / 4) if shuffle else 0)
        dequeued = (
            queue.dequeue_many(batch_size)
            if num_epochs is None
            else queue.dequeue_up_to(batch_size)
        )
        values = dict(zip(keys, dequeued[1:]))
        if y is None:
            out_features = values
            labels = None
        elif isinstance(y, dict):
            labels = {k: values.pop(k) for k in y}
            out_features = values
        else:
            labels = values.pop(_TARGET_KEY)
            out_features = values
        if direct:
            out_features = out_features["__direct_np_input"]
        return (out_features, labels) if y is not None else out_features

    return input_fn


def pandas_input_fn(
    x: Any,
    y: Any = None,
    batch_size: int = 128,
    num_epochs: int = 1,
    shuffle: Any = None,
    queue_capacity: int = 1000,
    num_threads: int = 1,
    target_column: str = "target",
) -> Any:
    """TF's pandas_input_fn needs pandas: raises UnimplementedError naming it when pandas is
    not installed (it is not in tfcluster's environment)."""
    try:
        import pandas  # noqa: F401
    except ImportError:
        raise errors.UnimplementedError(
            None,
            None,
            "tf.estimator.inputs.pandas_input_fn needs pandas, which is not installed",
        ) from None
    if not isinstance(shuffle, bool):
        raise ValueError(
            "shuffle must be provided and explicitly set as boolean (it is recommended to set "
            f"it as True for training); got {shuffle}"
        )
    features = {str(c): x[c].values for c in x.columns}
    target = y.values if y is not None else None
    return numpy_input_fn(
        features, target, batch_size, num_epochs, shuffle, queue_capacity, num_threads
    )
