"""Who each component of a cluster is, when the cluster authenticates and authorizes.

A cluster started with security settings (:class:`~fakeapi.auth.settings.SecuritySettings`,
``Cluster(authorization="Node,RBAC")``) gives every client an identity, as a kubeadm cluster
does with its kubeconfigs and service accounts:

- the test's client, the kubeconfig it writes and the sandbox's user: ``fakeapi-admin`` in
  ``system:masters`` (kubeadm's admin is ``kubernetes-admin``; both are cluster-admins);
- the scheduler: ``system:kube-scheduler``;
- each controller: its own service account, ``system:serviceaccount:kube-system:<name>`` with
  upstream's controller role, as kube-controller-manager runs them with
  ``--use-service-account-credentials`` (what kubeadm sets): a controller is held to its own
  role, so a controller asking for more than upstream's shows up as a 403 in the failure report
  instead of passing unnoticed. fakeapi's own controllers get roles of their own
  (``fakeapi:controller:*``);
- the shared informers: ``system:kube-controller-manager``, whose bootstrap role may list and
  watch everything — the identity kube-controller-manager's own informers use;
- each kubelet: ``system:node:<name>`` in ``system:nodes``, held to the Node authorizer and
  NodeRestriction;
- each node's simulated DRA drivers, for their writes of claim status: the service account of
  the driver's DaemonSet pod on that node, ``system:serviceaccount:kube-system:<driver>-kubelet-
  plugin``, with the node in its ``authentication.kubernetes.io/node-name`` extra as a bound
  token carries it, granted what a driver's install manifest grants (:func:`driver_policy`:
  ``resourceclaims/driver`` with ``associated-node:`` verbs for its own driver, ``arbitrary-node:``
  ones for network-attached devices, whose allocation names no one node);
  a cluster-scoped driver's controller ``<driver>-controller``, with ``arbitrary-node:`` verbs;
- the users' own components: the admin (their RBAC is theirs to test, e.g. with
  :meth:`~fakeapi.cluster.Cluster.client_as`).

Over HTTP each identity authenticates with a bearer token the cluster makes (:class:`Tokens`);
the external drivers of a node get a kubeconfig carrying that node's token.
"""

from __future__ import annotations

import re
import secrets

from fakeapi.auth.authentication import Authenticator
from fakeapi.auth.user import (
    ADMIN_USER,
    ALL_AUTHENTICATED,
    KUBE_CONTROLLER_MANAGER,
    KUBE_SCHEDULER,
    NODE_NAME_EXTRA,
    UserInfo,
    node_user,
    service_account_user,
)
from fakeapi.objects import Obj

__all__ = [
    "ADMIN_USER",
    "CONTROLLER_SERVICE_ACCOUNTS",
    "INFORMERS_USER",
    "SCHEDULER_USER",
    "Tokens",
    "cluster_driver_user",
    "controller_user",
    "driver_policy",
    "node_driver_user",
    "node_user",
]

SYSTEM_NAMESPACE = "kube-system"
SCHEDULER_USER = UserInfo(KUBE_SCHEDULER, groups=(ALL_AUTHENTICATED,))
INFORMERS_USER = UserInfo(KUBE_CONTROLLER_MANAGER, groups=(ALL_AUTHENTICATED,))

#: each controller's service account in kube-system, by its name in ``--controllers``
#: (upstream's names; fakeapi's own controllers are named after themselves)
CONTROLLER_SERVICE_ACCOUNTS: dict[str, str] = {
    "garbage-collector-controller": "generic-garbage-collector",
    "namespace-controller": "namespace-controller",
    "resourceclaim-controller": "resource-claim-controller",
    "podgroup-protection-controller": "podgroup-protection-controller",
    "resourcepool-controller": "resourcepool-controller",
    "resourcepoolstatusrequest-controller": "resourcepoolstatusrequest-controller",
    "device-taint-eviction-controller": "device-taint-eviction-controller",
    "node-lifecycle-controller": "node-controller",
    "pod-garbage-collector-controller": "pod-garbage-collector",
    "serviceaccount-controller": "service-account-controller",
    "replicaset-controller": "replicaset-controller",
    "replicationcontroller-controller": "replication-controller",
    "deployment-controller": "deployment-controller",
    "statefulset-controller": "statefulset-controller",
    "daemonset-controller": "daemon-set-controller",
    "job-controller": "job-controller",
    "cronjob-controller": "cronjob-controller",
    "ttl-after-finished-controller": "ttl-after-finished-controller",
    "disruption-controller": "disruption-controller",
    "clusterrole-aggregation-controller": "clusterrole-aggregation-controller",
}


