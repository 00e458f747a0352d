"""Shared test setup: a fresh default graph for every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import tfcluster as tf


@pytest.fixture(autouse=True)
def _fresh_default_graph() -> Iterator[None]:
    tf.reset_default_graph()
    yield
