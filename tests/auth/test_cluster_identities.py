"""A cluster that authorizes runs every component as its own identity, and the simulated nodes
still run pods with claims; users' clients are held to their RBAC; an external driver gets a
kubeconfig of its own node (``fakeapi.cluster.identities``)."""

from __future__ import annotations

import base64
import shutil
import ssl
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from fakeapi.client import CLUSTER_ROLES, PODS, RESOURCE_CLAIMS, RESOURCE_SLICES, StatusError
from fakeapi.cluster import eventually
from fakeapi.cluster.assembler import Cluster

EXAMPLES = Path(__file__).resolve().parents[2] / "cluster" / "data" / "examples"


async def test_components_under_rbac_and_node_run_a_pod_with_a_claim() -> None:
    async with Cluster(nodes=2, authorization="RBAC,Node", stages="fast") as cluster:
        await cluster.apply_yaml(EXAMPLES / "template-claim-pod.yaml")
        pod = await cluster.wait_for(PODS, "gpu-pod", jsonpath="{.status.phase}=Running",
                                     timeout=10)
        assert pod is not None
        claim_name = pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
        claim = await cluster.client.get(RESOURCE_CLAIMS, namespace="default", name=claim_name)
        # written by the scheduler (allocation), the resourceclaim controller (reservedFor) and
        # the node's driver (devices), each under its own identity and role
        assert claim["status"]["allocation"] and claim["status"]["reservedFor"]
        assert claim["status"]["devices"]
        assert cluster.component_errors == []


async def test_a_users_client_is_held_to_its_rbac() -> None:
    async with Cluster(components=(), authorization="RBAC") as cluster:
        jane = cluster.client_as("jane")
        with pytest.raises(StatusError) as refused:
            await jane.list(PODS, namespace="kube-system")
        assert refused.value.code == 403
        assert refused.value.message == (
            'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the '
            'namespace "kube-system"'
        )
        admin = cluster.client_as("root", groups=("system:masters",))
        assert (await admin.list(PODS, namespace="kube-system")).items == []


async def test_without_authorization_every_client_may_do_anything() -> None:
    async with Cluster(components=()) as cluster:
        assert (await cluster.client_as("jane").list(PODS, namespace="kube-system")).items == []


@pytest.fixture
def root() -> Iterator[Path]:
    # unix socket paths are limited to 107 bytes: a short temporary directory, not tmp_path
    path = Path(tempfile.mkdtemp(prefix="kp-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


async def test_an_external_driver_gets_a_kubeconfig_of_its_node(root: Path) -> None:
    copy = (f"import os, shutil, time; shutil.copy(os.environ['KUBECONFIG'], "
            f"'{root}/seen-' + os.environ['NODE_NAME']); time.sleep(60)")
    command = f'{sys.executable} -c "{copy}"'
    async with Cluster(nodes=1, profiles=(), kubelet_root_dir=root, driver_commands=[command],
                       stages="fast", authorization="RBAC,Node") as cluster:
        seen = root / "seen-node-1"
        await eventually(seen.exists, what="the driver's copy of its kubeconfig")
        config = yaml.safe_load(seen.read_text())
        server = config["clusters"][0]["cluster"]
        # served over TLS (a self-signed certificate the kubeconfig trusts): kubectl sends
        # credentials over TLS only
        assert server["server"] == cluster.url and cluster.url.startswith("https://")
        trusted = ssl.create_default_context(
            cadata=base64.b64decode(server["certificate-authority-data"]).decode()
        )
        token = config["users"][0]["user"]["token"]
        async with httpx.AsyncClient(verify=trusted) as http:
            review = await http.post(
                f"{cluster.url}/apis/authentication.k8s.io/v1/selfsubjectreviews",
                headers={"Authorization": f"Bearer {token}"},
                json={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"},
            )
        assert review.json()["status"]["userInfo"]["username"] == "system:node:node-1"
        admin = yaml.safe_load(cluster.kubeconfig.read_text())["users"][0]["user"]["token"]
        assert admin != token


async def test_the_bootstrap_view_and_edit_roles_aggregate_and_grow_with_labelled_roles() -> None:
    async with Cluster(components=("controllers",), authorization="RBAC") as cluster:
        await cluster.apply_yaml("""
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: jane-views, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: jane}]
""")
        jane = cluster.client_as("jane")
        assert (await jane.list(RESOURCE_CLAIMS, namespace="default")).items == []
        with pytest.raises(StatusError) as refused:
            await jane.create(RESOURCE_CLAIMS, namespace="default", body={
                "metadata": {"name": "c"}, "spec": {"devices": {"requests": []}}})
        assert refused.value.code == 403
        with pytest.raises(StatusError):
            await jane.list(PODS, namespace="kube-system")
        # a role labelled to aggregate into view: the clusterrole-aggregation controller adds
        # its rules to view, and so to jane
        await cluster.apply_yaml("""
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: slices-viewer
  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}
rules:
- {apiGroups: [resource.k8s.io], resources: [resourceslices], verbs: [get, list, watch]}
""")

        async def jane_lists_slices() -> bool:
            try:
                await jane.list(RESOURCE_SLICES)
            except StatusError:
                return False
            return True

        # view is bound in one namespace only: slices are cluster-scoped, so the grant shows in
        # the role's rules, not in a cluster-wide list
        async def view_has_slices() -> bool:
            role = await cluster.client.get(CLUSTER_ROLES, name="view")
            return any("resourceslices" in rule.get("resources", []) for rule in role["rules"])

        await eventually(view_has_slices, what="view aggregating slices-viewer")
        assert not await jane_lists_slices()
