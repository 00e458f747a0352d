"""Record what cupy offers to kernel bodies over xp, for tests that run without a GPU.

Run it with an interpreter that has cupy installed (no GPU is needed: cupy imports without
one), once per cupy release the project supports, e.g.
    python -m venv /tmp/cupy && /tmp/cupy/bin/pip install cupy-cuda12x==13.6.0
    /tmp/cupy/bin/python tools/record_cupy_namespace.py tests/support/cupy_namespace.json
It adds (or replaces) that release's record in the file; tests/support/strict_cupy.py allows only
what every recorded release has. A record holds the public names of cupy, cupy.ndarray,
cupy.lib.stride_tricks, cupy.linalg and cupyx; the parameters of cupy's Python functions (those
of cupy.linalg as "linalg.NAME"); which ufuncs implement `at`; and the keywords cupy's ufuncs
take (probed: cupy checks them before it touches a device).
"""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path
from typing import Any

# numpy's ufunc keywords: the candidates probed on cupy's ufuncs.
_NUMPY_UFUNC_KEYWORDS = ("out", "where", "casting", "order", "dtype", "subok", "signature")
_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: "positional",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "either",
    inspect.Parameter.VAR_POSITIONAL: "*args",
    inspect.Parameter.KEYWORD_ONLY: "keyword",
    inspect.Parameter.VAR_KEYWORD: "**kwargs",
}


def _public(obj: Any) -> list[str]:
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def _parameters(fn: Any) -> list[list[Any]] | None:
    """[name, kind, has a default] per parameter, or None where cupy gives no signature."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    return [
        [p.name, _KINDS[p.kind], p.default is not inspect.Parameter.empty]
        for p in sig.parameters.values()
    ]


def _ufunc_keywords(cupy: Any) -> list[str]:
    accepted = []
    for keyword in _NUMPY_UFUNC_KEYWORDS:
        try:
            cupy.add(1.0, 2.0, **{keyword: None})
        except TypeError as e:
            if "Wrong arguments" in str(e):
                continue
        except Exception:  # past the keyword check, where it needs a device: accepted
            pass
        accepted.append(keyword)
    return accepted


def record(cupy: Any, cupyx: Any) -> dict[str, Any]:
    names = _public(cupy)
    ufuncs = sorted(n for n in names if isinstance(getattr(cupy, n), cupy.ufunc))
    functions = {
        n: params
        for n in names
        if inspect.isfunction(getattr(cupy, n)) and (params := _parameters(getattr(cupy, n)))
    }
    for prefix, module in (("lib.stride_tricks", cupy.lib.stride_tricks), ("linalg", cupy.linalg)):
        for n in _public(module):
            if inspect.isfunction(getattr(module, n)):
                functions[f"{prefix}.{n}"] = _parameters(getattr(module, n)) or []
    return {
        "cupy": names,
        "cupy.ndarray": _public(cupy.ndarray),
        "cupy.lib.stride_tricks": _public(cupy.lib.stride_tricks),
        "cupy.linalg": _public(cupy.linalg),
        "cupyx": _public(cupyx),
        "ufuncs": {n: getattr(cupy, n).nin for n in ufuncs},
        # cupy implements ufunc.at as a scatter, for the ufuncs that have one.
        "ufunc_at": sorted(n for n in ufuncs if getattr(getattr(cupy, n), "_scatter_op", None)),
        "ufunc_keywords": _ufunc_keywords(cupy),
        "parameters": functions,
    }


def main(path: str) -> None:
    import cupy
    import cupyx

    out = Path(path)
    data = json.loads(out.read_text()) if out.exists() else {}
    data["about"] = (
        "What cupy offers to kernel bodies over xp, per cupy release; written by "
        "tools/record_cupy_namespace.py, read by tests/support/strict_cupy.py"
    )
    data.setdefault("releases", {})[cupy.__version__] = record(cupy, cupyx)
    data["releases"] = dict(sorted(data["releases"].items()))
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"recorded cupy {cupy.__version__} in {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUTPUT.json")
    main(sys.argv[1])
