"""``fakeapi profiles``: the shipped profiles listed, and one shown as shipped to copy."""

from __future__ import annotations

import pytest
import yaml

from fakeapi.cli import main
from fakeapi.cluster import PROFILE_NAMES, load_profile


def test_profiles_lists_every_shipped_profile_with_its_driver(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["profiles"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["NAME", "DRIVER", "SCOPE", "DESCRIPTION"]
    rows = {line.split()[0]: line.split()[1:3] for line in lines[1 : 1 + len(PROFILE_NAMES)]}
    assert rows == {
        name: [load_profile(name).driver, load_profile(name).scope] for name in PROFILE_NAMES
    }
    assert any("--profile PATH" in line for line in lines)


def test_profiles_show_prints_the_shipped_yaml_with_its_comments(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["profiles", "show", "gpu"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# GPU profile")
    assert yaml.safe_load(text)["driver"] == "gpu.example.com"


def test_profiles_show_names_the_shipped_ones_for_an_unknown_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["profiles", "show", "nic"]) == 1
    assert capsys.readouterr().err == (
        "fakeapi profiles: unknown profile 'nic'; shipped: gpu, partitionable, "
        "consumable-capacity, network-attached\n"
    )
