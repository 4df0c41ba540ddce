"""``fakeapi profiles``: the shipped driver profiles, to pick one or to copy one as a start.

``fakeapi profiles`` lists them (name, driver, scope, description); ``fakeapi profiles show
NAME`` prints one's YAML as shipped, comments included, so that
``fakeapi profiles show gpu > my-device.yaml`` is the first step to a device model of one's own
(``fakeapi sandbox --profile ./my-device.yaml``); ``fakeapi profiles check FILE`` reads such a
file as the sandbox would and says what it holds, or the first field that is wrong. The format
is in docs/kubelet.md.
"""

from __future__ import annotations

import sys
from typing import TextIO

from fakeapi.cluster.profiles import PROFILE_NAMES, load_profile, profile_text

__all__ = ["check_profile_file", "list_profiles", "show_profile"]


def _table(rows: list[list[str]]) -> str:
    """Columns padded to their widest cell, three spaces apart (kubectl's printer)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "".join(
        "   ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        + "\n"
        for row in rows
    )


def list_profiles(*, out: TextIO | None = None) -> int:
    """Print one line per shipped profile (on stdout unless ``out``)."""
    out = out or sys.stdout
    rows = [["NAME", "DRIVER", "SCOPE", "DESCRIPTION"]]
    for name in PROFILE_NAMES:
        profile = load_profile(name)
        rows.append([name, profile.driver, profile.scope, profile.description])
    out.write(_table(rows))
    out.write(
        "\nfakeapi profiles show NAME prints one; save it, edit it and pass the file to "
        "fakeapi sandbox --profile PATH (or profiles=[PATH] in the pytest marker)\n"
    )
    return 0


def show_profile(name: str, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Print a shipped profile's YAML; exit status 1 and the known names for another name."""
    out, err = out or sys.stdout, err or sys.stderr
    if name not in PROFILE_NAMES:
        err.write(f"fakeapi profiles: unknown profile {name!r}; shipped: "
                  f"{', '.join(PROFILE_NAMES)}\n")
        return 1
    out.write(profile_text(name))
    return 0


def check_profile_file(path: str, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Parse a profile file as the sandbox does; exit status 1 and the error when it is wrong."""
    out, err = out or sys.stdout, err or sys.stderr
    from fakeapi.cluster.options import driver_profile  # the sandbox's own reading of a file

    try:
        profile = driver_profile(path)
    except ValueError as exc:
        err.write(f"fakeapi profiles: {exc}\n")
        return 1
    if profile.command:
        out.write(f"{path}: driver {profile.driver}, run by command: {profile.command}\n")
        return 0
    pools = profile.render(node="node-1")
    devices = sum(len(pool.devices) for pool in pools)
    where = "per node" if profile.scope == "node" else "for the cluster"
    out.write(f"{path}: driver {profile.driver} ({profile.scope} scope), "
              f"{len(pools)} pool{'s' if len(pools) != 1 else ''}, "
              f"{devices} device{'s' if devices != 1 else ''} {where}\n")
    return 0
