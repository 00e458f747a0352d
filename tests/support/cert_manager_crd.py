"""A stand-in for cert-manager's Certificate CRD (cert-manager.io/v1), so that the API server
serves the kind the operator applies for spec.tls.issuerRef. Only the resource is served: no
cert-manager controller runs in the tests, so nothing issues the certificates."""

from __future__ import annotations

from typing import Any

from kubernetes import client
from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException

from support.operator_on_k8s import wait_for

NAME = "certificates.cert-manager.io"


def certificate_crd() -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": NAME},
        "spec": {
            "group": "cert-manager.io",
            "scope": "Namespaced",
            "names": {
                "plural": "certificates",
                "singular": "certificate",
                "kind": "Certificate",
                "listKind": "CertificateList",
            },
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "x-kubernetes-preserve-unknown-fields": True,
                                }
                            },
                        }
                    },
                }
            ],
        },
    }


def install_certificate_crd(api: ApiClient) -> None:
    ext = client.ApiextensionsV1Api(api)
    try:
        ext.create_custom_resource_definition(certificate_crd())
    except ApiException as err:
        if err.status != 409:
            raise

    def established() -> bool:
        crd = ext.read_custom_resource_definition(NAME)
        return any(
            c.type == "Established" and c.status == "True" for c in crd.status.conditions or []
        )

    wait_for("the Certificate CRD to be established", established, 30)


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
