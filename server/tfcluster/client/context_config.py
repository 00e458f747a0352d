"""What TF 1.15 keeps in its eager context and `tf.Session()` takes when given no config:
soft device placement, GPU memory growth (tf.config) on top of tf.config.threading's counts,
and the devices this process has (CPU always, the GPUs cupy sees), which of them sessions
see (set_visible_devices) and how many logical CPU devices the CPU is split into
(set_virtual_device_configuration). As in TF, the device settings are fixed once the context
is initialized (TF's list_logical_devices does that): changing them after raises
RuntimeError."""

from __future__ import annotations

import collections
from typing import Any

from tfcluster.client import device_placement_logging, thread_settings
from tfcluster.framework import errors
from tfcluster.protos import config_pb2
from tfcluster.runtime import gpu

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])


class VirtualDeviceConfiguration(
    collections.namedtuple("VirtualDeviceConfiguration", ["memory_limit"])
):
    """One logical device a physical device is split into (memory_limit in MB, GPUs only)."""

    def __new__(cls, memory_limit: Any = None) -> VirtualDeviceConfiguration:
        return super().__new__(cls, memory_limit)


_settings: dict[str, Any] = {
    "soft_placement": None,
    "jit": None,
    "device_policy": None,
    "synchronous": True,
}
# Eager execution's device policy names (TF 1.15 keeps them in its context; graph-mode
# sessions place every copy themselves, so the policy changes nothing there).
_DEVICE_POLICIES = ("warn", "explicit", "silent", "silent_for_int32")
# tf.config.optimizer's experimental options as set (None: unset again).
_optimizer_options: dict[str, Any] = {}
# The grappler switches tf.config.optimizer names, in TF's order: toggles (ON/OFF) and bools.
_REWRITE_TOGGLES = (
    "layout_optimizer",
    "constant_folding",
    "shape_optimization",
    "remapping",
    "arithmetic_optimization",
    "dependency_optimization",
    "loop_optimization",
    "function_optimization",
    "debug_stripper",
    "disable_model_pruning",
    "scoped_allocator_optimization",
    "pin_to_host_optimization",
    "implementation_selector",
    "auto_mixed_precision",
    "disable_meta_optimizer",
)
_REWRITE_BOOLS = frozenset({"disable_model_pruning", "disable_meta_optimizer"})
_memory_growth: dict[Any, bool | None] = {}
# Devices sessions see (None: every physical device), logical splits of physical devices,
# and whether the context is initialized (the device settings are fixed from then on).
_devices: dict[str, Any] = {"visible": None, "initialized": False}
_virtual_devices: dict[Any, list[VirtualDeviceConfiguration]] = {}


def get_soft_device_placement() -> bool:
    """Whether an op pinned to a missing device runs elsewhere (graph mode default: False)."""
    return bool(_settings["soft_placement"])


def set_soft_device_placement(enabled: bool) -> None:
    """Sets allow_soft_placement for sessions made without a config from now on."""
    _settings["soft_placement"] = bool(enabled)


def get_device_policy() -> str:
    return _settings["device_policy"] or "silent"


def set_device_policy(device_policy: str | None) -> None:
    if device_policy is not None and device_policy not in _DEVICE_POLICIES:
        raise ValueError(f"Not a valid device policy: {device_policy!r}")
    _settings["device_policy"] = device_policy


def get_synchronous_execution() -> bool:
    return bool(_settings["synchronous"])


def set_synchronous_execution(enable: bool | None) -> None:
    """Whether eager ops wait for their kernels (None: the default, True); graph-mode
    Session.run always returns finished values."""
    _settings["synchronous"] = True if enable is None else bool(enable)


def list_device_names() -> list[str]:
    """tf.config.experimental_list_devices: the logical devices' full names."""
    return [d.name for d in list_logical_devices()]


def get_optimizer_jit() -> bool:
    return bool(_settings["jit"])


def set_optimizer_jit(enabled: bool) -> None:
    """XLA's global JIT level for sessions made without a config (carried: tfcluster has no
    XLA compiler, so the ops run as they are)."""
    _settings["jit"] = enabled


