"""Running a dataset iterator to its end in a session: what the dataset-graph recorders
(under TF 1.15, Python 3.7) and the tests reading their records (under tfcluster) both do
with an iterator's initializer and its get_next tensors."""


def run_to_end(tf, sess, init, fetch):
    """Runs `init`, then `fetch` until OutOfRangeError: (the values of every step, and ""
    or the error met as [class name, first line of its message])."""
    steps = []
    try:
        sess.run(init)
        while True:
            try:
                steps.append(sess.run(fetch))
            except tf.errors.OutOfRangeError:
                return steps, ""
    except tf.errors.OpError as e:
        return steps, [type(e).__name__, str(e.message).splitlines()[0]]
