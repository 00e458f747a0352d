"""cert-manager Certificates as the tests read them. Their CRD is cert-manager's own, from its
release Go module (support/third_party_crds.py): the API server validates the operator's
Certificates against cert-manager's schema. No cert-manager controller runs in the tests, so
nothing issues the certificates."""

from __future__ import annotations

from typing import Any

from kubernetes import client
from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException

CRD_NAME = "certificates.cert-manager.io"


def certificate(api: ApiClient, namespace: str, name: str) -> dict[str, Any] | None:
    try:
        found: dict[str, Any] = client.CustomObjectsApi(api).get_namespaced_custom_object(
            "cert-manager.io", "v1", namespace, "certificates", name
        )
    except ApiException as err:
        if err.status == 404:
            return None
        raise
    return found
