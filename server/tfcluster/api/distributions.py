"""tf.distributions"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.distributions.bernoulli import Bernoulli
from tfcluster.lib.distributions.beta import Beta
from tfcluster.lib.distributions.categorical import Categorical
from tfcluster.lib.distributions.dirichlet import Dirichlet
from tfcluster.lib.distributions.distribution import (
    FULLY_REPARAMETERIZED,
    NOT_REPARAMETERIZED,
    Distribution,
    ReparameterizationType,
)
from tfcluster.lib.distributions.gamma import Exponential, Gamma
from tfcluster.lib.distributions.kullback_leibler import RegisterKL, kl_divergence
from tfcluster.lib.distributions.laplace import Laplace
from tfcluster.lib.distributions.multinomial import DirichletMultinomial, Multinomial
from tfcluster.lib.distributions.normal import Normal
from tfcluster.lib.distributions.student_t import StudentT
from tfcluster.lib.distributions.uniform import Uniform

__getattr__ = _unimplemented.module_getattr("distributions")
