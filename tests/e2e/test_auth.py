"""A secured sandbox as docs/sandbox.md sets one up: ``--authorization-mode=RBAC,Node``, a token
file, TLS with a client CA and ``--anonymous-auth=false``, driven by real kubectl and the official
``kubernetes`` client under several identities.

One sandbox with two simulated GPU nodes for the module; the certificates (a CA, the serving
certificate, a client certificate for ``carol`` in ``devs``) are made with
:func:`fakeapi.auth.serving_cert.issue_certificate`.
"""

from __future__ import annotations

import os
import shutil
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import yaml
from kubernetes import client, config
from kubernetes.client.rest import ApiException

from fakeapi.auth.serving_cert import issue_certificate
from fakeapi.kubeconfig import write_kubeconfig

pytestmark = pytest.mark.e2e
KUBECTL = shutil.which("kubectl")
EXAMPLES = Path(__file__).resolve().parents[2] / "cluster" / "data" / "examples"
TOKENS = {
    "jane": "tok-jane,jane,1001",
    "system:node:node-1": 'tok-node-1,system:node:node-1,2001,"system:nodes"',
    "system:node:node-2": 'tok-node-2,system:node:node-2,2002,"system:nodes"',
}


@dataclass
class Secured:
    """The running sandbox, its admin kubeconfig and the files of the test's identities."""

    process: subprocess.Popen[str]
    url: str
    workdir: Path
    ca: Path
    trust: bytes
    banner: str

    def kubeconfig_for(self, who: str, *, token: str = "", cert: str = "") -> Path:
        """A kubeconfig of ``who``: a bearer token, or a client certificate's files."""
        path = self.workdir / f"kubeconfig-{who.replace(':', '-')}"
        if not path.exists():
            write_kubeconfig(path, server=self.url, token=token or None, ca_data=self.trust)
            if cert:
                doc = yaml.safe_load(path.read_text())
                doc["users"][0]["user"] = {
                    "client-certificate": str(self.workdir / f"{cert}.crt"),
                    "client-key": str(self.workdir / f"{cert}.key"),
                }
                path.write_text(yaml.safe_dump(doc))
        return path

    def kubectl(self, *args: str, kubeconfig: Path | None = None,
                check: bool = True) -> subprocess.CompletedProcess[str]:
        assert KUBECTL is not None, "kubectl is not installed (pip install -e '.[test]')"
        config_file = kubeconfig or self.workdir / "kubeconfig"
        result = subprocess.run(
            [KUBECTL, "--kubeconfig", str(config_file), "--cache-dir",
             str(self.workdir / "cache"), *args],
            capture_output=True, text=True, timeout=60,
        )
        if check:
            assert result.returncode == 0, f"kubectl {' '.join(args)}: {result.stderr}"
        return result

    def api(self, kubeconfig: Path) -> client.ApiClient:
        return config.new_client_from_config(config_file=str(kubeconfig))


