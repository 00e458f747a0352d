"""tensorflow.python.framework.dtypes: tfcluster.framework.dtypes."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.framework.dtypes")
