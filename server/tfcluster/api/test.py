"""tf.test"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.testing.benchmark import Benchmark, benchmark_config, test_src_dir_path
from tfcluster.lib.testing.devices import (
    gpu_device_name,
    is_built_with_cuda,
    is_built_with_gpu_support,
    is_built_with_rocm,
    is_gpu_available,
)
from tfcluster.lib.testing.googletest import get_temp_dir, main
from tfcluster.lib.testing.gradient_checker import compute_gradient, compute_gradient_error
from tfcluster.lib.testing.graph_def_equality import assert_equal_graph_def
from tfcluster.lib.testing.local_cluster import create_local_cluster
from tfcluster.lib.testing.stubout import StubOutForTesting
from tfcluster.lib.testing.test_case import TestCase

__getattr__ = _unimplemented.module_getattr("test")
