"""``fakeapi profiles``: the shipped profiles listed, one shown as shipped to copy, and a file of
one's own checked."""

from __future__ import annotations

from pathlib import Path

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


def test_profiles_check_says_what_a_file_holds_or_the_field_that_is_wrong(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = tmp_path / "nic.yaml"
    good.write_text("driver: nic.example.com\npools:\n- devices:\n  - {name: 'nic-{index}', "
                    "count: 2}\n")
    assert main(["profiles", "check", str(good)]) == 0
    assert capsys.readouterr().out == (
        f"{good}: driver nic.example.com (node scope), 1 pool, 2 devices per node\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("driver: nic.example.com\npools:\n- devices:\n  - {name: nic, count: two}\n")
    assert main(["profiles", "check", str(bad)]) == 1
    assert capsys.readouterr().err == (
        f"fakeapi profiles: driver profile {bad}: pools[0].devices[0].count: must be an "
        "integer >= 1, got 'two'\n")
