"""The pods preemption nominated to a node, by node (upstream's nominator).

A pod that preempted others waits, with ``status.nominatedNodeName``, until its victims are gone.
Meanwhile the room it made must not go to a pod of lower or equal priority: Filter checks such a
pod against each node with the nominated pods of at least its priority placed there as well
(upstream's ``RunFilterPluginsWithNominatedPods``). The nominator follows the pod informer: a
nomination counts while the pod is unbound and not being deleted.
"""

from __future__ import annotations

from fakeapi.objects import Obj, meta
from fakeapi.scheduler.framework.types import PodInfo

__all__ = ["Nominator", "pod_priority"]



def pod_priority(pod: Obj) -> int:
    """``spec.priority`` (0 when unset, as upstream's ``PodPriority``)."""
    value = (pod.get("spec") or {}).get("priority")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class Nominator:
    def __init__(self) -> None:
        self._by_node: dict[str, dict[str, PodInfo]] = {}
        self._node_of: dict[str, str] = {}

    def __bool__(self) -> bool:
        return bool(self._node_of)

    def observe(self, pod: Obj) -> None:
        """The pod as the informer has it now: (re)nominated, or no longer."""
        metadata = meta(pod)
        uid = metadata.get("uid", "")
        node = (pod.get("status") or {}).get("nominatedNodeName") or ""
        if (pod.get("spec") or {}).get("nodeName") or metadata.get("deletionTimestamp"):
            node = ""
        if self._node_of.get(uid) == node and (not node or uid in self._by_node[node]):
            if node:
                self._by_node[node][uid] = PodInfo(pod)  # the newer object
            return
        self.forget(uid)
        if node:
            self._node_of[uid] = node
            self._by_node.setdefault(node, {})[uid] = PodInfo(pod)

    def forget(self, uid: str) -> None:
        node = self._node_of.pop(uid, None)
        if node is not None:
            pods = self._by_node[node]
            pods.pop(uid, None)
            if not pods:
                del self._by_node[node]

    def ahead_of(self, pod: Obj, node: str) -> list[PodInfo]:
        """The pods nominated to ``node`` that come before ``pod``: of at least its priority,
        other than itself."""
        nominated = self._by_node.get(node)
        if not nominated:
            return []
        uid = meta(pod).get("uid", "")
        priority = pod_priority(pod)
        return [
            info for info in nominated.values()
            if info.uid != uid and pod_priority(info.pod) >= priority
        ]
