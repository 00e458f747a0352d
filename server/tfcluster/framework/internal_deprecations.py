"""Deprecated TF 1.15 functions that TF's own code calls: TF announces such a function at the
first internal call, from its own file, and never again.

TF 1.15's deprecation decorator warns on a function's first call from anywhere: its gradients
of Pow, Maximum, Minimum, Select and the segment reductions, sigmoid_cross_entropy_with_logits,
reduce_logsumexp, clip_by_norm, clip_by_global_norm, dynamic_rnn's sequence_length copy, a
loss's tensor weights, a seeded tf.data op and Keras's selu, elu of another alpha than 1, switch
on a tensor condition, random_binomial and masked RNN steps all call the deprecated v1 `where`,
and disable_v2_behavior calls disable_resource_variables. A program calling tf.where after one
of these gets no warning under TF. tfcluster's code computes those values with its own ops, so
the place where TF's code made the call says so here (`called_internally`), and the public
namespace's deprecation bookkeeping (api/_deprecated_names.py, which registers itself as the
reporter) takes the function as announced and prints TF's warning from that place (a tfcluster
file, where TF names one of its own). The deprecated `div` goes the same way: tf.metrics'
precision, recall, auc, mean_iou and mean_relative_error, the metrics at k (precision_at_k,
recall_at_top_k, average_precision_at_k, ...), at thresholds and sensitivity/specificity,
per_image_standardization and a weighted embedding_lookup_sparse call it; and a Saver calls
remove_checkpoint when it deletes a checkpoint past max_to_keep, get_checkpoint_mtimes when a
session restored from a checkpoint recovers its list; reduce_prod's gradient and a tensordot of
tensor axes call setdiff1d (the latter v1 where too); tf.layers' functions (dense, conv2d,
dropout, batch_normalization, ...) call Layer.apply; input_layer and linear_model call the
v1 protocol of TF's v2 feature columns ("EmbeddingColumn._get_dense_tensor", ...; the
"internal_methods" of the deprecation table), which lib/feature_column/base.py announces, and
safe_embedding_lookup_sparse calls v1 where. An Estimator's training reads its global step by
initialized_value, numpy_input_fn makes a QueueRunner and calls add_queue_runner, a
MonitoredSession of queue runners calls start_queue_runners, the canned heads and the linear
estimators' fraction-of-zero summary call to_float, and Adagrad makes its accumulators'
initializers with a dtype; an indicator column of a weighted column calls sparse_merge;
boolean_mask (and so report_uninitialized_variables, a MonitoredSession's ready op) calls v1
where. TF's other internal callers of these (ctc, raw_rnn, embedding lookups partitioned by
"div", ...) are not marked yet.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable

# (qualified name, TF's module, the caller's frame) -> None; set by the public namespace.
Reporter = Callable[[str, str, types.FrameType], None]
_reporter: Reporter | None = None
# (qualified name, TF's module, argument, instructions, the caller's frame) -> None.
ArgumentReporter = Callable[[str, str, str, str, types.FrameType], None]
_argument_reporter: ArgumentReporter | None = None

# The deprecated functions TF 1.15's own code calls, as the deprecation table names them.
WHERE = ("where", "tensorflow.python.ops.array_ops")
DIV = ("div", "tensorflow.python.ops.math_ops")
SETDIFF1D = ("setdiff1d", "tensorflow.python.ops.array_ops")
SPARSE_MERGE = ("sparse_merge", "tensorflow.python.ops.sparse_ops")
_CHECKPOINTS = "tensorflow.python.training.checkpoint_management"
REMOVE_CHECKPOINT = ("remove_checkpoint", _CHECKPOINTS)
GET_CHECKPOINT_MTIMES = ("get_checkpoint_mtimes", _CHECKPOINTS)
DISABLE_RESOURCE_VARIABLES = ("disable_resource_variables", "tensorflow.python.ops.variable_scope")
LAYER_APPLY = ("Layer.apply", "tensorflow.python.keras.engine.base_layer")
LAYER_ADD_VARIABLE = ("Layer.add_variable", "tensorflow.python.keras.engine.base_layer")
INITIALIZED_VALUE = ("Variable.initialized_value", "tensorflow.python.ops.variables")
TO_FLOAT = ("to_float", "tensorflow.python.ops.math_ops")
_QUEUE_RUNNERS = "tensorflow.python.training.queue_runner_impl"
QUEUE_RUNNER_INIT = ("QueueRunner.__init__", _QUEUE_RUNNERS)
ADD_QUEUE_RUNNER = ("add_queue_runner", _QUEUE_RUNNERS)
START_QUEUE_RUNNERS = ("start_queue_runners", _QUEUE_RUNNERS)


def set_reporter(reporter: Reporter) -> None:
    global _reporter
    _reporter = reporter


# TF's code creates every resource variable through its variable creator, which passes
# `constraint` (None too) to BaseResourceVariable.__init__, whose deprecated_args announces it.
RESOURCE_VARIABLE_CONSTRAINT = (
    "BaseResourceVariable.__init__",
    "tensorflow.python.ops.resource_variable_ops",
    "constraint",
    "If using Keras pass *_constraint arguments to layers.",
)


# An initializer made with a dtype (Adagrad's accumulator slots: constant_initializer(value,
# dtype=...)), which Constant.__init__'s deprecated_args announces.
CONSTANT_DTYPE = (
    "Constant.__init__",
    "tensorflow.python.ops.init_ops",
    "dtype",
    "Call initializer instance with the dtype argument instead of passing it to the constructor",
)


def set_argument_reporter(reporter: ArgumentReporter) -> None:
    global _argument_reporter
    _argument_reporter = reporter


def called_internally_with_argument(call: tuple[str, str, str, str]) -> None:
    """Where TF 1.15's own code passes a deprecated argument: (qualified name, module,
    argument, TF's instructions)."""
    if _argument_reporter is not None:
        _argument_reporter(*call, sys._getframe(1))


def called_internally(function: tuple[str, str], depth: int = 1) -> None:
    """Where TF 1.15's own code calls the deprecated `function` (qualified name, module): the
    caller's line, or with depth=2 its caller's (a wrapper's)."""
    if _reporter is not None:
        _reporter(function[0], function[1], sys._getframe(depth))
