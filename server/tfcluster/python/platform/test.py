"""tensorflow.python.platform.test (`from tensorflow.python.platform import test`, then
`test.TestCase` and `test.main()` in a program's tests): tfcluster.api.test, tf.test."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.api.test")
