"""Scrapes a /metrics endpoint over HTTP and reads it with prometheus-client's own parser."""

from __future__ import annotations

import urllib.request
from collections.abc import Mapping

from prometheus_client.parser import text_string_to_metric_families


class Scrape:
    """The samples of one scrape: value(name, **labels) sums the samples that match."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.samples: list[tuple[str, dict[str, str], float]] = []
        self.types: dict[str, str] = {}
        for family in text_string_to_metric_families(text):
            self.types[family.name] = family.type
            for s in family.samples:
                self.samples.append((s.name, dict(s.labels), float(s.value)))

    @property
    def names(self) -> set[str]:
        return {name for name, _, _ in self.samples}

    def matching(self, name: str, **labels: str) -> list[tuple[dict[str, str], float]]:
        return [
            (lab, v)
            for n, lab, v in self.samples
            if n == name and all(lab.get(k) == str(want) for k, want in labels.items())
        ]

    def value(self, name: str, **labels: str) -> float:
        """The sum of the matching samples (0 when none: a labelled counter not yet moved)."""
        return sum(v for _, v in self.matching(name, **labels))

    def by_label(self, name: str, label: str, **labels: str) -> Mapping[str, float]:
        return {lab[label]: v for lab, v in self.matching(name, **labels)}


def scrape(port: int, host: str = "localhost", timeout: float = 10.0) -> Scrape:
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=timeout) as r:
        assert r.status == 200
        assert r.headers.get("Content-Type", "").startswith("text/plain")
        return Scrape(r.read().decode())


def delta(after: Scrape, before: Scrape, name: str, **labels: str) -> float:
    return after.value(name, **labels) - before.value(name, **labels)
