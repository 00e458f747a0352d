"""tf.estimator.export"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.estimator.export import (
    ServingInputReceiver,
    TensorServingInputReceiver,
    build_parsing_serving_input_receiver_fn,
    build_raw_serving_input_receiver_fn,
)
from tfcluster.lib.estimator.export_output import (
    ClassificationOutput,
    ExportOutput,
    PredictOutput,
    RegressionOutput,
)

__getattr__ = _unimplemented.module_getattr("estimator.export")
