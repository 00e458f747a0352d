"""The most memory a piece of a test allocated at once, as tracemalloc traces it (numpy's
arrays included): how tests show a step allocates for what it touches, not for a whole
variable."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager


class TracedPeak:
    """Filled in when the `with traced_peak()` block ends."""

    bytes: int = 0


@contextmanager
def traced_peak() -> Iterator[TracedPeak]:
    """Traces allocations during the block; its peak is in the yielded object's `bytes`."""
    peak = TracedPeak()
    tracemalloc.start()
    try:
        yield peak
        peak.bytes = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
