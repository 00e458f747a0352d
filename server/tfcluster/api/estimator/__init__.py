"""tf.estimator"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.api.estimator import experimental, export, inputs, tpu
from tfcluster.lib.estimator.baseline import (
    BaselineClassifier,
    BaselineEstimator,
    BaselineRegressor,
)
from tfcluster.lib.estimator.boosted_trees import (
    BoostedTreesClassifier,
    BoostedTreesEstimator,
    BoostedTreesRegressor,
)
from tfcluster.lib.estimator.class_heads import BinaryClassHead, MultiClassHead, MultiLabelHead
from tfcluster.lib.estimator.dnn import DNNClassifier, DNNEstimator, DNNRegressor
from tfcluster.lib.estimator.dnn_linear_combined import (
    DNNLinearCombinedClassifier,
    DNNLinearCombinedEstimator,
    DNNLinearCombinedRegressor,
)
from tfcluster.lib.estimator.estimator import Estimator, WarmStartSettings
from tfcluster.lib.estimator.exporter import (
    BestExporter,
    Exporter,
    FinalExporter,
    LatestExporter,
)
from tfcluster.lib.estimator.extenders import add_metrics
from tfcluster.lib.estimator.head_base import Head
from tfcluster.lib.estimator.linear import LinearClassifier, LinearEstimator, LinearRegressor
from tfcluster.lib.estimator.model_fn import EstimatorSpec, ModeKeys
from tfcluster.lib.estimator.multi_head import MultiHead
from tfcluster.lib.estimator.parsing_utils import (
    classifier_parse_example_spec,
    regressor_parse_example_spec,
)
from tfcluster.lib.estimator.regression_heads import (
    LogisticRegressionHead,
    PoissonRegressionHead,
    RegressionHead,
)
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
from tfcluster.training.profiler_hook import ProfilerHook
from tfcluster.training.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)
from tfcluster.training.warm_starting_util import VocabInfo

__getattr__ = _unimplemented.module_getattr("estimator")
