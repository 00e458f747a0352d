"""tf.test: TestCase with sessions and TF's assertions, tf.test.main, numeric gradient checks,
what GPUs the process has."""
