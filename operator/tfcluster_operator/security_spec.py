"""The security parts of a TFCluster's spec, validated: ``spec.tls`` (mutual TLS between the
tasks and their clients) and ``spec.networkPolicy`` (who may reach the tasks' ports)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

CERT_MANAGER_GROUP = "cert-manager.io"
ISSUER_KINDS = ("Issuer", "ClusterIssuer")


@dataclass(frozen=True)
class IssuerRef:
    """A cert-manager issuer that signs the certificates instead of the operator."""

    name: str
    kind: str = "Issuer"
    group: str = CERT_MANAGER_GROUP

    def reference(self) -> dict[str, str]:
        return {"name": self.name, "kind": self.kind, "group": self.group}


@dataclass(frozen=True)
class TLSSpec:
    enabled: bool = False
    issuer: IssuerRef | None = None  # None: the operator's own CA


@dataclass(frozen=True)
class NetworkPolicySpec:
    # None: the operator's default (TFCLUSTER_OPERATOR_NETWORK_POLICY; the chart turns it on).
    enabled: bool | None = None
    # NetworkPolicyPeers allowed to scrape the metrics port (the monitoring stack).
    metrics_from: tuple[Mapping[str, Any], ...] = ()
    # Namespaces whose pods labelled as clients may reach the cluster ('': its own only).
    client_namespace_selector: Mapping[str, Any] | None = None


def parse_tls(raw: Any) -> TLSSpec:
    if raw is None:
        return TLSSpec()
    if not isinstance(raw, Mapping):
        raise _invalid("spec.tls is not an object")
    issuer = raw.get("issuerRef")
    ref = None
    if issuer is not None:
        if not isinstance(issuer, Mapping) or not issuer.get("name"):
            raise _invalid("spec.tls.issuerRef needs a name")
        kind = str(issuer.get("kind") or "Issuer")
        if kind not in ISSUER_KINDS:
            raise _invalid(f"spec.tls.issuerRef.kind {kind!r} is not one of {ISSUER_KINDS}")
        ref = IssuerRef(str(issuer["name"]), kind, str(issuer.get("group") or CERT_MANAGER_GROUP))
    return TLSSpec(enabled=bool(raw.get("enabled", False)), issuer=ref)


def parse_network_policy(raw: Any) -> NetworkPolicySpec:
    if raw is None:
        return NetworkPolicySpec()
    if not isinstance(raw, Mapping):
        raise _invalid("spec.networkPolicy is not an object")
    enabled = raw.get("enabled")
    metrics_from = raw.get("metricsFrom") or []
    if not isinstance(metrics_from, list) or not all(isinstance(p, Mapping) for p in metrics_from):
        raise _invalid("spec.networkPolicy.metricsFrom is not a list of NetworkPolicyPeers")
    selector = raw.get("clientNamespaceSelector")
    if selector is not None and not isinstance(selector, Mapping):
        raise _invalid("spec.networkPolicy.clientNamespaceSelector is not a label selector")
    return NetworkPolicySpec(
        enabled=None if enabled is None else bool(enabled),
        metrics_from=tuple(dict(p) for p in metrics_from),
        client_namespace_selector=dict(selector) if selector is not None else None,
    )


def _invalid(message: str) -> Exception:
    from .spec import SpecError  # spec.py imports this module

    return SpecError("InvalidSpec", message)
