"""Drift: has someone changed a field the operator sets on a child? (pure)

The operator compares only what it sets. ``project(obj, manifest)`` takes from ``obj`` the
fields ``manifest`` names, nothing else: the API server's defaults, other controllers'
fields (an annotation, a sidecar's env entry) and status never count. The baseline is the
projection of the object the API server returned for the operator's last apply (normalised
as the server normalises: quantities, defaults), so a child has drifted exactly when the
projection of its live object differs from that baseline.

Lists whose items all have distinct names (containers, env, ports, volumes) are matched by
name, so an entry someone else added anywhere in the list is left alone; other lists are
matched by position.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

MISSING = None  # what a field absent from the object projects to


def _by_name(items: Sequence[Any]) -> bool:
    names = [item.get("name") for item in items if isinstance(item, Mapping)]
    return len(names) == len(items) and None not in names and len(set(names)) == len(names)


def project(obj: Any, manifest: Any) -> Any:
    """The fields of ``obj`` that ``manifest`` sets, shaped like ``manifest``."""
    if isinstance(manifest, Mapping):
        if not isinstance(obj, Mapping):
            return MISSING
        return {key: project(obj.get(key), value) for key, value in manifest.items()}
    if isinstance(manifest, list):
        if not isinstance(obj, list):
            return MISSING
        if manifest and _by_name(manifest):
            live = {item.get("name"): item for item in obj if isinstance(item, Mapping)}
            return [project(live.get(item["name"]), item) for item in manifest]
        padded = list(obj[: len(manifest)]) + [MISSING] * (len(manifest) - len(obj))
        return [project(o, m) for o, m in zip(padded, manifest, strict=True)]
    return obj


def differences(before: Any, after: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """(path, value in ``before``, value in ``after``) for each leaf that differs; both are
    projections of one manifest, so they have the same shape wherever both are present."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        found = []
        for key in after:
            found += differences(before.get(key), after.get(key), f"{path}.{key}" if path else key)
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        found = []
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            label = a.get("name") if isinstance(a, Mapping) and a.get("name") else i
            found += differences(b, a, f"{path}[{label}]")
        return found
    return [] if before == after else [(path, before, after)]


def render(changes: Sequence[tuple[str, Any, Any]], limit: int = 5, values: bool = True) -> str:
    """``spec.replicas 5 -> 2, ...`` (what was reverted, from the live value to the spec's);
    without ``values``, the paths alone."""
    if not values:
        shown = [path for path, _, _ in changes[:limit]]
        more = [f"and {len(changes) - limit} more"] if len(changes) > limit else []
        return ", ".join(shown + more)

    def show(value: Any, other: Any = None) -> str:
        if value is MISSING:
            # The API server leaves out false and 0 (omitempty): that is what the user set.
            if isinstance(other, bool | int):
                value = type(other)()
            else:
                return "<unset>"
        text = json.dumps(value, sort_keys=True)
        return text if len(text) <= 60 else text[:57] + "..."

    parts = [
        f"{path} {show(live, wanted)} -> {show(wanted)}" for path, live, wanted in changes[:limit]
    ]
    if len(changes) > limit:
        parts.append(f"and {len(changes) - limit} more")
    return ", ".join(parts)
