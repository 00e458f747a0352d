"""Shared test setup: a fresh default graph for every test, and the resource-variable switch
as it was before it."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

# As the `tfcluster` command does for the processes it starts: gRPC logs a peer going away at
# INFO, and tests stop servers all the time. Read once, when gRPC is imported (by tfcluster);
# the task servers and programs the tests start inherit it.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import tfcluster as tf


@pytest.fixture(autouse=True)
def _fresh_default_graph() -> Iterator[None]:
    tf.reset_default_graph()
    # A process-wide switch (a BoostedTrees estimator turns resource variables on, as TF
    # 1.15's does) must not reach the tests run after the one that flipped it.
    resource_variables = tf.resource_variables_enabled()
    yield
    if tf.resource_variables_enabled() != resource_variables:
        if resource_variables:
            tf.enable_resource_variables()
        else:
            tf.disable_resource_variables()
