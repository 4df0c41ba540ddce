"""NodeRestriction: what a kubelet may write, beyond what the Node authorizer can see.

The Node authorizer decides from a request's attributes, before the body is read: it lets a node
create any ResourceSlice, update any Node, delete any Pod. This admission plugin, enabled with
the Node authorization mode as a cluster set up by kubeadm has it, then looks at the objects,
with upstream's messages (403 ``<resource> "<name>" is forbidden: <why>``):

- **ResourceSlices**: a node creates and deletes only slices whose ``spec.nodeName`` is itself
  ("can only create ResourceSlice with the same NodeName as the requesting node"); a
  deletecollection checks each slice it deletes.
- **Pods**: a node deletes only pods bound to itself, creates only mirror pods bound to itself
  that reference no service account, secret, config map or claim, and writes the status of its
  own pods only, without changing their labels or resource claim statuses.
- **Nodes**: a node writes only its own Node, may not set labels outside the kubelet's own set
  (``node-restriction.kubernetes.io/`` and unknown ``kubernetes.io``/``k8s.io`` ones) nor change
  its taints.
- **Leases**: only its own, in ``kube-node-lease``.

Requests from anyone but a node (``system:nodes``) pass untouched. It looks at every write
(``every_write``): status writes and deletes as well as creates and updates.
"""

from __future__ import annotations

from typing import Any

from fakeapi import errors
from fakeapi.auth.user import node_name
from fakeapi.objects import Obj, as_dict, as_list, text
from fakeapi.registry.admission.interface import Attributes

__all__ = ["NodeRestriction"]

_MIRROR = "kubernetes.io/config.mirror"
_NODE_LEASE_NAMESPACE = "kube-node-lease"
#: labels a kubelet may set on its Node (upstream's ``kubeletapis.IsKubeletLabel``)
_KUBELET_LABELS = frozenset({
    "kubernetes.io/hostname",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "beta.kubernetes.io/instance-type",
    "node.kubernetes.io/instance-type",
    "kubernetes.io/os",
    "kubernetes.io/arch",
    "beta.kubernetes.io/os",
    "beta.kubernetes.io/arch",
})
_KUBELET_LABEL_NAMESPACES = ("kubelet.kubernetes.io", "node.kubernetes.io")


def _forbidden(attrs: Attributes, message: str) -> errors.StatusError:
    """Upstream's ``admission.NewForbidden``: named after the request, or its object."""
    name = attrs.name
    if name in ("", "Unknown") and attrs.obj is not None:
        meta = as_dict(attrs.obj.get("metadata"))
        name = text(meta.get("name")) or text(meta.get("generateName")) or "Unknown"
    return errors.forbidden(resource=attrs.resource, group=attrs.group, name=name,
                            message=message)


def _namespace_of_label(key: str) -> str:
    prefix, slash, _ = key.partition("/")
    return prefix if slash else ""


def _in(namespace: str, domain: str) -> bool:
    return namespace == domain or namespace.endswith("." + domain)


def _forbidden_labels(new: dict[str, Any], old: dict[str, Any]) -> list[str]:
    modified = {k for k in {*new, *old} if new.get(k) != old.get(k) or (k in new) != (k in old)}
    forbidden = []
    for label in modified:
        namespace = _namespace_of_label(label)
        restricted = _in(namespace, "node-restriction.kubernetes.io")
        kubernetes = _in(namespace, "kubernetes.io") or _in(namespace, "k8s.io")
        kubelets = label in _KUBELET_LABELS or any(
            _in(namespace, allowed) for allowed in _KUBELET_LABEL_NAMESPACES
        )
        if restricted or (kubernetes and not kubelets):
            forbidden.append(label)
    return sorted(forbidden)


def _labels(obj: Obj | None) -> dict[str, Any]:
    return as_dict(as_dict((obj or {}).get("metadata")).get("labels"))


def _spec(obj: Obj | None) -> dict[str, Any]:
    return as_dict((obj or {}).get("spec"))


def _claim_statuses(pod: Obj | None) -> list[tuple[str, Any]]:
    return [
        (text(as_dict(s).get("name")), as_dict(s).get("resourceClaimName"))
        for s in as_list(as_dict((pod or {}).get("status")).get("resourceClaimStatuses"))
    ]


