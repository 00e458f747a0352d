"""The children a TFCluster's security settings add to its sync: spec.tls's Secrets (the
operator as CA) or cert-manager Certificates (``issuerRef``), and spec.networkPolicy's
NetworkPolicy. The reconciler applies, repairs and prunes them like any other child; this
module only says which it wants and when the next certificate falls due.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .builders.meta import OwnerRef
from .builders.network_policy import enabled as policy_enabled
from .builders.network_policy import network_policy
from .builders.tls import certificates
from .children import Children, Key
from .config import OperatorConfig
from .spec import TFClusterSpec
from .tls_secrets import Lifetimes, SecretIssuer


@dataclass(frozen=True)
class Secured:
    manifests: list[dict[str, Any]]
    renew_in: float | None  # seconds until a certificate falls due (None: none to renew)


class SecurityChildren:
    def __init__(
        self, config: OperatorConfig, clock: Callable[[], datetime.datetime] | None = None
    ) -> None:
        self.config = config
        self.issuer = SecretIssuer(
            Lifetimes(
                certificate=datetime.timedelta(seconds=config.tls_certificate_seconds),
                ca=datetime.timedelta(seconds=config.tls_ca_seconds),
            ),
            config.cluster_domain,
            clock,
        )
        # The Secrets last issued per TFCluster: preferred to the watched ones, which may
        # not show the last apply yet (new keys at every sync until they did would churn).
        self._issued: dict[Key, dict[str, dict[str, Any]]] = {}

    def children(self, spec: TFClusterSpec, owner: OwnerRef, found: Children) -> Secured:
        key = (spec.namespace, spec.name)
        manifests: list[dict[str, Any]] = []
        known = {**found.secrets, **self._issued.get(key, {})}
        issued = self.issuer.secrets(spec, owner, known)
        self._issued[key] = {m["metadata"]["name"]: m for m in issued.manifests}
        manifests += issued.manifests
        manifests += certificates(spec, owner, self.config.cluster_domain)
        if policy_enabled(spec, self.config.network_policy_default):
            manifests.append(network_policy(spec, owner))
        return Secured(manifests, issued.renew_in)

    def forget(self, key: Key) -> None:
        self._issued.pop(key, None)
