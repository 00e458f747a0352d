"""Integration fixtures: task servers as real processes on loopback, always cleaned up."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.cluster_processes import Cluster


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    c = Cluster()
    try:
        yield c
    finally:
        c.close()
