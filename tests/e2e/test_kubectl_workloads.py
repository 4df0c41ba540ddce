"""Workloads with real kubectl against one ``fakeapi sandbox`` with two GPU nodes.

What a user of the issue tried: the KEP-5729 example run by Deployments whose pods share their
PodGroup's claim (the fakeapi example, and the KEP's own verbatim after a CRD for its custom
``MyWorkload``); ``kubectl create deployment`` with ``rollout status``, ``scale``, ``set image``
and ``rollout undo``; a Job completed with ``kubectl wait``; a DRA driver's install manifest
(Namespace, ServiceAccount, ClusterRole, ClusterRoleBinding, DaemonSet, DeviceClass) whose
DaemonSet covers every node; ``kubectl drain`` held back by a PodDisruptionBudget; and the
imperative generators, ``get all`` and ``cluster-info dump`` over the new kinds. Each test works
in a namespace of its own; waiting is kubectl's own (``rollout status``, ``wait``) or a bounded
guard.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e
KUBECTL = shutil.which("kubectl")
EXAMPLES = Path(__file__).resolve().parents[2] / "cluster" / "data" / "examples"
_namespaces = itertools.count()


@dataclass
class Sandbox:
    process: subprocess.Popen[str]
    kubeconfig: Path
    workdir: Path

    def kubectl(self, *args: str, namespace: str | None = None, check: bool = True,
                stdin: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        assert KUBECTL is not None, "kubectl is not installed (pip install -e '.[test]')"
        cmd = [KUBECTL, "--kubeconfig", str(self.kubeconfig), "--cache-dir",
               str(self.workdir / "cache")]
        if namespace:
            cmd += ["-n", namespace]
        result = subprocess.run([*cmd, *args], capture_output=True, text=True, input=stdin,
                                timeout=timeout)
        if check:
            assert result.returncode == 0, f"kubectl {' '.join(args)}: {result.stderr}"
        return result

    def json(self, *args: str, namespace: str | None = None) -> Any:
        return json.loads(self.kubectl(*args, "-o", "json", namespace=namespace).stdout)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    workdir = tmp_path_factory.mktemp("workloads")
    kubeconfig = workdir / "kubeconfig"
    process = subprocess.Popen(
        [sys.executable, "-m", "fakeapi.cli", "sandbox", "--port", "0", "--nodes", "2",
         "--kubeconfig", str(kubeconfig)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    lines: list[str] = []
    for line in process.stdout:
        lines.append(line)
        if line.startswith("Ctrl-C stops"):
            break
    else:
        raise AssertionError(f"the sandbox exited {process.wait()}:\n{''.join(lines)}")
    yield Sandbox(process, kubeconfig, workdir)
    process.terminate()
    process.wait(30)


@pytest.fixture
def namespace(sandbox: Sandbox) -> str:
    name = f"w-{next(_namespaces)}"
    sandbox.kubectl("create", "namespace", name)
    return name


def _eventually(check: Callable[[], Any], *, timeout: float = 30, what: str) -> Any:
    """A bounded guard: poll ``check`` until it holds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; last: {value!r}")
        time.sleep(0.1)


def test_deployments_run_the_kep_5729_example_sharing_their_groups_claim(
    sandbox: Sandbox, namespace: str
) -> None:
    sandbox.kubectl("apply", "-f", str(EXAMPLES / "podgroup-deployments.yaml"),
                    namespace=namespace)
    for name in ("gang-a", "gang-b"):
        sandbox.kubectl("rollout", "status", f"deployment/{name}", "--timeout=60s",
                        namespace=namespace)
    pods = sandbox.json("get", "pods", namespace=namespace)["items"]
    assert len(pods) == 4
    assert {p["status"]["phase"] for p in pods} == {"Running"}
    claims = {p["metadata"]["labels"]["app"]: set() for p in pods}
    for pod in pods:
        (entry,) = pod["status"]["resourceClaimStatuses"]
        claims[pod["metadata"]["labels"]["app"]].add(entry["resourceClaimName"])
    assert all(len(names) == 1 for names in claims.values())  # one shared claim per group
    assert claims["gang-a"] != claims["gang-b"]
    listed = sandbox.json("get", "resourceclaims", namespace=namespace)["items"]
    assert sorted(c["metadata"]["name"] for c in listed) == sorted(
        n for names in claims.values() for n in names)
    for claim in listed:
        (reserved,) = claim["status"]["reservedFor"]
        assert reserved["resource"] == "podgroups"


