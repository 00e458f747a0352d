"""A small JSON client of the Kubernetes API for the node agent: plain dicts in the API's
own field names (camelCase), and watches read line by line. The official client's models
would cost the agent a conversion per event and hide fields it copies back verbatim."""

from __future__ import annotations

import base64
import http.client
import json
import ssl
import tempfile
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class ApiError(RuntimeError):
    def __init__(self, status: int, body: dict[str, Any], what: str) -> None:
        super().__init__(f"{what}: {status} {body.get('message', body)}")
        self.status = status
        self.body = body


class KubeRest:
    """Talks to the server of a kubeconfig with its client certificate or token."""

    def __init__(self, kubeconfig: Path) -> None:
        config = json.loads(kubeconfig.read_text())  # the test control plane writes JSON
        cluster = config["clusters"][0]["cluster"]
        user = config["users"][0]["user"]
        url = urllib.parse.urlsplit(cluster["server"])
        self.host = url.hostname or "127.0.0.1"
        self.port = url.port or 443
        self.ssl = ssl.create_default_context(
            cadata=base64.b64decode(cluster["certificate-authority-data"]).decode()
        )
        self.headers: dict[str, str] = {"Accept": "application/json"}
        if "token" in user:
            self.headers["Authorization"] = f"Bearer {user['token']}"
        else:
            # ssl loads a certificate chain from files only.
            with tempfile.NamedTemporaryFile("wb", suffix=".pem", delete=False) as pem:
                pem.write(base64.b64decode(user["client-certificate-data"]))
                pem.write(b"\n")
                pem.write(base64.b64decode(user["client-key-data"]))
            self.ssl.load_cert_chain(pem.name)
            Path(pem.name).unlink()

    def _connection(self, timeout: float | None) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection(self.host, self.port, context=self.ssl, timeout=timeout)

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        content_type: str = "application/json",
        ok: tuple[int, ...] = (200, 201, 202),
    ) -> dict[str, Any]:
        conn = self._connection(30)
        try:
            headers = dict(self.headers)
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                headers["Content-Type"] = content_type
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            raw = response.read()
        finally:
            conn.close()
        payload = json.loads(raw) if raw else {}
        if response.status not in ok:
            raise ApiError(response.status, payload, f"{method} {path}")
        return payload if isinstance(payload, dict) else {"items": payload}

    def get(self, path: str) -> dict[str, Any]:
        return self.request("GET", path)

    def patch(
        self, path: str, body: dict[str, Any], kind: str = "strategic-merge-patch"
    ) -> dict[str, Any]:
        return self.request("PATCH", path, body, content_type=f"application/{kind}+json")

    def watch(self, path: str, resource_version: str) -> Iterator[dict[str, Any]]:
        """Events of ``path`` (a list URL, query allowed) after ``resource_version``; ends when
        the server closes the watch (it does every few minutes): list again and resume."""
        sep = "&" if "?" in path else "?"
        query = f"{sep}watch=1&allowWatchBookmarks=true&resourceVersion={resource_version}"
        conn = self._connection(None)
        try:
            conn.request("GET", path + query, headers=self.headers)
            response = conn.getresponse()
            if response.status != 200:
                raise ApiError(response.status, {"message": response.read()[:500]}, "watch")
            while True:
                line = response.readline()
                if not line:
                    return
                yield json.loads(line)
        finally:
            conn.close()
