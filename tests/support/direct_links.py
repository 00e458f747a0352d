"""Waiting for a process's direct (plain stream) links to in-process task servers."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from tfcluster.rpc.direct import client as direct


def wait_for_direct_links(
    servers: Mapping[str, Any], step: Callable[[], Any], names: tuple[str, ...] = ("ps0", "ps1")
) -> None:
    """Runs `step` until this process knows the direct endpoints of the named servers."""
    end = time.monotonic() + 15
    for name in names:
        address = servers[name].target.partition("://")[2]
        while not direct.link(address).ready:
            assert time.monotonic() < end, f"no direct endpoint for {name}"
            step()
            time.sleep(0.01)
