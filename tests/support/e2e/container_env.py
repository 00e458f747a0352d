"""A container's environment and command line, resolved as the kubelet resolves them.

Order: the image's environment, then Service links (``KUBERNETES_SERVICE_HOST`` ... always,
the namespace's Services too when ``enableServiceLinks`` is not false), then ``envFrom``,
then ``env`` in order; ``$(VAR)`` in a value, the command and the args expands to a variable
defined before it (``$$`` is a literal ``$``; an unknown reference stays as written).
"""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any

Lookup = Callable[[str, str], dict[str, Any] | None]  # (kind, name) -> object or None

_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
_LABEL_PATH = re.compile(r"metadata\.(labels|annotations)\['(.+)'\]")
_SUFFIXES = {
    "n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "": Decimal(1),
    "k": Decimal(10**3), "M": Decimal(10**6), "G": Decimal(10**9), "T": Decimal(10**12),
    "Ki": Decimal(2**10), "Mi": Decimal(2**20), "Gi": Decimal(2**30), "Ti": Decimal(2**40),
}  # fmt: skip


class ConfigError(RuntimeError):
    """What the kubelet reports as CreateContainerConfigError."""


def expand(text: str, env: Mapping[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group(1)
        return env[name] if name in env else match.group(0)

    return _REF.sub(one, text)


def quantity(text: str | int | float) -> Decimal:
    match = re.fullmatch(r"([0-9.eE+-]+?)(n|u|m|k|M|G|T|Ki|Mi|Gi|Ti)?", str(text))
    if not match:
        raise ConfigError(f"not a quantity: {text!r}")
    return Decimal(match.group(1)) * _SUFFIXES[match.group(2) or ""]


def field_value(pod: Mapping[str, Any], path: str) -> str:
    meta = pod.get("metadata", {})
    spec = pod.get("spec", {})
    status = pod.get("status", {})
    simple = {
        "metadata.name": meta.get("name"),
        "metadata.namespace": meta.get("namespace"),
        "metadata.uid": meta.get("uid"),
        "spec.nodeName": spec.get("nodeName"),
        "spec.serviceAccountName": spec.get("serviceAccountName"),
        "status.hostIP": status.get("hostIP"),
        "status.podIP": status.get("podIP"),
        "status.podIPs": ",".join(p["ip"] for p in status.get("podIPs", [])),
        "status.hostIPs": ",".join(p["ip"] for p in status.get("hostIPs", [])),
    }
    if path in simple:
        return str(simple[path] or "")
    match = _LABEL_PATH.fullmatch(path)
    if match:
        return str(meta.get(match.group(1), {}).get(match.group(2), ""))
    raise ConfigError(f"unsupported fieldRef fieldPath {path!r}")


def resource_value(
    container: Mapping[str, Any], ref: Mapping[str, Any], allocatable: Mapping[str, str]
) -> str:
    """``limits.cpu`` etc.: a limit that is not set is the node's allocatable (as kubelet)."""
    kind, _, resource = ref["resource"].partition(".")
    resources = container.get("resources", {})
    value = resources.get(kind, {}).get(resource)
    if value is None and kind == "requests":
        value = resources.get("limits", {}).get(resource)
    if value is None:
        value = allocatable.get(resource, "0") if kind == "limits" else "0"
    divisor = quantity(ref.get("divisor", "1") or "1")
    return str(math.ceil(quantity(value) / divisor))


def _data(obj: Mapping[str, Any], kind: str) -> dict[str, str]:
    if kind == "Secret":
        return {k: base64.b64decode(v).decode() for k, v in (obj.get("data") or {}).items()}
    return dict(obj.get("data") or {})


def _key_ref(ref: Mapping[str, Any], kind: str, lookup: Lookup) -> str | None:
    obj = lookup(kind, ref["name"])
    optional = bool(ref.get("optional"))
    if obj is None:
        if optional:
            return None
        raise ConfigError(f'{kind.lower()} "{ref["name"]}" not found')
    data = _data(obj, kind)
    if ref["key"] not in data:
        if optional:
            return None
        raise ConfigError(f"couldn't find key {ref['key']} in {kind} {ref['name']}")
    return data[ref["key"]]


def resolve_env(
    pod: Mapping[str, Any],
    container: Mapping[str, Any],
    base: Mapping[str, str],
    lookup: Lookup,
    allocatable: Mapping[str, str],
) -> dict[str, str]:
    env = dict(base)
    for source in container.get("envFrom", []):
        prefix = source.get("prefix", "")
        for kind, key in (("ConfigMap", "configMapRef"), ("Secret", "secretRef")):
            ref = source.get(key)
            if not ref:
                continue
            obj = lookup(kind, ref["name"])
            if obj is None:
                if ref.get("optional"):
                    continue
                raise ConfigError(f'{kind.lower()} "{ref["name"]}" not found')
            env.update({prefix + k: v for k, v in _data(obj, kind).items()})
    for var in container.get("env", []):
        name = var["name"]
        source = var.get("valueFrom")
        if source is None:
            env[name] = expand(var.get("value", ""), env)
            continue
        value: str | None
        if "fieldRef" in source:
            value = field_value(pod, source["fieldRef"]["fieldPath"])
        elif "resourceFieldRef" in source:
            value = resource_value(container, source["resourceFieldRef"], allocatable)
        elif "secretKeyRef" in source:
            value = _key_ref(source["secretKeyRef"], "Secret", lookup)
        elif "configMapKeyRef" in source:
            value = _key_ref(source["configMapKeyRef"], "ConfigMap", lookup)
        else:
            raise ConfigError(f"unsupported valueFrom of {name}: {sorted(source)}")
        if value is not None:
            env[name] = value
    return env


def service_env(services: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Docker-link style variables of Services with a cluster IP (as kubelet writes them)."""
    env: dict[str, str] = {}
    for svc in services:
        spec = svc.get("spec", {})
        ip = spec.get("clusterIP")
        if not ip or ip == "None" or not spec.get("ports"):
            continue
        name = svc["metadata"]["name"].upper().replace("-", "_")
        first = spec["ports"][0]
        env[f"{name}_SERVICE_HOST"] = ip
        env[f"{name}_SERVICE_PORT"] = str(first["port"])
        env[f"{name}_PORT"] = f"{first.get('protocol', 'TCP').lower()}://{ip}:{first['port']}"
        for port in spec["ports"]:
            proto = port.get("protocol", "TCP")
            stem = f"{name}_PORT_{port['port']}_{proto}"
            if port.get("name"):
                env[f"{name}_SERVICE_PORT_{port['name'].upper().replace('-', '_')}"] = str(
                    port["port"]
                )
            env[stem] = f"{proto.lower()}://{ip}:{port['port']}"
            env[f"{stem}_PROTO"] = proto.lower()
            env[f"{stem}_PORT"] = str(port["port"])
            env[f"{stem}_ADDR"] = ip
    return env


def command_line(
    container: Mapping[str, Any], image_cmd: list[str], env: Mapping[str, str]
) -> list[str]:
    """``command`` + ``args`` (the image's CMD when neither is set), ``$(VAR)`` expanded."""
    command = container.get("command")
    args = container.get("args")
    if command is None:
        argv = list(args) if args is not None else list(image_cmd)
    else:
        argv = [*command, *(args or [])]
    if not argv:
        raise ConfigError("no command specified")
    return [expand(a, env) for a in argv]
