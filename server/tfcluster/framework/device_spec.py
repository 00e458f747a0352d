"""Device names: parsing, merging and canonical forms, as TensorFlow's DeviceSpec does."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class DeviceSpec:
    """A possibly partial device: any field left as None is unconstrained."""

    job: str | None = None
    replica: int | None = None
    task: int | None = None
    device_type: str | None = None
    device_index: int | None = None

    @classmethod
    def from_string(cls, spec: str | None) -> DeviceSpec:
        return parse(spec or "")

    def to_string(self) -> str:
        parts = []
        if self.job is not None:
            parts.append(f"/job:{self.job}")
        if self.replica is not None:
            parts.append(f"/replica:{self.replica}")
        if self.task is not None:
            parts.append(f"/task:{self.task}")
        if self.device_type is not None:
            index = "*" if self.device_index is None else str(self.device_index)
            parts.append(f"/device:{self.device_type}:{index}")
        return "".join(parts)

    def make_merged_spec(self, dev: DeviceSpec) -> DeviceSpec:
        """Fields set in `dev` override ours (DeviceSpec.merge_from)."""
        other = dev
        return DeviceSpec(
            job=other.job if other.job is not None else self.job,
            replica=other.replica if other.replica is not None else self.replica,
            task=other.task if other.task is not None else self.task,
            device_type=other.device_type if other.device_type is not None else self.device_type,
            device_index=self._merged_index(other),
        )

    def _merged_index(self, other: DeviceSpec) -> int | None:
        # A new device type brings its own index (possibly "*"), as TF's merge does.
        if other.device_type is not None or other.device_index is not None:
            return other.device_index
        return self.device_index

    def replace(self, **kwargs: Any) -> DeviceSpec:
        return replace(self, **kwargs)

    @property
    def task_name(self) -> str:
        return f"/job:{self.job}/replica:{self.replica or 0}/task:{self.task or 0}"

    def __str__(self) -> str:
        return self.to_string()


def parse(spec: str) -> DeviceSpec:
    """Parses '/job:ps/task:0', 'job:worker/task:1', '/cpu:0', '/device:GPU:0', '/gpu:*'."""
    job = replica = task = dtype = index = None
    for raw in spec.split("/"):
        part = raw.strip()
        if not part:
            continue
        fields = part.split(":")
        key = fields[0].lower()
        try:
            if key == "job" and len(fields) == 2 and fields[1]:
                job = fields[1]
            elif key == "replica" and len(fields) == 2:
                replica = int(fields[1])
            elif key == "task" and len(fields) == 2:
                task = int(fields[1])
            elif key in ("cpu", "gpu") and len(fields) in (1, 2):
                # A bare 'CPU' is TF's too: any device of the type ('/device:CPU:*').
                dtype = key.upper()
                index = None if len(fields) == 1 or fields[1] == "*" else int(fields[1])
            elif key == "device" and len(fields) == 3:
                dtype = fields[1].upper()
                index = None if fields[2] == "*" else int(fields[2])
            elif key == "device" and len(fields) == 2:
                dtype = fields[1].upper()
            else:
                raise ValueError
        except ValueError:
            raise ValueError(
                f"Unknown attribute: '{part}' in device specification: '{spec}'"
            ) from None
    return DeviceSpec(job, replica, task, dtype, index)


def merge_device(outer: str, inner: str) -> str:
    """The device an op gets when `inner` was set inside a `tf.device(outer)` scope."""
    if not outer:
        return inner
    return parse(outer).make_merged_spec(parse(inner)).to_string()


def canonical_name(spec: str | DeviceSpec) -> str:
    return (parse(spec) if isinstance(spec, str) else spec).to_string()


def full_device_name(job: str, task: int, device_type: str = "CPU", index: int = 0) -> str:
    return f"/job:{job}/replica:0/task:{task}/device:{device_type}:{index}"