class NodeRestriction:
    """The admission plugin; see the module docstring."""

    name = "NodeRestriction"
    every_write = True

    def handles(self, attrs: Attributes) -> bool:
        return attrs.user is not None and node_name(attrs.user)[1]

    def admit(self, attrs: Attributes) -> None:
        assert attrs.user is not None
        node, _ = node_name(attrs.user)
        if not node:
            raise _forbidden(attrs, f'could not determine node from user "{attrs.user.name}"')
        check = {
            ("", "pods"): self._pod,
            ("", "nodes"): self._node,
            ("coordination.k8s.io", "leases"): self._lease,
            ("resource.k8s.io", "resourceslices"): self._slice,
        }.get((attrs.group, attrs.resource))
        if check is not None:
            check(node, attrs)

    def _slice(self, node: str, attrs: Attributes) -> None:
        if attrs.operation == "CREATE" and text(_spec(attrs.obj).get("nodeName")) != node:
            raise _forbidden(
                attrs, "can only create ResourceSlice with the same NodeName as the requesting node"
            )
        if attrs.operation == "DELETE" and text(_spec(attrs.old).get("nodeName")) != node:
            raise _forbidden(
                attrs, "can only delete ResourceSlice with the same NodeName as the requesting node"
            )

    def _pod(self, node: str, attrs: Attributes) -> None:
        if attrs.subresource == "status":
            if attrs.operation != "UPDATE":
                raise _forbidden(attrs, f'unexpected operation "{attrs.operation}"')
            if text(_spec(attrs.old).get("nodeName")) != node:
                raise _forbidden(attrs, f'node "{node}" can only update pod status for pods with '
                                        "spec.nodeName set to itself")
            if _labels(attrs.obj) != _labels(attrs.old):
                raise _forbidden(attrs, f'node "{node}" cannot update labels through pod status')
            if _claim_statuses(attrs.obj) != _claim_statuses(attrs.old):
                raise _forbidden(attrs, f'node "{node}" cannot update resource claim statues')
            return
        if attrs.subresource:
            raise _forbidden(attrs, f'unexpected pod subresource "{attrs.subresource}", only '
                                    "'status' and 'eviction' are allowed")
        if attrs.operation == "DELETE":
            if text(_spec(attrs.old).get("nodeName")) != node:
                raise _forbidden(attrs, f'node "{node}" can only delete pods with spec.nodeName '
                                        "set to itself")
            return
        if attrs.operation != "CREATE":
            raise _forbidden(attrs, f'unexpected operation "{attrs.operation}", node "{node}" can '
                                    "only create and delete mirror pods")
        self._mirror_pod(node, attrs)

    def _mirror_pod(self, node: str, attrs: Attributes) -> None:
        pod = attrs.obj
        annotations = as_dict(as_dict(pod.get("metadata")).get("annotations"))
        if _MIRROR not in annotations:
            raise _forbidden(attrs, f'pod does not have "{_MIRROR}" annotation, node "{node}" can '
                                    "only create mirror pods")
        spec = _spec(pod)
        if text(spec.get("nodeName")) != node:
            raise _forbidden(attrs, f'node "{node}" can only create pods with spec.nodeName set '
                                    "to itself")
        owners = as_list(as_dict(pod.get("metadata")).get("ownerReferences"))
        if len(owners) != 1:
            which = "a single owner reference" if owners else "an owner reference"
            raise _forbidden(attrs, f'node "{node}" can only create pods with {which} set to '
                                    "itself")
        owner = as_dict(owners[0])
        if (owner.get("apiVersion"), owner.get("kind"), owner.get("name")) != ("v1", "Node", node):
            raise _forbidden(attrs, f'node "{node}" can only create pods with an owner reference '
                                    "set to itself")
        if spec.get("serviceAccountName"):
            raise _forbidden(attrs, f'node "{node}" can not create pods that reference a service '
                                    "account")
        volumes = [as_dict(v) for v in as_list(spec.get("volumes"))]
        if any(v.get("persistentVolumeClaim") for v in volumes):
            raise _forbidden(attrs, f'node "{node}" can not create pods that reference '
                                    "persistentvolumeclaims")

    def _node(self, node: str, attrs: Attributes) -> None:
        name = attrs.name
        if attrs.operation == "CREATE":
            name = text(as_dict(attrs.obj.get("metadata")).get("name"))
        if name != node:
            raise _forbidden(attrs, f'node "{node}" is not allowed to modify node "{name}"')
        if attrs.operation == "CREATE":
            forbidden = _forbidden_labels(_labels(attrs.obj), {})
            if forbidden:
                raise _forbidden(attrs, f'node "{node}" is not allowed to set the following '
                                        f"labels: {', '.join(forbidden)}")
        elif attrs.operation == "UPDATE":
            if _spec(attrs.obj).get("taints") != _spec(attrs.old).get("taints"):
                raise _forbidden(attrs, f'node "{node}" is not allowed to modify taints')
            forbidden = _forbidden_labels(_labels(attrs.obj), _labels(attrs.old))
            if forbidden:
                raise _forbidden(attrs, f"is not allowed to modify labels: {', '.join(forbidden)}")

    def _lease(self, node: str, attrs: Attributes) -> None:
        if attrs.namespace != _NODE_LEASE_NAMESPACE:
            raise _forbidden(attrs, f'can only access leases in the "{_NODE_LEASE_NAMESPACE}" '
                                    "system namespace")
        name = attrs.name
        if attrs.operation == "CREATE":
            name = text(as_dict(attrs.obj.get("metadata")).get("name"))
        if name != node:
            raise _forbidden(attrs, "can only access node lease with the same name as the "
                                    "requesting node")
