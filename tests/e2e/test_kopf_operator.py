"""An operator built with kopf, run against a fakeapi cluster as its authors run it against a
real one: its CustomResourceDefinition applied, ``kopf run`` started with the cluster's
kubeconfig, a custom resource created, updated and deleted.

The operator is what kopf's examples are made of: a creation handler that makes a ConfigMap
owned by the custom resource (``kopf.adopt``) and reports in the resource's status, and a field
handler that carries a change of the spec over to the ConfigMap. The cluster's controllers run,
so the ConfigMap goes with its owner through the garbage collector, as on a real cluster.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

pytestmark = pytest.mark.e2e

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: kopfexamples.kopf.dev
spec:
  scope: Namespaced
  group: kopf.dev
  names:
    kind: KopfExample
    plural: kopfexamples
    singular: kopfexample
    shortNames: [kex]
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              message: {type: string}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
"""

OPERATOR = '''\
import kopf
import kubernetes


def core():
    kubernetes.config.load_kube_config()
    return kubernetes.client.CoreV1Api()


@kopf.on.create("kopf.dev", "v1", "kopfexamples")
def create_fn(spec, name, namespace, body, **_):
    data = {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": f"{name}-data"}, "data": {"message": spec["message"]}}
    kopf.adopt(data, owner=body)
    core().create_namespaced_config_map(namespace, data)
    return {"configMap": f"{name}-data"}


@kopf.on.field("kopf.dev", "v1", "kopfexamples", field="spec.message")
def message_fn(old, new, name, namespace, patch, **_):
    if old is None:
        return  # the creation handler wrote it
    core().patch_namespaced_config_map(f"{name}-data", namespace, {"data": {"message": new}})
    patch.status["observedMessage"] = new
'''

EXAMPLE = """\
apiVersion: kopf.dev/v1
kind: KopfExample
metadata:
  name: example
spec:
  message: hello
"""


def test_a_kopf_operator_reconciles_a_custom_resource(fakeapi_cluster, tmp_path):
    cluster = fakeapi_cluster
    cluster.apply_yaml(CRD)
    operator = tmp_path / "operator.py"
    operator.write_text(OPERATOR)
    log = tmp_path / "kopf.log"
    with log.open("wb") as sink:  # a file, not a pipe nobody drains
        kopf = subprocess.Popen(
            [sys.executable, "-m", "kopf", "run", "--standalone",
             "--namespace", cluster.namespace, str(operator)],
            stdout=sink, stderr=subprocess.STDOUT,
            env={**os.environ, "KUBECONFIG": str(cluster.kubeconfig)},
        )
    try:
        cluster.apply_yaml(EXAMPLE)
        example = cluster.wait_for("kopfexamples", "example",
                                   jsonpath="{.status.create_fn.configMap}=example-data")
        data = cluster.wait_for("configmaps", "example-data")
        assert data["data"] == {"message": "hello"}
        [owner] = data["metadata"]["ownerReferences"]
        assert (owner["kind"], owner["name"], owner["uid"]) == (
            "KopfExample", "example", example["metadata"]["uid"])

        cluster.client.patch(cluster.resource("kex"), name="example", namespace=cluster.namespace,
                             patch={"spec": {"message": "bye"}}, patch_type="merge")
        cluster.wait_for("kopfexamples", "example", jsonpath="{.status.observedMessage}=bye")
        cluster.wait_for("configmaps", "example-data", jsonpath="{.data.message}=bye")

        cluster.client.delete(cluster.resource("kex"), name="example",
                              namespace=cluster.namespace)
        cluster.wait_for("configmaps", "example-data", deleted=True)
    finally:
        kopf.send_signal(signal.SIGINT)
        try:
            kopf.wait(30)
        except subprocess.TimeoutExpired:
            kopf.kill()
            raise
    output = log.read_text()
    assert "Handler 'create_fn' succeeded." in output, output
    assert "Handler 'message_fn/spec.message' succeeded." in output, output
    assert "Traceback" not in output, output
