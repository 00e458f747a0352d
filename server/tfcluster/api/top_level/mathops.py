"""Top-level names of the math families beyond the core: segment reductions, scatters,
partition/stitch, ordering, counting, special functions, linear algebra, random sampling
(each ops module's `__all__` lists the names TF 1.15 has at the top)."""

# ruff: noqa: F403
from tfcluster.ops import complex_ops as _complex_ops
from tfcluster.ops import counting_ops as _counting_ops
from tfcluster.ops import linalg_ops as _linalg_ops
from tfcluster.ops import partition_ops as _partition_ops
from tfcluster.ops import random_sampling_ops as _random_sampling_ops
from tfcluster.ops import scatter_ops as _scatter_ops
from tfcluster.ops import segment_ops as _segment_ops
from tfcluster.ops import sequence_ops as _sequence_ops
from tfcluster.ops import sort_ops as _sort_ops
from tfcluster.ops import special_math_ops as _special_math_ops
from tfcluster.ops.complex_ops import *
from tfcluster.ops.counting_ops import *
from tfcluster.ops.linalg_ops import *
from tfcluster.ops.partition_ops import *
from tfcluster.ops.random_sampling_ops import *
from tfcluster.ops.scatter_ops import *
from tfcluster.ops.segment_ops import *
from tfcluster.ops.sequence_ops import *
from tfcluster.ops.sort_ops import *
from tfcluster.ops.special_math_ops import *

__all__ = sorted(
    {
        *_complex_ops.__all__,
        *_counting_ops.__all__,
        *_linalg_ops.__all__,
        *_partition_ops.__all__,
        *_random_sampling_ops.__all__,
        *_scatter_ops.__all__,
        *_segment_ops.__all__,
        *_sequence_ops.__all__,
        *_sort_ops.__all__,
        *_special_math_ops.__all__,
    }
)
