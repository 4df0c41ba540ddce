"""The scheduler cache: nodes with what their pods request, including pods only assumed.

The scheduling cycle must see the pods it just placed even though their binding is still in
flight (otherwise the next pod would be put on the same full node). So, as kube-scheduler:

* a pod is **assumed** on its node at the end of the scheduling cycle (its requests count at
  once);
* when the binding succeeds it is marked finished; when the informer then reports the pod bound,
  the assumed entry becomes the real one;
* a failed binding **forgets** the assumed pod.

Everything is incremental: node and pod events adjust the one :class:`NodeInfo` they touch; the
node list is rebuilt only when nodes come or go. The scheduling cycle runs without awaiting, so
it reads the live NodeInfos without a snapshot. The nodes holding pods with inter-pod
(anti-)affinity terms are indexed as they change (:class:`AffinityNodes`, shared by the cache's
NodeInfos), as upstream's snapshot lists them, and so are the nodes with taints, images or
``spec.unschedulable`` (:class:`NodeTraits`).
"""

from __future__ import annotations

from collections.abc import Sequence

from fakeapi.objects import Obj
from fakeapi.scheduler.framework.types import AffinityNodes, NodeInfo, NodeTraits, PodInfo

__all__ = ["Cache"]



class Cache:
    def __init__(self) -> None:
        self._nodes: dict[str, NodeInfo] = {}
        self._node_list: tuple[NodeInfo, ...] = ()
        #: pods on nodes that are not (yet) known: kept so the node starts with them
        self._orphans: dict[str, dict[str, PodInfo]] = {}
        #: uid → node name of every pod the cache counts (bound or assumed)
        self._pod_nodes: dict[str, str] = {}
        self._assumed: dict[str, bool] = {}  # uid → binding finished
        #: the nodes with pods that have inter-pod (anti-)affinity terms
        self.affinity_nodes = AffinityNodes()
        #: the nodes with taints, images or ``spec.unschedulable``
        self.traits = NodeTraits()

    # -- nodes ---------------------------------------------------------------------------------
    def add_node(self, node: Obj) -> NodeInfo:
        name = (node.get("metadata") or {}).get("name", "")
        info = self._nodes.get(name)
        if info is not None:
            info.set_node(node)
            return info
        info = NodeInfo(node, affinity_nodes=self.affinity_nodes, traits=self.traits)
        for pod in self._orphans.pop(name, {}).values():
            info.add_pod(pod)
        self._nodes[name] = info
        self._node_list = (*self._node_list, info)
        return info

    update_node = add_node

    def remove_node(self, node: Obj) -> None:
        name = (node.get("metadata") or {}).get("name", "")
        info = self._nodes.pop(name, None)
        if info is None:
            return
        self._node_list = tuple(n for n in self._node_list if n.name != name)
        self.affinity_nodes.forget(info)
        info.affinity_nodes = None
        self.traits.forget(info)
        info.traits = None
        if info.pods:
            self._orphans[name] = dict(info.pods)

    def node(self, name: str) -> NodeInfo | None:
        return self._nodes.get(name)

    @property
    def nodes(self) -> Sequence[NodeInfo]:
        """Every known node, in the order they were added (the order Filter walks them)."""
        return self._node_list

    # -- pods ----------------------------------------------------------------------------------
    def _place(self, info: PodInfo, node_name: str) -> None:
        self._pod_nodes[info.uid] = node_name
        node = self._nodes.get(node_name)
        if node is not None:
            node.add_pod(info)
        else:
            self._orphans.setdefault(node_name, {})[info.uid] = info

    def _unplace(self, uid: str) -> None:
        node_name = self._pod_nodes.pop(uid, None)
        if node_name is None:
            return
        node = self._nodes.get(node_name)
        if node is not None:
            node.remove_pod(uid)
        else:
            self._orphans.get(node_name, {}).pop(uid, None)

    def assume_pod(self, info: PodInfo, node_name: str) -> None:
        self._unplace(info.uid)
        self._place(info, node_name)
        self._assumed[info.uid] = False

    def finish_binding(self, uid: str) -> None:
        if uid in self._assumed:
            self._assumed[uid] = True

    def forget_pod(self, uid: str) -> None:
        if self._assumed.pop(uid, None) is not None:
            self._unplace(uid)

    def is_assumed(self, uid: str) -> bool:
        return uid in self._assumed

    def is_assumed_or_bound(self, uid: str) -> bool:
        return uid in self._pod_nodes

    def node_of(self, uid: str) -> str | None:
        return self._pod_nodes.get(uid)

    def add_pod(self, pod: Obj) -> None:
        """A pod bound to a node (from the informer); confirms an assumed pod."""
        node_name = (pod.get("spec") or {}).get("nodeName") or ""
        if not node_name or _terminal(pod):
            return
        uid = (pod.get("metadata") or {}).get("uid", "")
        info = self._confirmed_info(uid, pod, node_name) or PodInfo(pod)
        self._assumed.pop(uid, None)
        self._unplace(uid)
        self._place(info, node_name)

    def _confirmed_info(self, uid: str, pod: Obj, node_name: str) -> PodInfo | None:
        """The assumed pod's info carried over to its bound version (the binding only sets
        ``spec.nodeName``), or None when the pod was not assumed on this node."""
        if uid not in self._assumed or self._pod_nodes.get(uid) != node_name:
            return None
        node = self._nodes.get(node_name)
        assumed = node.pods.get(uid) if node is not None else None
        if assumed is None:
            return None
        spec = dict(pod.get("spec") or {})
        if spec.pop("nodeName", None) != node_name or "nodeName" in assumed.spec:
            return None
        return assumed.for_version(pod, spec=spec)

    def update_pod(self, old: Obj, new: Obj) -> None:
        if _terminal(new):
            self.remove_pod(new)
            return
        self.add_pod(new)

    def remove_pod(self, pod: Obj) -> None:
        uid = (pod.get("metadata") or {}).get("uid", "")
        self._assumed.pop(uid, None)
        self._unplace(uid)


def _terminal(pod: Obj) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")
