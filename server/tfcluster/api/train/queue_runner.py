"""tf.train.queue_runner"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.training.queue_runner import QueueRunner, add_queue_runner, start_queue_runners

__getattr__ = _unimplemented.module_getattr("train.queue_runner")
