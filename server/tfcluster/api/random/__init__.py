"""tf.random"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.api.random import experimental
from tfcluster.framework.graph import get_seed, set_random_seed
from tfcluster.ops.candidate_sampling_ops import (
    all_candidate_sampler,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from tfcluster.ops.random_ops import (
    random_normal as normal,
)
from tfcluster.ops.random_ops import (
    random_shuffle as shuffle,
)
from tfcluster.ops.random_ops import (
    random_uniform as uniform,
)
from tfcluster.ops.random_ops import (
    truncated_normal,
)
from tfcluster.ops.random_sampling_ops import (
    categorical,
    multinomial,
    stateless_categorical,
    stateless_multinomial,
    stateless_truncated_normal,
)
from tfcluster.ops.random_sampling_ops import (
    random_gamma as gamma,
)
from tfcluster.ops.random_sampling_ops import (
    random_poisson as poisson,
)
from tfcluster.ops.random_sampling_ops import (
    stateless_random_normal as stateless_normal,
)
from tfcluster.ops.random_sampling_ops import (
    stateless_random_uniform as stateless_uniform,
)

__getattr__ = _unimplemented.module_getattr("random")
