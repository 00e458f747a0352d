"""Build the operator's Helm chart with one version everywhere.

The operator's release lives in operator/tfcluster_operator/version.py; the same number must
be the package's version (the wheel in the image), the chart's version and appVersion (the
default image tag), the image the manifests run and `tfcluster-operator --version`.

    python tools/build_chart.py --stamp 0.2.0   # write 0.2.0 everywhere
    python tools/build_chart.py --check         # exit 1, naming each place that disagrees
    python tools/build_chart.py [--out dist]    # check, then `helm package` the chart

helm is $TFCLUSTER_HELM, else `helm` on PATH, else the one tests/support/helmbin builds.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SEMVER = r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?"


@dataclass(frozen=True)
class Place:
    """A file and the version it holds: ``pattern``'s group 2 (groups 1 and 3 stay)."""

    path: str
    pattern: str
    what: str

    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern, re.MULTILINE)


PLACES = (
    Place(
        "operator/tfcluster_operator/version.py",
        rf'^(VERSION = ")({SEMVER})(")$',
        "the operator's version (tfcluster-operator --version)",
    ),
    Place("pyproject.toml", rf'^(version = ")({SEMVER})(")$', "the package (the image's wheel)"),
    Place("charts/tfcluster-operator/Chart.yaml", rf"^(version: )({SEMVER})()$", "the chart"),
    Place(
        "charts/tfcluster-operator/Chart.yaml",
        rf'^(appVersion: ")({SEMVER})(")$',
        "the chart's appVersion (its default image tag)",
    ),
    Place(
        "manifests/operator.yaml",
        rf"^(\s+image: tfcluster:)({SEMVER})()$",
        "the operator image of manifests/",
    ),
    Place(
        "manifests/operator.yaml",
        rf"^(\s+value: tfcluster:)({SEMVER})()$",
        "the default task image of manifests/",
    ),
)


def current(root: Path = REPO) -> str:
    text = (root / PLACES[0].path).read_text()
    match = PLACES[0].regex().search(text)
    if match is None:
        raise SystemExit(f"no VERSION in {PLACES[0].path}")
    return match.group(2)


def disagreements(version: str, root: Path = REPO) -> list[str]:
    """Each place that does not hold ``version``, as 'path: what is VALUE'."""
    found = []
    for place in PLACES:
        matches = place.regex().findall((root / place.path).read_text())
        if not matches:
            found.append(f"{place.path}: {place.what} is missing")
        for match in matches:
            if match[1] != version:
                found.append(f"{place.path}: {place.what} is {match[1]}, not {version}")
    return found


def stamp(version: str, root: Path = REPO) -> list[str]:
    """Write ``version`` in every place; the files changed."""
    if not re.fullmatch(SEMVER, version):
        raise SystemExit(f"{version!r} is not a semantic version (1.2.3 or 1.2.3-rc.1)")
    changed: list[str] = []
    for place in PLACES:
        path = root / place.path
        text = path.read_text()
        new, count = place.regex().subn(rf"\g<1>{version}\g<3>", text)
        if count == 0:
            raise SystemExit(f"{place.path}: {place.what} not found")
        if new != text:
            path.write_text(new)
            if place.path not in changed:
                changed.append(place.path)
    return changed


def find_helm() -> str:
    for candidate in (os.environ.get("TFCLUSTER_HELM"), shutil.which("helm")):
        if candidate:
            return candidate
    built = subprocess.run(
        ["bash", str(REPO / "tests/support/helmbin/build.sh")],
        capture_output=True,
        text=True,
        check=False,
    )
    if built.returncode != 0:
        raise SystemExit(f"no helm: {built.stderr.strip()[-500:]}")
    return built.stdout.strip().splitlines()[-1]


def package(version: str, out: Path, helm: Callable[[], str] = find_helm) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [
            helm(),
            "package",
            str(REPO / "charts/tfcluster-operator"),
            "--version",
            version,
            "--app-version",
            version,
            "--destination",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"helm package failed: {done.stderr.strip()}")
    return out / f"tfcluster-operator-{version}.tgz"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stamp", metavar="VERSION", help="write VERSION everywhere")
    parser.add_argument("--check", action="store_true", help="only check that all agree")
    parser.add_argument("--out", type=Path, default=REPO / "dist", help="where the .tgz goes")
    parser.add_argument("--root", type=Path, default=REPO, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.stamp:
        for path in stamp(args.stamp, args.root):
            print(f"stamped {args.stamp} in {path}")
        return 0
    version = current(args.root)
    wrong = disagreements(version, args.root)
    if wrong:
        print("the operator's version is not the same everywhere:", file=sys.stderr)
        for line in wrong:
            print(f"  {line}", file=sys.stderr)
        print(f"fix: python tools/build_chart.py --stamp {version}", file=sys.stderr)
        return 1
    if args.check:
        print(f"version {version} everywhere")
        return 0
    print(package(version, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
