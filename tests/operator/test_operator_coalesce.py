"""Coalescer: many requests for one TFCluster's sync become one; one sync per cluster at a
time; a request during a sync gets exactly one more; retries; clusters run side by side."""

from __future__ import annotations

import asyncio

from tfcluster_operator.coalesce import Coalescer


class Recorder:
    """The work: records its runs, optionally slow, optionally asking for a retry."""

    def __init__(self, seconds: float = 0.0, retry: float | None = None) -> None:
        self.seconds = seconds
        self.retry = retry
        self.runs: list[str] = []
        self.running: set[str] = set()
        self.overlapped = False

    async def __call__(self, key: str) -> float | None:
        if key in self.running:
            self.overlapped = True
        self.running.add(key)
        self.runs.append(key)
        await asyncio.sleep(self.seconds)
        self.running.discard(key)
        retry, self.retry = self.retry, None
        return retry


def test_requests_within_the_window_become_one_run() -> None:
    async def scenario() -> list[str]:
        work = Recorder()
        coalescer = Coalescer(work, delay=0.05)
        for _ in range(100):
            coalescer.kick("a")
        coalescer.kick("b")
        await asyncio.sleep(0.2)
        return sorted(work.runs)

    assert asyncio.run(scenario()) == ["a", "b"]


def test_a_request_during_a_run_gets_one_more_never_two_at_once() -> None:
    async def scenario() -> Recorder:
        work = Recorder(seconds=0.1)
        coalescer = Coalescer(work, delay=0.0)
        coalescer.kick("a")
        await asyncio.sleep(0.03)  # running now
        for _ in range(10):
            coalescer.kick("a")
        await asyncio.sleep(0.4)
        assert coalescer.scheduled == 0
        return work

    work = asyncio.run(scenario())
    assert work.runs == ["a", "a"] and not work.overlapped


def test_a_retry_comes_back_but_a_new_request_does_not_wait_for_it() -> None:
    async def scenario() -> list[str]:
        work = Recorder(retry=30.0)
        coalescer = Coalescer(work, delay=0.0)
        coalescer.kick("a")
        await asyncio.sleep(0.05)  # ran, asked to come back in 30 s
        assert coalescer.scheduled == 1
        coalescer.kick("a", 0.0)  # an event: now, not in 30 s
        await asyncio.sleep(0.05)
        await coalescer.close()
        return work.runs

    assert asyncio.run(scenario()) == ["a", "a"]


def test_a_failing_run_is_retried_and_forget_drops_what_is_scheduled() -> None:
    async def scenario() -> int:
        calls = 0

        async def failing(key: str) -> float | None:
            nonlocal calls
            calls += 1
            raise RuntimeError("API down")

        coalescer = Coalescer(failing, delay=0.0)
        coalescer.kick("a")
        await asyncio.sleep(0.05)
        assert coalescer.scheduled == 1  # the retry
        coalescer.forget("a")
        assert coalescer.scheduled == 0
        return calls

    assert asyncio.run(scenario()) == 1
