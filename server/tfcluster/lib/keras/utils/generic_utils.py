"""Keras's Progbar: the progress line fit/evaluate/predict print (TF 1.15's format: `\\r`
redraws on a POSIX terminal, `ETA`, the per-sample time, and the running metric means)."""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np


class Progbar:
    def __init__(
        self,
        target: int | None,
        width: int = 30,
        verbose: int = 1,
        interval: float = 0.05,
        stateful_metrics: Any = None,
        unit_name: str = "step",
    ) -> None:
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stateful_metrics = set(stateful_metrics or ())
        self._dynamic_display = (
            (hasattr(sys.stdout, "isatty") and sys.stdout.isatty())
            or "ipykernel" in sys.modules
            or "posix" in sys.modules
        )
        self._total_width = 0
        self._seen_so_far = 0
        self._values: dict[str, Any] = {}
        self._values_order: list[str] = []
        self._start = time.time()
        self._last_update = 0.0

    def update(self, current: int, values: Any = None) -> None:
        for k, v in values or []:
            if k not in self._values_order:
                self._values_order.append(k)
            if k not in self.stateful_metrics:
                step = current - self._seen_so_far
                if k not in self._values:
                    self._values[k] = [v * step, step]
                else:
                    self._values[k][0] += v * step
                    self._values[k][1] += step
            else:
                self._values[k] = v
        self._seen_so_far = current
        now = time.time()
        info = f" - {now - self._start:.0f}s"
        if self.verbose == 1:
            if (
                now - self._last_update < self.interval
                and self.target is not None
                and current < self.target
            ):
                return
            prev_total_width = self._total_width
            if self._dynamic_display:
                sys.stdout.write("\b" * prev_total_width)
                sys.stdout.write("\r")
            else:
                sys.stdout.write("\n")
            if self.target is not None:
                numdigits = int(np.log10(self.target)) + 1
                bar = f"{current:{numdigits}d}/{self.target} ["
                prog_width = int(self.width * float(current) / self.target)
                if prog_width > 0:
                    bar += "=" * (prog_width - 1)
                    bar += ">" if current < self.target else "="
                bar += "." * (self.width - prog_width)
                bar += "]"
            else:
                bar = f"{current:7d}/Unknown"
            self._total_width = len(bar)
            sys.stdout.write(bar)
            time_per_unit = (now - self._start) / current if current else 0
            if self.target is not None and current < self.target:
                eta = time_per_unit * (self.target - current)
                if eta > 3600:
                    eta_format = f"{eta // 3600:.0f}:{(eta % 3600) // 60:02.0f}:{eta % 60:02.0f}"
                elif eta > 60:
                    eta_format = f"{eta // 60:.0f}:{eta % 60:02.0f}"
                else:
                    eta_format = f"{int(eta)}s"
                info = f" - ETA: {eta_format}"
            elif time_per_unit >= 1 or time_per_unit == 0:
                info += f" {time_per_unit:.0f}s/{self.unit_name}"
            elif time_per_unit >= 1e-3:
                info += f" {time_per_unit * 1e3:.0f}ms/{self.unit_name}"
            else:
                info += f" {time_per_unit * 1e6:.0f}us/{self.unit_name}"
            info += self._values_text()
            self._total_width += len(info)
            if prev_total_width > self._total_width:
                info += " " * (prev_total_width - self._total_width)
            if self.target is not None and current >= self.target:
                info += "\n"
            sys.stdout.write(info)
            sys.stdout.flush()
        elif self.verbose == 2 and self.target is not None and current >= self.target:
            numdigits = int(np.log10(self.target)) + 1
            info = f"{current:{numdigits}d}/{self.target}" + info + self._values_text() + "\n"
            sys.stdout.write(info)
            sys.stdout.flush()
        self._last_update = now

    def _values_text(self) -> str:
        text = ""
        for k in self._values_order:
            text += f" - {k}:"
            value = self._values[k]
            if isinstance(value, list):
                avg = np.mean(value[0] / max(1, value[1]))
                text += f" {avg:.4f}" if abs(avg) > 1e-3 else f" {avg:.4e}"
            else:
                text += f" {value:.4f}" if abs(value) > 1e-3 else f" {value:.4e}"
        return text

    def add(self, n: int, values: Any = None) -> None:
        self.update(self._seen_so_far + n, values)
