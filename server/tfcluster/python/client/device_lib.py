"""tensorflow.python.client.device_lib: the devices a local session of this process has, as
DeviceAttributes protos named as TF names them ("/device:CPU:0", "/device:GPU:0")."""

from __future__ import annotations

from typing import Any

from tfcluster.client.session import Session
from tfcluster.framework.graph import Graph
from tfcluster.protos import device_attributes_pb2


def list_local_devices(session_config: Any = None) -> list[Any]:
    """The local devices (those `session_config` leaves visible), CPU first."""
    with Session(graph=Graph(), config=session_config) as sess:
        devices = sess.list_devices()
    out = []
    for d in devices:
        attrs = device_attributes_pb2.DeviceAttributes(
            name="/device:" + d.name.rsplit("/device:", 1)[-1],
            device_type=d.device_type,
            memory_limit=d.memory_limit_bytes,
            incarnation=d.incarnation,
        )
        if d.device_type in ("CPU", "XLA_CPU"):
            attrs.locality.SetInParent()  # TF prints an empty locality for host devices
        if d.device_type == "XLA_CPU":
            attrs.physical_device_desc = "device: XLA_CPU device"
        out.append(attrs)
    return out
