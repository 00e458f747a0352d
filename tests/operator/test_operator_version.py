"""One operator version everywhere: `tfcluster-operator --version`, the package, the chart's
version and appVersion (its default image tag), the manifests' images; tools/build_chart.py
stamps it and packages the chart."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from support.operator_manifests import HelmUnavailable, find_helm, helm_template
from tfcluster_operator.config import DEFAULT_IMAGE
from tfcluster_operator.version import VERSION

REPO = Path(__file__).resolve().parents[2]


def build_chart() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_chart", REPO / "tools/build_chart.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_chart"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def copy_of_the_repo(tmp_path: Path) -> Path:
    for place in build_chart().PLACES:
        (tmp_path / place.path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / place.path, tmp_path / place.path)
    return tmp_path


def test_every_place_carries_the_operators_version() -> None:
    tool = build_chart()
    assert tool.current() == VERSION
    assert tool.disagreements(VERSION) == []
    chart = yaml.safe_load((REPO / "charts/tfcluster-operator/Chart.yaml").read_text())
    assert (chart["version"], chart["appVersion"]) == (VERSION, VERSION)
    assert f"tfcluster:{VERSION}" == DEFAULT_IMAGE


def test_the_command_says_its_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tfcluster_operator.main", "--version"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"tfcluster-operator {VERSION}"


def test_stamping_writes_one_version_everywhere(tmp_path: Path) -> None:
    tool = build_chart()
    root = copy_of_the_repo(tmp_path)
    changed = tool.stamp("2.3.4-rc.1", root)
    assert sorted(changed) == sorted({p.path for p in tool.PLACES})
    assert tool.current(root) == "2.3.4-rc.1"
    assert tool.disagreements("2.3.4-rc.1", root) == []
    chart = yaml.safe_load((root / "charts/tfcluster-operator/Chart.yaml").read_text())
    assert (chart["version"], chart["appVersion"]) == ("2.3.4-rc.1", "2.3.4-rc.1")
    manifests = (root / "manifests/operator.yaml").read_text()
    assert manifests.count("tfcluster:2.3.4-rc.1") == 2
    assert tool.stamp("2.3.4-rc.1", root) == []  # idempotent
    with pytest.raises(SystemExit, match="not a semantic version"):
        tool.stamp("latest", root)


def test_check_names_each_place_that_disagrees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tool = build_chart()
    root = copy_of_the_repo(tmp_path)
    chart = root / "charts/tfcluster-operator/Chart.yaml"
    chart.write_text(chart.read_text().replace(f'appVersion: "{VERSION}"', 'appVersion: "9.9.9"'))
    assert tool.main(["--check", "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert f"appVersion (its default image tag) is 9.9.9, not {VERSION}" in err
    assert f"--stamp {VERSION}" in err


def test_packaged_chart_deploys_the_same_version(tmp_path: Path) -> None:
    try:
        helm = find_helm()
    except HelmUnavailable as err:
        pytest.skip(f"helm package skipped: {err}")
    tool = build_chart()
    tgz = tool.package(VERSION, tmp_path, helm=lambda: str(helm))
    with tarfile.open(tgz) as archive:
        member = archive.extractfile("tfcluster-operator/Chart.yaml")
        assert member is not None
        chart = yaml.safe_load(member.read())
    assert (chart["version"], chart["appVersion"]) == (VERSION, VERSION)
    (deploy,) = [d for d in helm_template(helm, tgz) if d["kind"] == "Deployment"]
    (container,) = deploy["spec"]["template"]["spec"]["containers"]
    assert container["image"] == f"tfcluster:{VERSION}"
    assert deploy["metadata"]["labels"]["app.kubernetes.io/version"] == VERSION
