"""The e2e environment's containers share the host's files as their image: a volume mounted
above the checkout (an emptyDir at /tmp with the checkout cloned under /tmp) must not hide the
interpreter and sources the container runs."""

from __future__ import annotations

from support.e2e.pod_exec import _hidden, _image_paths


def test_the_checkout_and_its_interpreter_are_the_image() -> None:
    import sys
    from pathlib import Path

    paths = _image_paths()
    assert str(Path(__file__).resolve().parents[2]) in paths
    assert str(Path(sys.base_prefix).resolve()) in paths


def test_image_paths_under_a_volume_are_bound_again_outermost_first() -> None:
    image = ["/tmp/clone", "/tmp/clone/.venv", "/root/.pyenv/versions/3.11"]
    assert _hidden(image, ["/tmp", "/etc/hosts"]) == ["/tmp/clone"]
    assert _hidden(image, ["/tmp/"]) == ["/tmp/clone"]


def test_a_volume_beside_or_at_the_image_path_leaves_it_alone() -> None:
    assert _hidden(["/tmpx/clone"], ["/tmp"]) == []
    # A volume mounted exactly at an image path wins, as over a real image's folder.
    assert _hidden(["/data"], ["/data"]) == []
