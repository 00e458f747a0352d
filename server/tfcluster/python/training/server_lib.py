"""tensorflow.python.training.server_lib (`server_lib.Server(cluster, job_name=...)`): the very
objects tf.train holds; TF's other names raise UnimplementedError on use."""

from __future__ import annotations

from tfcluster.python._alias import face_function
from tfcluster.python._private_module import module_getattr

ClusterSpec = face_function("train", "ClusterSpec")
Server = face_function("train", "Server")

__all__ = [
    "ClusterSpec",
    "Server",
]

__getattr__ = module_getattr("python.training.server_lib")
