"""tf.estimator"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.api.estimator import export, inputs
from tfcluster.lib.estimator.dnn import DNNClassifier, DNNRegressor
from tfcluster.lib.estimator.dnn_linear_combined import (
    DNNLinearCombinedClassifier,
    DNNLinearCombinedRegressor,
)
from tfcluster.lib.estimator.estimator import Estimator, WarmStartSettings
from tfcluster.lib.estimator.linear import LinearClassifier, LinearRegressor
from tfcluster.lib.estimator.model_fn import EstimatorSpec, ModeKeys
from tfcluster.lib.estimator.run_config import RunConfig
from tfcluster.lib.estimator.training import EvalSpec, TrainSpec, train_and_evaluate
from tfcluster.training.basic_session_run_hooks import (
    CheckpointSaverHook,
    CheckpointSaverListener,
    FeedFnHook,
    FinalOpsHook,
    GlobalStepWaiterHook,
    LoggingTensorHook,
    NanLossDuringTrainingError,
    NanTensorHook,
    SecondOrStepTimer,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
)
from tfcluster.training.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)
from tfcluster.training.warm_starting_util import VocabInfo

__getattr__ = _unimplemented.module_getattr("estimator")
