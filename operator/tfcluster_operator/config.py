"""Operator settings, read once from the environment (the Deployment / chart set them)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from .version import VERSION

DEFAULT_IMAGE = f"tfcluster:{VERSION}"
# Every TFCluster is checked against its children this often, with no API request unless
# something drifted (watch events do the same at once; this catches what they missed).
DEFAULT_RESYNC_SECONDS = 60.0
# Child events within this window become one status update of their TFCluster.
DEFAULT_COALESCE_SECONDS = 0.25
DEFAULT_TLS_CERTIFICATE_SECONDS = 30 * 86400.0
DEFAULT_TLS_CA_SECONDS = 3650 * 86400.0


class ConfigError(ValueError):
    """An operator setting has a value the operator cannot use; the message names it."""


@dataclass(frozen=True)
class OperatorConfig:
    # Image for TFClusters whose spec names none.
    default_image: str = DEFAULT_IMAGE
    # Namespaces to watch; empty means the whole cluster.
    namespaces: tuple[str, ...] = ()
    # Prometheus /metrics port of the operator itself (0: off).
    metrics_port: int = 8080
    # kopf's liveness endpoint port (0: off).
    health_port: int = 8081
    # DNS suffix after `<svc>.<ns>.svc` in task addresses ("" keeps the short form).
    cluster_domain: str = ""
    # Name of the field manager for server-side apply and of the events' source.
    field_manager: str = "tfcluster-operator"
    # Seconds between two checks of every TFCluster (drift, status); 0 turns them off.
    resync_seconds: float = DEFAULT_RESYNC_SECONDS
    # Seconds child events are gathered before their TFCluster's status is recomputed.
    coalesce_seconds: float = DEFAULT_COALESCE_SECONDS
    # spec.networkPolicy for TFClusters that do not say (the chart and manifests: on).
    network_policy_default: bool = False
    # Lifetimes of the certificates the operator issues for spec.tls (renewed with a third
    # of their life left) and of its CAs.
    tls_certificate_seconds: float = DEFAULT_TLS_CERTIFICATE_SECONDS
    tls_ca_seconds: float = DEFAULT_TLS_CA_SECONDS

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> OperatorConfig:
        env = os.environ if env is None else env
        namespaces = tuple(
            ns.strip() for ns in env.get("TFCLUSTER_OPERATOR_NAMESPACES", "").split(",")
        )
        return cls(
            default_image=env.get("TFCLUSTER_OPERATOR_DEFAULT_IMAGE", DEFAULT_IMAGE).strip()
            or DEFAULT_IMAGE,
            namespaces=tuple(ns for ns in namespaces if ns),
            metrics_port=_port(env, "TFCLUSTER_OPERATOR_METRICS_PORT", 8080),
            health_port=_port(env, "TFCLUSTER_OPERATOR_HEALTH_PORT", 8081),
            cluster_domain=env.get("TFCLUSTER_OPERATOR_CLUSTER_DOMAIN", "").strip().strip("."),
            resync_seconds=_seconds(
                env, "TFCLUSTER_OPERATOR_RESYNC_SECONDS", DEFAULT_RESYNC_SECONDS
            ),
            coalesce_seconds=_seconds(
                env, "TFCLUSTER_OPERATOR_COALESCE_SECONDS", DEFAULT_COALESCE_SECONDS
            ),
            network_policy_default=_flag(env, "TFCLUSTER_OPERATOR_NETWORK_POLICY", False),
            tls_certificate_seconds=_seconds(
                env,
                "TFCLUSTER_OPERATOR_TLS_CERTIFICATE_SECONDS",
                DEFAULT_TLS_CERTIFICATE_SECONDS,
                minimum=30.0,
                maximum=DEFAULT_TLS_CA_SECONDS / 3,
            ),
            tls_ca_seconds=_seconds(
                env,
                "TFCLUSTER_OPERATOR_TLS_CA_SECONDS",
                DEFAULT_TLS_CA_SECONDS,
                minimum=3600.0,
                maximum=DEFAULT_TLS_CA_SECONDS * 3,
            ),
        )

    @property
    def clusterwide(self) -> bool:
        return not self.namespaces


def _port(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        port = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not an integer port") from None
    if not 0 <= port <= 65535:
        raise ConfigError(f"{name}={port} is outside 0..65535 (0 turns it off)")
    return port


def _seconds(
    env: Mapping[str, str],
    name: str,
    default: float,
    minimum: float = 0.0,
    maximum: float = 86400.0,
) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number of seconds") from None
    if not minimum <= value < maximum:
        raise ConfigError(f"{name}={value} is outside {minimum:g}..{maximum:g} seconds")
    return value


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name}={raw!r} is not true or false")
