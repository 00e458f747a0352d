"""tf.train.queue_runner (bound by the tf.train face: api/train.py is a module, not a package)"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.training.queue_runner import QueueRunner, add_queue_runner, start_queue_runners

__getattr__ = _unimplemented.module_getattr("train.queue_runner")
