"""``--authorization-mode=Node``: what a kubelet (``system:node:<name>``, ``system:nodes``) may do.

Upstream's node authorizer, for the parts a DRA cluster exercises, with its reasons:

- **ResourceClaims**: ``get`` of a claim that a pod bound to the node uses (named in its
  ``spec.resourceClaims``, recorded in its ``status.resourceClaimStatuses``, or its
  extended-resource claim); anything else has no opinion ("no relationship found between node
  'n' and this object", "can only get individual resources of this type").
- **ResourceSlices**: ``create`` (NodeRestriction admission then checks ``spec.nodeName``);
  ``get``, ``update``, ``patch``, ``delete`` of a slice whose ``spec.nodeName`` is the node;
  ``list``, ``watch`` and ``deletecollection`` only with the field selector
  ``spec.nodeName=<node>``.
- **Pods**: ``get`` of a pod bound to the node, ``list``/``watch`` with ``spec.nodeName=<node>``,
  ``create``/``delete`` (mirror pods; NodeRestriction checks them), ``pods/status`` writes and
  ``pods/eviction``.
- **Nodes**: its own Node (read by name, write; NodeRestriction checks writes), ``nodes/status``.
- **Leases**: its own lease in ``kube-node-lease``.
- **Everything else**: the rules of upstream's ``NodeRules`` (the ``system:node`` ClusterRole of
  the bootstrap policy), for every node alike.

Upstream keeps a graph of pods, claims, slices and nodes fed by informers. Here a slice or pod
decision reads the one stored object (exact, and free), and claims need the only real index: for
each claim, the nodes of the pods that use it, kept from the storage's pod watch
(:class:`~fakeapi.auth.watched.WatchedObjects`). The node authorizer lists no rules for nodes
(``incomplete``, as upstream).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from fakeapi.auth.attributes import Attributes
from fakeapi.auth.authorizer import ALLOWED, NO_OPINION, Answer, Decision, Rules
from fakeapi.auth.rules import Rule, rules_allow
from fakeapi.auth.user import UserInfo, node_name
from fakeapi.auth.watched import WatchedObjects
from fakeapi.objects import Obj, as_dict, as_list, key_for, text
from fakeapi.storage.interface import ResourceStore

__all__ = ["NodeAuthorizer", "claims_of_pod"]

NODE_LEASE_NAMESPACE = "kube-node-lease"
_RESOURCE = "resource.k8s.io"
_COORDINATION = "coordination.k8s.io"
_SLICE_VERBS = "get, watch, list, create, update, patch, delete, deletecollection"


def _no(reason: str) -> Answer:
    return Answer(Decision.NO_OPINION, reason)


def claims_of_pod(pod: Obj) -> frozenset[str]:
    """The claims a pod uses by name: ``spec.resourceClaims[].resourceClaimName``, the names
    recorded in ``status.resourceClaimStatuses`` (claims made from templates, or for its
    PodGroup) and its extended-resource claim."""
    names = [as_dict(e).get("resourceClaimName") for e in as_list(dig_spec(pod, "resourceClaims"))]
    status = as_dict(pod.get("status"))
    names += [as_dict(s).get("resourceClaimName")
              for s in as_list(status.get("resourceClaimStatuses"))]
    names.append(as_dict(status.get("extendedResourceClaimStatus")).get("resourceClaimName"))
    return frozenset(str(n) for n in names if n)


def dig_spec(pod: Obj, field: str) -> object:
    return as_dict(pod.get("spec")).get(field)


class _ClaimUsers:
    """For every claim (``namespace/name``), the nodes of the bound pods that use it."""

    def __init__(self, pods: ResourceStore) -> None:
        #: pod key → (node, claim keys) of pods bound to a node that use claims
        self._pods: dict[str, tuple[str, frozenset[str]]] = {}
        #: claim key → node → how many pods there use it
        self._claims: dict[str, dict[str, int]] = {}
        self.watch = WatchedObjects(pods, apply=self._apply, reset=self._reset)

    def _reset(self) -> None:
        self._pods.clear()
        self._claims.clear()

    def _apply(self, key: str, pod: Obj | None) -> None:
        now: tuple[str, frozenset[str]] | None = None
        if pod is not None:
            node = text(dig_spec(pod, "nodeName"))
            # a mirror pod never grants its node anything (as upstream's graph)
            mirror = "kubernetes.io/config.mirror" in as_dict(
                as_dict(pod.get("metadata")).get("annotations")
            )
            if node and not mirror:
                namespace = text(as_dict(pod.get("metadata")).get("namespace"))
                claims = frozenset(key_for(namespace, c) for c in claims_of_pod(pod))
                if claims:
                    now = (node, claims)
        before = self._pods.get(key)
        if before == now:
            return
        if before is not None:
            self._count(before, -1)
            del self._pods[key]
        if now is not None:
            self._count(now, 1)
            self._pods[key] = now

    def _count(self, entry: tuple[str, frozenset[str]], delta: int) -> None:
        node, claims = entry
        for claim in claims:
            nodes = self._claims.setdefault(claim, {})
            count = nodes.get(node, 0) + delta
            if count > 0:
                nodes[node] = count
            else:
                nodes.pop(node, None)
                if not nodes:
                    del self._claims[claim]

    def used_on(self, claim: str, node: str) -> bool:
        self.watch.sync()
        return node in self._claims.get(claim, ())


class NodeAuthorizer:
    """The Node mode over the stored pods and slices, with ``node_rules`` for the rest."""

    def __init__(
        self,
        *,
        pods: ResourceStore,
        resource_slices: ResourceStore,
        node_rules: Iterable[Rule],
    ) -> None:
        self._pods = pods
        self._slices = resource_slices
        self._claims = _ClaimUsers(pods)
        self.node_rules = tuple(node_rules)
        self._handlers: dict[tuple[str, str], Callable[[str, Attributes], Answer]] = {
            (_RESOURCE, "resourceclaims"): self._claim,
            (_RESOURCE, "resourceslices"): self._slice,
            ("", "pods"): self._pod,
            ("", "nodes"): self._node,
            (_COORDINATION, "leases"): self._lease,
        }

    def authorize(self, attrs: Attributes) -> Answer:
        node, is_node = node_name(attrs.user)
        if not is_node:
            return NO_OPINION
        if not node:
            return _no(f'unknown node for user "{attrs.user.name}"')
        if attrs.resource_request:
            handler = self._handlers.get((attrs.api_group, attrs.resource))
            if handler is not None:
                return handler(node, attrs)
        if rules_allow(attrs, self.node_rules):
            return ALLOWED
        return NO_OPINION

    def rules_for(self, user: UserInfo, namespace: str) -> Rules:
        if node_name(user)[1]:
            return Rules(
                incomplete=True,
                errors=["node authorizer does not support user rule resolution"],
            )
        return Rules()

    def close(self) -> None:
        self._claims.watch.close()

    # --- per resource -----------------------------------------------------------------------
    @staticmethod
    def _unrelated(node: str) -> Answer:
        return _no(f"no relationship found between node '{node}' and this object")

    def _claim(self, node: str, attrs: Attributes) -> Answer:
        if attrs.verb != "get":
            return _no("can only get individual resources of this type")
        if attrs.subresource:
            return _no("cannot get subresource")
        if not attrs.name:
            return _no("No Object name found")
        if self._claims.used_on(key_for(attrs.namespace, attrs.name), node):
            return ALLOWED
        return self._unrelated(node)

    def _slice(self, node: str, attrs: Attributes) -> Answer:
        if attrs.subresource:
            return _no("cannot authorize ResourceSlice subresources")
        verb = attrs.verb
        if verb == "create":  # NodeRestriction admission checks the new slice's nodeName
            return ALLOWED
        if verb in ("get", "update", "patch", "delete"):
            if not attrs.name:
                return _no("No Object name found")
            stored = self._slices.get(attrs.name)
            if stored is not None and text(dig_spec(stored.obj, "nodeName")) == node:
                return ALLOWED
            return self._unrelated(node)
        if verb in ("watch", "list", "deletecollection"):
            if attrs.field_equals("spec.nodeName", node):
                return ALLOWED
            return _no(
                "can only list/watch/deletecollection resourceslices with nodeName field selector"
            )
        return _no(f"only the following verbs are allowed for a ResourceSlice: {_SLICE_VERBS}")

    def _pod_on_node(self, node: str, attrs: Attributes) -> Answer:
        if not attrs.name:
            return _no("No Object name found")
        stored = self._pods.get(key_for(attrs.namespace, attrs.name))
        if stored is not None and text(dig_spec(stored.obj, "nodeName")) == node:
            return ALLOWED
        return self._unrelated(node)

    def _pod(self, node: str, attrs: Attributes) -> Answer:
        sub, verb = attrs.subresource, attrs.verb
        if not sub:
            if verb == "get":
                return self._pod_on_node(node, attrs)
            if verb in ("list", "watch"):
                if attrs.field_equals("spec.nodeName", node):
                    return ALLOWED
                if attrs.name:
                    return self._pod_on_node(node, attrs)
                return _no("can only list/watch pods with spec.nodeName field selector")
            if verb in ("create", "delete"):  # mirror pods; NodeRestriction checks them
                return ALLOWED
        elif (sub == "status" and verb in ("update", "patch")) or (
            sub == "eviction" and verb == "create"
        ):
            return ALLOWED
        return NO_OPINION

    def _node(self, node: str, attrs: Attributes) -> Answer:
        sub, verb = attrs.subresource, attrs.verb
        if not sub:
            if verb in ("create", "update", "patch"):  # NodeRestriction: its own Node only
                return ALLOWED
            if verb in ("get", "list", "watch"):
                if attrs.name == node:
                    return ALLOWED
                if not attrs.name:
                    return _no(f"node '{node}' cannot read all nodes, only its own Node object")
                return _no(f"node '{node}' cannot read '{attrs.name}', only its own Node object")
        elif sub == "status" and verb in ("update", "patch"):
            return ALLOWED
        return NO_OPINION

    def _lease(self, node: str, attrs: Attributes) -> Answer:
        verb = attrs.verb
        if verb not in ("get", "create", "update", "patch", "delete"):
            return _no("can only get, create, update, patch, or delete a node lease")
        if attrs.namespace != NODE_LEASE_NAMESPACE:
            return _no(f'can only access leases in the "{NODE_LEASE_NAMESPACE}" system namespace')
        if verb != "create" and attrs.name != node:
            return _no("can only access node lease with the same name as the requesting node")
        return ALLOWED
