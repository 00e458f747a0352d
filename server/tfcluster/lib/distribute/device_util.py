"""Device strings as tf.distribute writes them: '/cpu:0' -> '/replica:0/task:0/device:CPU:0'."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import device_spec
from tfcluster.framework.graph import Tensor


def canonicalize(device: str, default: str | None = None) -> str:
    """The full name of `device`: replica 0, task 0 and CPU:0 where it says nothing else
    (merged over `default` first when given), as TF's device_util.canonicalize."""
    spec = device_spec.parse(device)
    base = device_spec.DeviceSpec(replica=0, task=0, device_type="CPU", device_index=0)
    if default:
        base = _merge(base, device_spec.parse(default))
    return _merge(base, spec).to_string()


def _merge(base: device_spec.DeviceSpec, over: device_spec.DeviceSpec) -> device_spec.DeviceSpec:
    fields = {}
    for f in ("job", "replica", "task", "device_type", "device_index"):
        value = getattr(over, f)
        fields[f] = value if value is not None else getattr(base, f)
    return device_spec.DeviceSpec(**fields)


def devices_of(destinations: Any) -> tuple[str, ...]:
    """The devices a reduce or broadcast sends to: a distributed value's devices, a device
    string, or where a tensor or variable lives."""
    devices = getattr(destinations, "devices", None)
    if isinstance(devices, tuple):
        return devices
    if isinstance(destinations, str):
        return (canonicalize(destinations),)
    if isinstance(destinations, Tensor) or hasattr(destinations, "op"):
        return (canonicalize(destinations.device or ""),)
    raise ValueError(f"destinations can not be empty or of type {type(destinations).__name__}")


def is_cpu(device: str) -> bool:
    return (device_spec.parse(device).device_type or "CPU").upper() == "CPU"