def set_optimizer_experimental_options(options: dict[str, Any]) -> None:
    _optimizer_options.update(options)


def _apply_optimizer_options(config: config_pb2.ConfigProto) -> None:
    rewrite = config.graph_options.rewrite_options
    for option in _REWRITE_TOGGLES:
        value = _optimizer_options.get(option)
        if value is None:
            continue
        if option in _REWRITE_BOOLS:
            setattr(rewrite, option, bool(value))
        else:
            setattr(
                rewrite,
                option,
                config_pb2.RewriterConfig.ON if value else config_pb2.RewriterConfig.OFF,
            )
    if _optimizer_options.get("min_graph_nodes") is not None:
        rewrite.min_graph_nodes = _optimizer_options["min_graph_nodes"]
    if _settings["jit"] is not None:
        config.graph_options.optimizer_options.global_jit_level = (
            config_pb2.OptimizerOptions.ON_1
            if _settings["jit"]
            else config_pb2.OptimizerOptions.OFF
        )


def get_optimizer_experimental_options() -> dict[str, Any]:
    """The options as a session made now would see them (TF reads them back from that
    config: unset toggles are absent, the two bools always present)."""
    config = config_pb2.ConfigProto()
    _apply_optimizer_options(config)
    rewrite = config.graph_options.rewrite_options
    options: dict[str, Any] = {}
    for option in _REWRITE_TOGGLES:
        value = getattr(rewrite, option)
        if option in _REWRITE_BOOLS:
            options[option] = value
        elif value != config_pb2.RewriterConfig.DEFAULT:
            options[option] = value == config_pb2.RewriterConfig.ON
    if rewrite.min_graph_nodes:
        options["min_graph_nodes"] = rewrite.min_graph_nodes
    return options


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    # As TF 1.15's pip wheels: the CPU, its XLA_CPU device, then the GPUs.
    devices = [
        PhysicalDevice("/physical_device:CPU:0", "CPU"),
        PhysicalDevice("/physical_device:XLA_CPU:0", "XLA_CPU"),
    ]
    devices += [PhysicalDevice(f"/physical_device:GPU:{g.index}", "GPU") for g in gpu.local_gpus()]
    return [d for d in devices if device_type is None or d.device_type == device_type]


def get_visible_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    visible = _devices["visible"]
    if visible is None:
        # TF's context makes every physical device visible but the XLA ones.
        visible = [d for d in list_physical_devices() if not d.device_type.startswith("XLA")]
    return [d for d in visible if device_type is None or d.device_type == device_type]


def set_visible_devices(devices: Any, device_type: str | None = None) -> None:
    """The physical devices sessions made without a config see from now on (of
    `device_type` only, when given: the others stay as they are)."""
    if not isinstance(devices, list):
        devices = [devices]
    physical = list_physical_devices()
    for d in devices:
        if d not in physical or (device_type is not None and d.device_type != device_type):
            raise ValueError(f"Unrecognized device: {d!r}")
    visible = []
    if device_type is not None:
        visible = [d for d in get_visible_devices() if d.device_type != device_type]
    visible += devices
    if visible == get_visible_devices():
        return
    if _devices["initialized"]:
        raise RuntimeError("Visible devices cannot be modified after being initialized")
    _devices["visible"] = visible


def get_virtual_device_configuration(device: Any) -> list[VirtualDeviceConfiguration] | None:
    if device not in list_physical_devices():
        raise ValueError(f"Unrecognized device: {device!r}")
    return _virtual_devices.get(device)


def set_virtual_device_configuration(
    device: Any, virtual_devices: list[VirtualDeviceConfiguration]
) -> None:
    """Splits a physical device into logical ones: a CPU into that many CPU devices
    (/device:CPU:0..n-1 of sessions made without a config)."""
    if device not in list_physical_devices():
        raise ValueError(f"Unrecognized device: {device!r}")
    if device.device_type == "CPU":
        if any(v.memory_limit is not None for v in virtual_devices):
            raise ValueError(
                "Setting memory limit on CPU virtual devices is currently not supported"
            )
    elif device.device_type == "GPU":
        if any(v.memory_limit is None for v in virtual_devices):
            raise ValueError("Setting memory limit is required for GPU virtual devices is")
        raise errors.UnimplementedError(
            None,
            None,
            "Virtual GPU devices (several logical GPUs on one physical GPU) are not supported "
            "by tfcluster: each GPU is one device",
        )
    else:
        raise ValueError(f"Virtual devices are not supported for {device.device_type}")
    if _virtual_devices.get(device) == virtual_devices:
        return
    if _devices["initialized"]:
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    _virtual_devices[device] = list(virtual_devices)


