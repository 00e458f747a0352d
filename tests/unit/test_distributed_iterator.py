"""A distributed dataset's iterator takes next() and .next() as TF 1.15's
DistributedIteratorV1 does, and refuses iter() with TF's message
(distributed_iterator_cases.py, recorded by tests/tf_reference/record_distributed_iterator.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.distributed_iterator_cases import run


def test_next_on_a_distributed_dataset_iterator() -> None:
    assert run(tf) == reference.case("distributed_iterator", "mirrored_initializable")
