"""A distributed dataset's initializable iterator (MirroredStrategy, one replica) used as
Python iterates: TF 1.15's DistributedIteratorV1 takes next() and .next() (each its
get_next()) but is not iterable itself. Run on TF 1.15 by record_distributed_iterator.py
and on tfcluster by tests/unit/test_distributed_iterator.py. Python 3.7 code."""

from __future__ import annotations


def run(tf):
    graph = tf.Graph()
    with graph.as_default():
        strategy = tf.distribute.MirroredStrategy()
        dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.range(6).batch(2))
        iterator = dataset.make_initializable_iterator()
        first = next(iterator)
        second = iterator.next()
        try:
            iter(iterator)
            iter_error = None
        except TypeError as e:
            iter_error = str(e)
        with tf.Session(graph=graph) as sess:
            sess.run(iterator.initializer)
            values = [sess.run(first), sess.run(second)]
    return {
        "type": type(iterator).__name__,
        "values": [v.tolist() for v in values],
        "iter_error": iter_error,
    }