def _logical_count(device: PhysicalDevice) -> int:
    split = _virtual_devices.get(device)
    return 1 if split is None else len(split)


def list_logical_devices(device_type: str | None = None) -> list[LogicalDevice]:
    _devices["initialized"] = True  # as TF's context, initialized by listing its devices
    prefix = "/job:localhost/replica:0/task:0/device:"
    out = []
    counts: dict[str, int] = {}
    for d in get_visible_devices():
        for _ in range(_logical_count(d)):
            index = counts.get(d.device_type, 0)
            counts[d.device_type] = index + 1
            if device_type is None or d.device_type == device_type:
                out.append(LogicalDevice(f"{prefix}{d.device_type}:{index}", d.device_type))
    if device_type in (None, "XLA_CPU"):
        # Every session has the XLA_CPU device (after its CPUs), visible or not.
        at = sum(1 for d in out if d.device_type == "CPU")
        out.insert(at, LogicalDevice(f"{prefix}XLA_CPU:0", "XLA_CPU"))
    return out


def _apply_devices(config: config_pb2.ConfigProto) -> None:
    """Device counts and the visible GPU list, as TF's context puts them in its config."""
    counts = {"CPU": 0, "GPU": 0}
    for d in get_visible_devices():
        counts[d.device_type] = counts.get(d.device_type, 0) + _logical_count(d)
    for kind, n in counts.items():
        config.device_count[kind] = n
    visible = get_visible_devices()
    config.gpu_options.visible_device_list = ",".join(
        str(i) for i, d in enumerate(list_physical_devices("GPU")) if d in visible
    )


def _gpu(device: Any) -> PhysicalDevice:
    if device not in list_physical_devices("GPU"):
        raise ValueError(f"Unrecognized device: {device!r}")
    return device


def get_memory_growth(device: Any) -> bool | None:
    """The memory growth set for a GPU (None: not set); KeyError for other devices, as TF."""
    if device not in list_physical_devices("GPU"):
        raise KeyError(device)
    return _memory_growth.get(device)


def set_memory_growth(device: Any, enable: bool) -> None:
    """GPU memory allocated on demand (True) or reserved up front, for sessions made without
    a config from now on (GPUOptions.allow_growth, applied by runtime/gpu.py)."""
    if getattr(device, "device_type", None) != "GPU":
        raise ValueError("Cannot set memory growth on non-GPU devices")
    _memory_growth[_gpu(device)] = bool(enable)


def default_session_config() -> config_pb2.ConfigProto | None:
    """The config of a session given none: None unless something above was set, or
    tf.debugging.set_log_device_placement(True) (TF 1.15's context config carries it)."""
    config = _configured_session_config()
    if device_placement_logging.get_log_device_placement():
        config = config or config_pb2.ConfigProto()
        config.log_device_placement = True
    return config


def _configured_session_config() -> config_pb2.ConfigProto | None:
    config = thread_settings.default_session_config()
    growth = {v for v in _memory_growth.values() if v is not None}
    optimizer_set = _settings["jit"] is not None or any(
        v is not None for v in _optimizer_options.values()
    )
    devices_set = _devices["visible"] is not None or bool(_virtual_devices)
    if _settings["soft_placement"] is None and not growth and not optimizer_set and not devices_set:
        return config
    config = config or config_pb2.ConfigProto()
    _apply_optimizer_options(config)
    if devices_set:
        _apply_devices(config)
    if _settings["soft_placement"] is not None:
        config.allow_soft_placement = _settings["soft_placement"]
    if growth:
        if len(growth) > 1:
            raise ValueError("Memory growth cannot differ between GPU devices")
        config.gpu_options.allow_growth = growth.pop()
    return config
