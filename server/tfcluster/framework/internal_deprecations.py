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
dropout, batch_normalization, ...) call Layer.apply; the SignatureDef builders
(predict_signature_def, hence simple_save and an estimator's export, regression, classification
and the supervised ones) call build_tensor_info; convert_variables_to_constants calls
extract_sub_graph; input_layer and linear_model call the v1 protocol of TF's v2 feature
columns ("EmbeddingColumn._get_dense_tensor", ...; the "internal_methods" of the deprecation
table), which lib/feature_column/base.py announces, and safe_embedding_lookup_sparse calls v1
where; the canned heads and the linear estimators' fraction-of-zero summary call to_float; an
indicator column of a weighted column calls sparse_merge. TF's other internal callers of these
(ctc, ...) are not marked yet.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import types
from collections.abc import Callable
from typing import Any, TypeVar

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
_CHECKPOINTS = "tensorflow.python.training.checkpoint_management"
REMOVE_CHECKPOINT = ("remove_checkpoint", _CHECKPOINTS)
GET_CHECKPOINT_MTIMES = ("get_checkpoint_mtimes", _CHECKPOINTS)
DISABLE_RESOURCE_VARIABLES = ("disable_resource_variables", "tensorflow.python.ops.variable_scope")
LAYER_APPLY = ("Layer.apply", "tensorflow.python.keras.engine.base_layer")
SPARSE_MERGE = ("sparse_merge", "tensorflow.python.ops.sparse_ops")
TO_FLOAT = ("to_float", "tensorflow.python.ops.math_ops")
TO_INT32 = ("to_int32", "tensorflow.python.ops.math_ops")
TO_INT64 = ("to_int64", "tensorflow.python.ops.math_ops")
TO_DOUBLE = ("to_double", "tensorflow.python.ops.math_ops")
BUILD_TENSOR_INFO = ("build_tensor_info", "tensorflow.python.saved_model.utils_impl")
EXTRACT_SUB_GRAPH = ("extract_sub_graph", "tensorflow.python.framework.graph_util_impl")
CONVERT_VARIABLES_TO_CONSTANTS = (
    "convert_variables_to_constants",
    "tensorflow.python.framework.graph_util_impl",
)
CHECKPOINT_EXISTS = ("checkpoint_exists", _CHECKPOINTS)
# tf.train.summary_iterator (hence an early-stopping hook's and BestExporter's reads of the
# evaluation events) reads the event file with tf_record_iterator.
TF_RECORD_ITERATOR = ("tf_record_iterator", "tensorflow.python.lib.io.tf_record")
# Queue-based input: what TF's input producers, batching and sessions call.
_INPUT = "tensorflow.python.training.input"
_QUEUE_RUNNERS = "tensorflow.python.training.queue_runner_impl"
LIMIT_EPOCHS = ("limit_epochs", _INPUT)
INPUT_PRODUCER = ("input_producer", _INPUT)
RANGE_INPUT_PRODUCER = ("range_input_producer", _INPUT)
QUEUE_RUNNER = ("QueueRunner.__init__", _QUEUE_RUNNERS)
ADD_QUEUE_RUNNER = ("add_queue_runner", _QUEUE_RUNNERS)
START_QUEUE_RUNNERS = ("start_queue_runners", _QUEUE_RUNNERS)
REF_COUNT_UP_TO = ("RefVariable.count_up_to", "tensorflow.python.ops.variables")
RESOURCE_COUNT_UP_TO = (
    "BaseResourceVariable.count_up_to",
    "tensorflow.python.ops.resource_variable_ops",
)
COUNT_UP_TO = ("count_up_to", "tensorflow.python.ops.state_ops")
# TF's distributions: every one's constructor calls Distribution.__init__; the categorical and
# multinomial ones sample with the v1 multinomial.
DISTRIBUTION = ("Distribution.__init__", "tensorflow.python.ops.distributions.distribution")
MULTINOMIAL = ("multinomial", "tensorflow.python.ops.random_ops")
# TF's global step read (hooks, Estimator), moving averages and slots of unknown shape read
# their variables' initialized_value.
INITIALIZED_VALUE = ("Variable.initialized_value", "tensorflow.python.ops.variables")
# TF's RNN cells build their weights with add_variable; bidirectional RNNs call the
# deprecated dynamic_rnn and static_rnn.
LAYER_ADD_VARIABLE = ("Layer.add_variable", "tensorflow.python.keras.engine.base_layer")
DYNAMIC_RNN = ("dynamic_rnn", "tensorflow.python.ops.rnn")
STATIC_RNN = ("static_rnn", "tensorflow.python.ops.rnn")


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


