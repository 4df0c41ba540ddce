"""A device model of one's own: a NIC profile file on ``fakeapi sandbox --profile`` and in the
pytest marker, started from a shipped one (``fakeapi profiles show``), and a mistake in it
reported by field before anything starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .sandbox_process import KUBECTL, SandboxProcess

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")]
pytest_plugins = ["pytester"]

NIC_CLAIM = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: fast-nic}
spec:
  devices:
    requests:
    - name: nic
      exactly:
        deviceClassName: nic.example.com
        selectors:
        - cel: {expression: 'device.attributes["nic.example.com"].speedGbps >= 100'}
---
apiVersion: v1
kind: Pod
metadata: {name: router}
spec:
  containers:
  - {name: app, image: router:1, resources: {claims: [{name: nic}]}}
  resourceClaims:
  - {name: nic, resourceClaimName: fast-nic}
"""


def _nic_profile(directory: Path) -> Path:
    """What a user does: print the gpu profile, keep its shape, make it a NIC."""
    shown = subprocess.run([sys.executable, "-m", "fakeapi.cli", "profiles", "show", "gpu"],
                           capture_output=True, text=True, check=True).stdout
    profile = yaml.safe_load(shown)
    profile.update(name="nic", driver="nic.example.com", description="two 100G NICs",
                   cdi={"vendor": "k8s.nic.example.com", "class": "nic"})
    [pool] = profile["pools"]
    pool["devices"] = [{
        "name": "nic-{index}", "count": 2,
        "attributes": {"speedGbps": {"int": "100"}, "model": {"string": "Example 100G"}},
        "capacity": {"bandwidth": {"value": "100G"}},
    }]
    path = directory / "nic-profile.yaml"
    path.write_text(yaml.safe_dump(profile, sort_keys=False))
    return path


def test_the_sandbox_runs_nodes_with_a_profile_file(tmp_path: Path) -> None:
    _nic_profile(tmp_path)
    sandbox = SandboxProcess(tmp_path, "--nodes", "1", "--profile", "./nic-profile.yaml").ready()
    try:
        assert "1 node (nic)" in sandbox.lines[0]
        slices = yaml.safe_load(sandbox.kubectl("get", "resourceslices", "-o", "yaml").stdout)
        [nic_slice] = slices["items"]
        assert [d["name"] for d in nic_slice["spec"]["devices"]] == ["nic-0", "nic-1"]
        (tmp_path / "claim.yaml").write_text(NIC_CLAIM)
        sandbox.kubectl("apply", "-f", str(tmp_path / "claim.yaml"))
        sandbox.kubectl("wait", "--for=jsonpath={.status.phase}=Running", "--timeout=60s",
                        "pod/router")
        allocated = sandbox.kubectl("get", "resourceclaim", "fast-nic", "-o",
                                    "jsonpath={.status.allocation.devices.results[0].device}")
        assert allocated.stdout in ("nic-0", "nic-1")
    finally:
        assert sandbox.stop() == 0


def test_a_mistake_in_the_profile_file_is_one_line_naming_the_field(tmp_path: Path) -> None:
    path = _nic_profile(tmp_path)
    profile = yaml.safe_load(path.read_text())
    profile["pools"][0]["devices"][0]["attributes"]["speedGbps"] = 100
    path.write_text(yaml.safe_dump(profile))
    result = subprocess.run(
        [sys.executable, "-m", "fakeapi.cli", "sandbox", "--port", "0", "--kubeconfig",
         str(tmp_path / "kc"), "--profile", str(path)],
        capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode != 0
    assert result.stderr.strip() == (
        f"fakeapi sandbox: driver profile {path}: pools[0].devices[0].attributes.speedGbps: "
        "must be a mapping with one of int, bool, string, version, got 100")


def test_the_marker_takes_a_profile_file(pytester: pytest.Pytester, tmp_path: Path) -> None:
    profile = _nic_profile(tmp_path)
    pytester.makepyfile(test_nic=f'''
import pytest

@pytest.mark.fakeapi(nodes=1, profiles=[{str(profile)!r}])
def test_my_nic_is_published(fakeapi_cluster):
    [nic_slice] = fakeapi_cluster.client.list("resourceslices").items
    assert nic_slice["spec"]["driver"] == "nic.example.com"
    assert len(nic_slice["spec"]["devices"]) == 2
''')
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