def controller_user(controller: str) -> UserInfo:
    """The service account ``controller`` runs as (named after it when upstream has none)."""
    return service_account_user(
        SYSTEM_NAMESPACE, CONTROLLER_SERVICE_ACCOUNTS.get(controller, controller)
    )


def _account_name(driver: str, suffix: str) -> str:
    """A DNS label for a driver's service account: ``gpu.example.com`` → ``gpu-example-com-...``."""
    base = re.sub(r"[^a-z0-9-]+", "-", driver.lower()).strip("-")
    return f"{base[: 62 - len(suffix)]}-{suffix}"


def node_driver_user(driver: str, node: str) -> UserInfo:
    """The service account of ``driver``'s kubelet plugin pod on ``node``, as its bound token
    authenticates it (with the node it runs on)."""
    return service_account_user(
        SYSTEM_NAMESPACE, _account_name(driver, "kubelet-plugin"), extra={NODE_NAME_EXTRA: [node]}
    )


def cluster_driver_user(driver: str) -> UserInfo:
    """The service account of a cluster-scoped driver's controller."""
    return service_account_user(SYSTEM_NAMESPACE, _account_name(driver, "controller"))


def driver_policy(driver: str, *, cluster_scoped: bool, node_local: bool = True) -> list[Obj]:
    """The ClusterRole and ClusterRoleBinding a driver's install manifest would bring, following
    upstream's DRA hardening guide: read claims, write their status, and write ``status.devices``
    for this driver only — from its own node (``associated-node:``) for a kubelet plugin of
    node-local devices, from any node (``arbitrary-node:``) for a cluster-scoped driver's
    controller, which also publishes its pools' ResourceSlices, and for a kubelet plugin of
    devices that are not ``node_local`` (network-attached: their allocation names no one node)."""
    prefix = "associated-node:" if node_local and not cluster_scoped else "arbitrary-node:"
    account = _account_name(driver, "controller" if cluster_scoped else "kubelet-plugin")
    name = f"fakeapi:dra-driver:{account}"
    rules: list[Obj] = [
        {"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims"],
         "verbs": ["get", "list", "watch"]},
        {"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims/status"],
         "verbs": ["get", "patch", "update"]},
        {"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims/driver"],
         "resourceNames": [driver], "verbs": [f"{prefix}patch", f"{prefix}update"]},
        {"apiGroups": ["", "events.k8s.io"], "resources": ["events"],
         "verbs": ["create", "patch", "update"]},
    ]
    if cluster_scoped:
        rules.append({"apiGroups": ["resource.k8s.io"], "resources": ["resourceslices"],
                      "verbs": ["get", "list", "watch", "create", "update", "patch", "delete",
                                "deletecollection"]})
    return [
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
         "metadata": {"name": name}, "rules": rules},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
         "metadata": {"name": name},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                     "name": name},
         "subjects": [{"kind": "ServiceAccount", "name": account,
                       "namespace": SYSTEM_NAMESPACE}]},
    ]


class Tokens:
    """The bearer tokens of a cluster's identities: made on first use (random, per cluster) and
    accepted from then on by the cluster's authenticator."""

    def __init__(self, authenticator: Authenticator) -> None:
        self._authenticator = authenticator
        self._by_user: dict[UserInfo, str] = {}

    def token(self, user: UserInfo) -> str:
        token = self._by_user.get(user)
        if token is None:
            token = self._by_user[user] = secrets.token_urlsafe(24)
            self._authenticator.add_token(token, user)
        return token