# TF's RNN cells (their biases) and the RMSProp and Adagrad slots make initializers with dtype.
_INIT_OPS = "tensorflow.python.ops.init_ops"
_DTYPE_TO_CALL = (
    "Call initializer instance with the dtype argument instead of passing it to the constructor"
)
ZEROS_DTYPE = ("Zeros.__init__", _INIT_OPS, "dtype", _DTYPE_TO_CALL)


def initializer_dtype(class_name: str) -> tuple[str, str, str, str]:
    """The deprecated `dtype` of the V1 initializer class `class_name` (from_config passes
    it)."""
    return (f"{class_name}.__init__", _INIT_OPS, "dtype", _DTYPE_TO_CALL)


ONES_DTYPE = ("Ones.__init__", _INIT_OPS, "dtype", _DTYPE_TO_CALL)
CONSTANT_DTYPE = ("Constant.__init__", _INIT_OPS, "dtype", _DTYPE_TO_CALL)


_F = TypeVar("_F", bound=Callable[..., Any])


def announces_itself(method: _F) -> _F:
    """Marks a method that announces its own deprecation (as TF's subclass override does:
    RefVariable.count_up_to, not the public class's Variable.count_up_to), so the public
    namespace does not wrap it with the public class's record."""
    method._tf_announces = True  # type: ignore[attr-defined]
    return method


def set_argument_reporter(reporter: ArgumentReporter) -> None:
    global _argument_reporter
    _argument_reporter = reporter


def called_internally_with_argument(call: tuple[str, str, str, str], depth: int = 1) -> None:
    """Where TF 1.15's own code passes a deprecated argument: (qualified name, module,
    argument, TF's instructions); the caller's place, or with depth=2 its caller's."""
    if _argument_reporter is not None:
        _argument_reporter(*call, _place(depth))


def called_internally(function: tuple[str, str], depth: int = 1) -> None:
    """Where TF 1.15's own code calls the deprecated `function` (qualified name, module): the
    caller's place, or with depth=2 its caller's (from inside the deprecated function)."""
    if _reporter is not None:
        _reporter(function[0], function[1], _place(depth))


def _place(depth: int) -> types.FrameType:
    """The frame `depth` calls above the caller of called_internally*, past the public
    namespace's deprecation wrappers (a deprecated method called through one)."""
    frame = sys._getframe(depth + 1)
    while frame.f_back is not None and frame.f_code.co_filename.endswith(_WRAPPERS):
        frame = frame.f_back
    return frame


_WRAPPERS = os.path.join("api", "_deprecated_names.py")


def deprecated_arguments(qualified: str, module: str, instructions: str, *names: str) -> Any:
    """TF 1.15's `deprecated_args(None, instructions, *names)` on one of tfcluster's functions
    or methods that no face module wraps (`SavedModelBuilder.add_meta_graph_and_variables`'s
    legacy_init_op): a call passing one of `names`, by position or keyword and whatever its
    value, announces "calling <qualified> (from <module>) with <name> is deprecated ..." from
    the caller's line, once per function and argument."""

    def decorate(fn: _F) -> _F:
        parameters = list(inspect.signature(fn).parameters)
        positions = {name: parameters.index(name) for name in names}

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            if _argument_reporter is not None:
                for name in names:
                    if positions[name] < len(args) or name in kwargs:
                        _argument_reporter(qualified, module, name, instructions, sys._getframe(1))
            return fn(*args, **kwargs)

        return call  # type: ignore[return-value]

    return decorate
