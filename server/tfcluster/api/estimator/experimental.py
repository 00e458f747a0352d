"""tf.estimator.experimental"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.estimator.early_stopping import (
    make_early_stopping_hook,
    stop_if_higher_hook,
    stop_if_lower_hook,
    stop_if_no_decrease_hook,
    stop_if_no_increase_hook,
)
from tfcluster.lib.estimator.experimental_hooks import (
    InMemoryEvaluatorHook,
    make_stop_at_checkpoint_step_hook,
)
from tfcluster.lib.estimator.export import build_raw_supervised_input_receiver_fn
from tfcluster.lib.estimator.kmeans import KMeansClustering as KMeans
from tfcluster.lib.estimator.linear_sdca import LinearSDCA
from tfcluster.lib.estimator.logit_fns import (
    call_logit_fn,
    dnn_logit_fn_builder,
    linear_logit_fn_builder,
)

__getattr__ = _unimplemented.module_getattr("estimator.experimental")