def _certificates(workdir: Path) -> None:
    """ca.crt/key, server.crt/key for 127.0.0.1, carol.crt/key (CN=carol, O=devs)."""
    ca = issue_certificate(common_name="fakeapi-e2e-ca", usage="ca", days=1)
    ca.write(workdir, "ca")
    issue_certificate(common_name="fakeapi-apiserver", hosts=["127.0.0.1"], issuer=ca,
                      days=1).write(workdir, "server")
    issue_certificate(common_name="carol", organizations=["devs"], usage="client", issuer=ca,
                      days=1).write(workdir, "carol")


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Secured]:
    workdir = tmp_path_factory.mktemp("secured")
    _certificates(workdir)
    (workdir / "tokens.csv").write_text("\n".join(TOKENS.values()) + "\n")
    kubeconfig = workdir / "kubeconfig"
    process = subprocess.Popen(
        [sys.executable, "-m", "fakeapi.cli", "sandbox", "--nodes", "2", "--port", "0",
         "--kubeconfig", str(kubeconfig), "--authorization-mode", "RBAC,Node",
         "--token-auth-file", str(workdir / "tokens.csv"),
         "--tls-cert-file", str(workdir / "server.crt"),
         "--tls-private-key-file", str(workdir / "server.key"),
         "--client-ca-file", str(workdir / "ca.crt"), "--anonymous-auth=false"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 60
    while not (lines and lines[-1].startswith("Ctrl-C stops")):
        line = process.stdout.readline()
        if not line or time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"the sandbox did not start:\n{''.join(lines)}")
        lines.append(line)
    url = yaml.safe_load(kubeconfig.read_text())["clusters"][0]["cluster"]["server"]
    trust = (workdir / "server.crt").read_bytes() + (workdir / "ca.crt").read_bytes()
    yield Secured(process, url, workdir, workdir / "ca.crt", trust, "".join(lines))
    process.send_signal(signal.SIGINT)
    assert process.wait(30) == 0


def test_the_sandbox_serves_https_and_its_kubeconfig_is_the_admin(secured: Secured) -> None:
    assert secured.url.startswith("https://127.0.0.1:")
    assert ("access: authorization RBAC,Node, no anonymous requests; the kubeconfig's user is "
            "the cluster admin (system:masters)") in secured.banner
    rows = secured.kubectl("auth", "whoami").stdout.split("\n")
    assert rows[1].split() == ["Username", "fakeapi-admin"]
    assert rows[2].split(None, 1) == ["Groups", "[system:masters system:authenticated]"]
    # no credentials: 401, anonymous requests are off
    trusted = ssl.create_default_context(cafile=str(secured.ca))
    response = httpx.get(f"{secured.url}/api/v1/namespaces", verify=trusted)
    assert response.status_code == 401


def test_a_namespaced_role_reads_pods_there_and_is_refused_elsewhere(secured: Secured) -> None:
    secured.kubectl("create", "namespace", "team")
    secured.kubectl("create", "role", "pod-reader", "-n", "team", "--verb=get,list,watch",
                    "--resource=pods")
    secured.kubectl("create", "rolebinding", "jane-reads", "-n", "team", "--role=pod-reader",
                    "--user=jane")
    jane = secured.kubeconfig_for("jane", token="tok-jane")
    assert secured.kubectl("get", "pods", "-n", "team", kubeconfig=jane).returncode == 0
    refused = secured.kubectl("get", "pods", "-n", "default", kubeconfig=jane, check=False)
    message = ('pods is forbidden: User "jane" cannot list resource "pods" in API group "" in '
               'the namespace "default"')
    assert refused.returncode == 1
    assert refused.stderr.strip() == f"Error from server (Forbidden): {message}"
    # the official client gets the same Status
    with secured.api(jane) as api:
        core = client.CoreV1Api(api)
        assert core.list_namespaced_pod("team").items == []
        with pytest.raises(ApiException) as error:
            core.list_namespaced_pod("default")
    assert error.value.status == 403
    assert yaml.safe_load(error.value.body)["message"] == message
    # kubectl auth can-i agrees, as jane and as the admin impersonating her
    assert secured.kubectl("auth", "can-i", "list", "pods", "-n", "team",
                           kubeconfig=jane).stdout.strip() == "yes"
    answer = secured.kubectl("auth", "can-i", "list", "pods", "-n", "default",
                             kubeconfig=jane, check=False)
    assert (answer.returncode, answer.stdout.strip()) == (1, "no")
    assert secured.kubectl("auth", "can-i", "watch", "pods", "-n", "team",
                           "--as", "jane").stdout.strip() == "yes"
    listed = secured.kubectl("auth", "can-i", "--list", "-n", "team", kubeconfig=jane).stdout
    assert any(line.startswith("pods ") and line.rstrip().endswith("[get list watch]")
               for line in listed.splitlines())


def test_a_client_certificate_is_its_subjects_user(secured: Secured) -> None:
    carol = secured.kubeconfig_for("carol", cert="carol")
    rows = secured.kubectl("auth", "whoami", kubeconfig=carol).stdout.split("\n")
    assert rows[1].split() == ["Username", "carol"]
    assert rows[2].split(None, 1) == ["Groups", "[devs system:authenticated]"]
    with secured.api(carol) as api:
        review = client.AuthenticationV1Api(api).create_self_subject_review({})
    assert review.status.user_info.username == "carol"
    with secured.api(secured.workdir / "kubeconfig") as api:
        answer = client.AuthorizationV1Api(api).create_subject_access_review({"spec": {
            "user": "carol", "groups": ["devs"],
            "resourceAttributes": {"verb": "list", "resource": "pods", "namespace": "team"}}})
    assert answer.status.allowed is False


def _slice(node: str) -> dict[str, object]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": f"e2e-{node}"},
            "spec": {"driver": "e2e.example.com", "nodeName": node,
                     "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": "dev-0"}]}}


def test_a_node_publishes_its_own_slice_only(secured: Secured) -> None:
    node2 = secured.kubeconfig_for("node-2", token="tok-node-2")
    with secured.api(node2) as api:
        resource = client.ResourceV1Api(api)
        created = resource.create_resource_slice(_slice("node-2"))
        assert created.spec.node_name == "node-2"
        with pytest.raises(ApiException) as error:
            resource.create_resource_slice(_slice("node-1"))
    assert error.value.status == 403
    assert yaml.safe_load(error.value.body)["message"] == (
        'resourceslices.resource.k8s.io "e2e-node-1" is forbidden: can only create '
        "ResourceSlice with the same NodeName as the requesting node"
    )


def test_nodes_run_a_pod_with_a_claim_and_only_its_node_reads_the_claim(secured: Secured) -> None:
    secured.kubectl("apply", "-n", "default", "-f", str(EXAMPLES / "template-claim-pod.yaml"))
    secured.kubectl("wait", "-n", "default", "--for=jsonpath={.status.phase}=Running",
                    "pod/gpu-pod", "--timeout=30s")
    pod = yaml.safe_load(secured.kubectl("get", "-n", "default", "pod", "gpu-pod",
                                         "-o", "yaml").stdout)
    claim = pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    node = pod["spec"]["nodeName"]
    other = "node-1" if node == "node-2" else "node-2"
    own = secured.kubeconfig_for(node, token=f"tok-{node}")
    read = secured.kubectl("get", "resourceclaim", claim, "-n", "default", "-o", "name",
                           kubeconfig=own)
    assert read.stdout.strip() == f"resourceclaim.resource.k8s.io/{claim}"
    refused = secured.kubectl("get", "resourceclaim", claim, "-n", "default",
                              kubeconfig=secured.kubeconfig_for(other, token=f"tok-{other}"),
                              check=False)
    assert refused.stderr.strip() == (
        f'Error from server (Forbidden): resourceclaims.resource.k8s.io "{claim}" is forbidden: '
        f'User "system:node:{other}" cannot get resource "resourceclaims" in API group '
        f'"resource.k8s.io" in the namespace "default": no relationship found between node '
        f"'{other}' and this object"
    )