def test_a_deployment_made_by_kubectl_scales_updates_and_rolls_back(
    sandbox: Sandbox, namespace: str
) -> None:
    ns = namespace
    sandbox.kubectl("create", "deployment", "web", "--image=nginx:1.25", "--replicas=2",
                    namespace=ns)
    rollout = sandbox.kubectl("rollout", "status", "deployment/web", "--timeout=60s",
                              namespace=ns).stdout
    assert 'deployment "web" successfully rolled out' in rollout
    sandbox.kubectl("scale", "deployment/web", "--replicas=3", namespace=ns)
    scale = sandbox.json("get", "deployment", "web", namespace=ns)["spec"]["replicas"]
    assert scale == 3
    sandbox.kubectl("set", "image", "deployment/web", "nginx=nginx:1.26", namespace=ns)
    sandbox.kubectl("rollout", "status", "deployment/web", "--timeout=60s", namespace=ns)
    history = sandbox.kubectl("rollout", "history", "deployment/web", namespace=ns).stdout
    assert [line.split()[0] for line in history.splitlines()[2:] if line.strip()] == ["1", "2"]
    undone = sandbox.kubectl("rollout", "undo", "deployment/web", namespace=ns).stdout
    assert undone.strip() == "deployment.apps/web rolled back"
    sandbox.kubectl("rollout", "status", "deployment/web", "--timeout=60s", namespace=ns)
    deployment = sandbox.json("get", "deployment", "web", namespace=ns)
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.25"
    assert deployment["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"
    assert deployment["status"]["availableReplicas"] == 3
    table = sandbox.kubectl("get", "deployment", "web", namespace=ns).stdout.splitlines()
    assert table[0].split() == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
    assert table[1].split()[:4] == ["web", "3/3", "3", "3"]
    sets = sandbox.json("get", "replicasets", namespace=ns)["items"]
    assert sorted(rs["spec"]["replicas"] for rs in sets) == [0, 3]


def test_a_job_completes_and_kubectl_wait_sees_it(sandbox: Sandbox, namespace: str) -> None:
    sandbox.kubectl("create", "job", "hello", "--image=busybox", "--", "echo", "hi",
                    namespace=namespace)
    waited = sandbox.kubectl("wait", "--for=condition=Complete", "job/hello", "--timeout=60s",
                             namespace=namespace).stdout
    assert waited.strip() == "job.batch/hello condition met"
    row = sandbox.kubectl("get", "job", "hello", namespace=namespace).stdout.splitlines()[1]
    assert row.split()[:3] == ["hello", "Complete", "1/1"]
    (pod,) = sandbox.json("get", "pods", namespace=namespace)["items"]
    assert pod["status"]["phase"] == "Succeeded"
    assert not pod["metadata"].get("finalizers")


def test_a_driver_install_manifest_applies_and_its_daemon_set_covers_every_node(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    manifest = tmp_path / "driver.yaml"
    manifest.write_text(_DRIVER_MANIFEST)
    applied = sandbox.kubectl("apply", "-f", str(manifest)).stdout.split("\n")
    assert [line.split()[0] for line in applied if line] == [
        "namespace/example-driver", "serviceaccount/example-driver",
        "clusterrole.rbac.authorization.k8s.io/example-driver",
        "clusterrolebinding.rbac.authorization.k8s.io/example-driver",
        "daemonset.apps/example-driver-kubeletplugin", "deviceclass.resource.k8s.io/example.dev",
    ]
    sandbox.kubectl("rollout", "status", "daemonset/example-driver-kubeletplugin",
                    "--timeout=60s", namespace="example-driver")
    pods = sandbox.json("get", "pods", namespace="example-driver")["items"]
    assert sorted(p["spec"]["nodeName"] for p in pods) == ["node-1", "node-2"]
    assert all(p["status"]["phase"] == "Running" for p in pods)


def test_drain_waits_for_a_disruption_budget(sandbox: Sandbox, namespace: str) -> None:
    ns = namespace
    sandbox.kubectl("create", "deployment", "guarded", "--image=nginx", "--replicas=2",
                    namespace=ns)
    sandbox.kubectl("rollout", "status", "deployment/guarded", "--timeout=60s", namespace=ns)
    sandbox.kubectl("create", "poddisruptionbudget", "guarded", "--selector=app=guarded",
                    "--min-available=2", namespace=ns)

    def blocking() -> Any:
        pdb = sandbox.json("get", "pdb", "guarded", namespace=ns)
        status = pdb.get("status", {})
        return status.get("currentHealthy") == 2 and status.get("disruptionsAllowed") == 0

    _eventually(blocking, what="the budget to count both pods")
    node = sandbox.json("get", "pods", namespace=ns)["items"][0]["spec"]["nodeName"]
    drained = sandbox.kubectl("drain", node, "--ignore-daemonsets", "--pod-selector=app=guarded",
                              "--timeout=2s", check=False)
    sandbox.kubectl("uncordon", node)
    assert drained.returncode != 0
    assert ("Cannot evict pod as it would violate the pod's disruption budget."
            in drained.stderr + drained.stdout)


def test_the_imperative_generators_and_listings_know_the_new_kinds(
    sandbox: Sandbox, namespace: str
) -> None:
    ns = namespace
    for args in (
        ("create", "serviceaccount", "builder"),
        ("create", "secret", "generic", "creds", "--from-literal=user=me"),
        ("create", "role", "reader", "--verb=get,list", "--resource=pods"),
        ("create", "rolebinding", "read", "--role=reader", f"--serviceaccount={ns}:builder"),
        ("create", "cronjob", "tick", "--image=busybox", "--schedule=*/5 * * * *", "--", "date"),
    ):
        sandbox.kubectl(*args, namespace=ns)
    sandbox.kubectl("create", "clusterrole", f"{ns}-nodes", "--verb=get", "--resource=nodes")
    accounts = sandbox.json("get", "serviceaccounts", namespace=ns)["items"]
    assert sorted(a["metadata"]["name"] for a in accounts) == ["builder", "default"]
    secret = sandbox.json("get", "secret", "creds", namespace=ns)
    assert (secret["type"], secret["data"]) == ("Opaque", {"user": "bWU="})
    binding = sandbox.kubectl("get", "rolebinding", "read", "-o", "wide",
                              namespace=ns).stdout.splitlines()
    assert binding[1].split()[:2] == ["read", "Role/reader"]
    assert binding[1].split()[-1] == f"{ns}/builder"
    sandbox.kubectl("create", "deployment", "web", "--image=nginx", namespace=ns)
    sandbox.kubectl("create", "job", "once", "--from=cronjob/tick", namespace=ns)
    kinds = sandbox.kubectl("get", "all", "-o", "name", namespace=ns).stdout.split()
    assert {"deployment.apps/web", "cronjob.batch/tick", "job.batch/once"} <= set(kinds)
    assert any(k.startswith("replicaset.apps/web-") for k in kinds)
    dump = sandbox.kubectl("cluster-info", "dump", "--namespaces", ns, "--output-directory",
                           str(sandbox.workdir / f"dump-{ns}")).stdout
    assert "Cluster info dumped to" in dump
    listed = sorted(p.name for p in (sandbox.workdir / f"dump-{ns}" / ns).glob("*.json"))
    assert {"deployments.json", "replicasets.json", "replication-controllers.json",
            "daemonsets.json"} <= set(listed)


_DRIVER_MANIFEST = """\
apiVersion: v1
kind: Namespace
metadata:
  name: example-driver
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: example-driver
  namespace: example-driver
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: example-driver
rules:
- apiGroups: ["resource.k8s.io"]
  resources: ["resourceclaims"]
  verbs: ["get"]
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get"]
- apiGroups: ["resource.k8s.io"]
  resources: ["resourceslices"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: example-driver
subjects:
- kind: ServiceAccount
  name: example-driver
  namespace: example-driver
roleRef:
  kind: ClusterRole
  name: example-driver
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: example-driver-kubeletplugin
  namespace: example-driver
spec:
  selector:
    matchLabels:
      app.kubernetes.io/name: example-driver
  updateStrategy:
    type: RollingUpdate
  template:
    metadata:
      labels:
        app.kubernetes.io/name: example-driver
    spec:
      priorityClassName: system-node-critical
      serviceAccountName: example-driver
      tolerations:
      - operator: Exists
      containers:
      - name: plugin
        image: registry.example/example-driver:v0.1.0
        env:
        - name: NODE_NAME
          valueFrom:
            fieldRef:
              fieldPath: spec.nodeName
        securityContext:
          privileged: true
        volumeMounts:
        - name: plugins
          mountPath: /var/lib/kubelet/plugins
      volumes:
      - name: plugins
        hostPath:
          path: /var/lib/kubelet/plugins
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: example.dev
spec:
  selectors:
  - cel:
      expression: device.driver == 'example.dev'
"""


# --- the KEP-5729 example as the KEP writes it --------------------------------------------------

#: The KEP gives ``MyWorkload`` no schema; this definition is the least one that takes its
#: example as written (``spec: ...``, a YAML string, stays as the KEP leaves it open).
_MY_WORKLOAD_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: myworkloads.example.com
spec:
  group: example.com
  names:
    kind: MyWorkload
    listKind: MyWorkloadList
    plural: myworkloads
    singular: myworkload
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            x-kubernetes-preserve-unknown-fields: true
"""

#: The device class the example's claims name, for the sandbox's GPUs (the cluster's, not the
#: example's: an administrator's object)
_EXAMPLE_CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: example
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
"""

#: KEP-5729's example, verbatim: the claim template, the MyWorkload, the Workload its controller
#: would make, two PodGroups and two Deployments whose pods use their group's claim
_KEP_5729_EXAMPLE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: pg-claim-template
  namespace: default
spec:
  spec:
    devices:
      requests:
      - name: my-device
        exactly:
          deviceClassName: example
---
apiVersion: example.com/v1
kind: MyWorkload
metadata:
  name: my-workload
  namespace: default
spec:
  ...
---
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata:
  name: my-workload
  namespace: default
spec:
  podGroupTemplates:
  - name: group-1
    policy:
      basic: {}
    resourceClaims:
    - name: pg-claim
      resourceClaimTemplateName: pg-claim-template
  - name: group-2
    policy:
      basic: {}
    resourceClaims:
    - name: pg-claim
      resourceClaimTemplateName: pg-claim-template
---
apiVersion: scheduling.k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: my-podgroup-1
  namespace: default
spec:
  workloadRef:
    name: my-workload
  podGroupTemplateRef:
    name: group-1
  resourceClaims:
  - name: pg-claim
    resourceClaimTemplateName: pg-claim-template
---
apiVersion: scheduling.k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: my-podgroup-2
  namespace: default
spec:
  workloadRef:
    name: my-workload
  podGroupTemplateRef:
    name: group-2
  resourceClaims:
  - name: pg-claim
    resourceClaimTemplateName: pg-claim-template
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: wl-claim-example-1
  namespace: default
spec:
  replicas: 2
  selector:
    matchLabels:
      app: wl-claim-example-1
  template:
    metadata:
      labels:
        app: wl-claim-example-1
    spec:
      containers:
      - name: pause
        image: "registry.k8s.io/pause:3.6"
        resources:
          claims:
          - name: resource
      resourceClaims:
      - name: resource
        podGroupResourceClaim: pg-claim
      workloadRef:
        name: my-workload
        podGroupName: my-podgroup-1
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: wl-claim-example-2
  namespace: default
spec:
  replicas: 2
  selector:
    matchLabels:
      app: wl-claim-example-2
  template:
    metadata:
      labels:
        app: wl-claim-example-2
    spec:
      containers:
      - name: pause
        image: "registry.k8s.io/pause:3.6"
        resources:
          claims:
          - name: resource
      resourceClaims:
      - name: resource
        podGroupResourceClaim: pg-claim
      workloadRef:
        name: my-workload
        podGroupName: my-podgroup-2
"""


def test_the_kep_5729_example_verbatim_runs_after_its_crd(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    # the example names namespace default, so it runs there (the only test of the module that does)
    for name, text in (("class.yaml", _EXAMPLE_CLASS), ("crd.yaml", _MY_WORKLOAD_CRD)):
        (tmp_path / name).write_text(text)
        sandbox.kubectl("apply", "-f", str(tmp_path / name))
    waited = sandbox.kubectl("wait", "--for", "condition=established", "--timeout=30s",
                             "crd/myworkloads.example.com").stdout
    assert "condition met" in waited
    example = tmp_path / "kep-5729.yaml"
    example.write_text(_KEP_5729_EXAMPLE)
    applied = sandbox.kubectl("apply", "-f", str(example)).stdout.splitlines()
    assert applied == [
        "resourceclaimtemplate.resource.k8s.io/pg-claim-template created",
        "myworkload.example.com/my-workload created",
        "workload.scheduling.k8s.io/my-workload created",
        "podgroup.scheduling.k8s.io/my-podgroup-1 created",
        "podgroup.scheduling.k8s.io/my-podgroup-2 created",
        "deployment.apps/wl-claim-example-1 created",
        "deployment.apps/wl-claim-example-2 created",
    ]
    assert sandbox.json("get", "myworkload", "my-workload", namespace="default")["spec"] == "..."
    for name in ("wl-claim-example-1", "wl-claim-example-2"):
        sandbox.kubectl("rollout", "status", f"deployment/{name}", "--timeout=60s",
                        namespace="default")

    pods = [p for p in sandbox.json("get", "pods", namespace="default")["items"]
            if p["metadata"]["labels"].get("app", "").startswith("wl-claim-example-")]
    assert len(pods) == 4 and {p["status"]["phase"] for p in pods} == {"Running"}
    claims: dict[str, set[str]] = {}
    for pod in pods:
        (entry,) = pod["status"]["resourceClaimStatuses"]
        claims.setdefault(pod["spec"]["workloadRef"]["podGroupName"], set()).add(
            entry["resourceClaimName"])
    # each group's pods share one claim; the two groups have one each
    assert sorted(claims) == ["my-podgroup-1", "my-podgroup-2"]
    assert all(len(names) == 1 for names in claims.values())
    assert claims["my-podgroup-1"] != claims["my-podgroup-2"]
    for group, (claim_name,) in claims.items():
        claim = sandbox.json("get", "resourceclaim", claim_name, namespace="default")
        (reserved,) = claim["status"]["reservedFor"]
        assert (reserved["resource"], reserved["name"]) == ("podgroups", group)
        (result,) = claim["status"]["allocation"]["devices"]["results"]
        assert result["driver"] == "gpu.example.com"
