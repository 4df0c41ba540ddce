"""Node registration and heartbeats: the Node object and its Lease in ``kube-node-lease``.

What a real kubelet does for its node, on the injected clock:

- **Register** the Node on start (create, or on restart update labels and status): capacity and
  allocatable (cpu, memory, pods, ephemeral-storage), the well-known labels
  (``kubernetes.io/hostname``, ``kubernetes.io/os``, ``kubernetes.io/arch``), the four node
  conditions with upstream's reasons and messages, addresses, ``nodeInfo`` and the kubelet port.
- **Renew the Lease** (``coordination.k8s.io/v1``, namespace ``kube-node-lease``, name = node,
  owned by the Node) every :data:`LEASE_RENEW_INTERVAL` seconds with
  ``leaseDurationSeconds: 40``, as upstream (renew interval = a quarter of the duration). A
  stopped kubelet stops renewing; the node lifecycle controller then marks the node NotReady.
  The owner reference is set as upstream's ``SetNodeOwnerFunc`` sets it: whenever the Lease
  (new or renewed) has none, from the Node's *current* uid (a GET) — never a remembered one, or
  a Lease recreated after the Node was deleted and recreated would name the old Node and the
  garbage collector would delete it again and again.
- **Keep the node Ready** while alive: when the Ready condition is not ``True`` (for instance the
  lifecycle controller set it Unknown while the kubelet was stopped) the status is rewritten, and
  every :data:`NODE_STATUS_REPORT_INTERVAL` (5 minutes, upstream's
  ``nodeStatusReportFrequency``) it is reported anyway, refreshing ``lastHeartbeatTime``.
"""

from __future__ import annotations

import uuid
import zlib
from collections.abc import Mapping

from fakeapi.client import LEASES, NODES, Client, is_already_exists, is_not_found, retry_on_conflict
from fakeapi.clock import Clock
from fakeapi.objects import Obj
from fakeapi.rules.nodes import is_node_ready
from fakeapi.timefmt import format_micro_time, format_time

__all__ = [
    "DEFAULT_CAPACITY",
    "KUBELET_VERSION",
    "LEASE_DURATION_SECONDS",
    "LEASE_NAMESPACE",
    "LEASE_RENEW_INTERVAL",
    "NODE_STATUS_REPORT_INTERVAL",
    "NodeAgent",
    "node_addresses",
]


KUBELET_VERSION = "v1.37.0"
LEASE_NAMESPACE = "kube-node-lease"
LEASE_DURATION_SECONDS = 40
LEASE_RENEW_INTERVAL = 10.0
NODE_STATUS_REPORT_INTERVAL = 300.0
DEFAULT_CAPACITY: Mapping[str, str] = {
    "cpu": "32",
    "memory": "256Gi",
    "pods": "110",
    "ephemeral-storage": "500Gi",
}
_CONDITIONS = (
    ("MemoryPressure", "False", "KubeletHasSufficientMemory",
     "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
)
_UUID_NAMESPACE = uuid.UUID("0b7c3c52-57a8-4a8e-93c9-0d3a1c7e6f10")


def node_addresses(node_name: str, index: int | None = None) -> tuple[str, str]:
    """(InternalIP, podCIDR) of a node: from its index, else derived from its name."""
    n = index if index is not None else zlib.crc32(node_name.encode()) % 16384
    host = f"172.18.{(n // 250) % 256}.{n % 250 + 2}"
    cidr = f"10.{64 + (n // 256) % 64}.{n % 256}.0/24"
    return host, cidr


class NodeAgent:
    """Registers one Node and keeps its Lease and Ready condition fresh."""

    def __init__(
        self,
        *,
        client: Client,
        clock: Clock,
        node_name: str,
        capacity: Mapping[str, str] | None = None,
        labels: Mapping[str, str] | None = None,
        node_index: int | None = None,
        boot_id: str = "",
    ) -> None:
        self.client = client
        self.clock = clock
        self.node_name = node_name
        self.capacity = dict(capacity or DEFAULT_CAPACITY)
        self.labels = {
            "kubernetes.io/hostname": node_name,
            "kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
            "beta.kubernetes.io/os": "linux",
            "beta.kubernetes.io/arch": "amd64",
            **(labels or {}),
        }
        self.host_ip, self.pod_cidr = node_addresses(node_name, node_index)
        self.boot_id = boot_id or str(uuid.uuid5(_UUID_NAMESPACE, f"boot/{node_name}"))
        self.uid = ""
        self.lease_renewals = 0

    # --- the Node ----------------------------------------------------------------------------
    def status(self) -> Obj:
        now = format_time(self.clock.now())
        system_uuid = str(uuid.uuid5(_UUID_NAMESPACE, self.node_name))
        return {
            "capacity": dict(self.capacity),
            "allocatable": dict(self.capacity),
            "conditions": [
                {
                    "type": kind,
                    "status": status,
                    "reason": reason,
                    "message": message,
                    "lastHeartbeatTime": now,
                    "lastTransitionTime": now,
                }
                for kind, status, reason, message in _CONDITIONS
            ],
            "addresses": [
                {"type": "InternalIP", "address": self.host_ip},
                {"type": "Hostname", "address": self.node_name},
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "machineID": system_uuid.replace("-", ""),
                "systemUUID": system_uuid,
                "bootID": self.boot_id,
                "kernelVersion": "6.8.0-fakeapi",
                "osImage": "fakeapi simulated node",
                "containerRuntimeVersion": "containerd://2.1.0",
                "kubeletVersion": KUBELET_VERSION,
                "kubeProxyVersion": "",
                "operatingSystem": "linux",
                "architecture": "amd64",
            },
        }

    async def register(self) -> Obj:
        """Create the Node, or bring an existing one's labels and status up to date."""
        body: Obj = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": self.node_name,
                "labels": dict(self.labels),
                "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
            },
            "spec": {"podCIDR": self.pod_cidr, "podCIDRs": [self.pod_cidr]},
            "status": self.status(),
        }
        try:
            node = await self.client.create(NODES, body=body)
        except Exception as exc:
            if not is_already_exists(exc):
                raise
            node = await self.client.patch(
                NODES, name=self.node_name, patch={"metadata": {"labels": dict(self.labels)}}
            )
            node = await self.mark_ready(node)
        self.uid = str(node["metadata"].get("uid") or "")
        return node

    async def mark_ready(self, node: Obj | None = None) -> Obj:
        """Write a fresh status (all conditions as a healthy kubelet reports them)."""

        async def write() -> Obj:
            current = await self.client.get(NODES, name=self.node_name)
            old = {c.get("type"): c for c in (current.get("status") or {}).get("conditions") or []}
            status = {**(current.get("status") or {}), **self.status()}
            for condition in status["conditions"]:
                previous = old.get(condition["type"])
                if previous is not None and previous.get("status") == condition["status"]:
                    condition["lastTransitionTime"] = previous.get(
                        "lastTransitionTime", condition["lastTransitionTime"]
                    )
            current["status"] = status
            return await self.client.update_status(NODES, body=current)

        return await retry_on_conflict(write, clock=self.clock)

    @staticmethod
    def is_ready(node: Obj) -> bool:
        return is_node_ready(node)

    # --- the Lease -----------------------------------------------------------------------------
    async def _set_node_owner(self, lease: Obj) -> None:
        """Upstream's ``SetNodeOwnerFunc``: a Lease without owner references gets one to the
        Node as it is now; while there is no Node the Lease goes without (tried at each renewal)."""
        meta = lease.setdefault("metadata", {})
        if meta.get("ownerReferences"):
            return
        try:
            node = await self.client.get(NODES, name=self.node_name)
        except Exception as exc:
            if not is_not_found(exc):
                raise
            return
        meta["ownerReferences"] = [{
            "apiVersion": "v1", "kind": "Node", "name": self.node_name,
            "uid": str(node["metadata"].get("uid") or ""),
        }]

    async def renew_lease(self) -> Obj:
        """Create or renew the node's Lease (renewTime = now)."""
        now = format_micro_time(self.clock.now())
        try:
            lease = await self.client.get(LEASES, namespace=LEASE_NAMESPACE, name=self.node_name)
        except Exception as exc:
            if not is_not_found(exc):
                raise
            body: Obj = {
                "apiVersion": "coordination.k8s.io/v1",
                "kind": "Lease",
                "metadata": {"name": self.node_name, "namespace": LEASE_NAMESPACE},
                "spec": {
                    "holderIdentity": self.node_name,
                    "leaseDurationSeconds": LEASE_DURATION_SECONDS,
                    "renewTime": now,
                },
            }
            await self._set_node_owner(body)
            created = await self.client.create(LEASES, body=body)
            self.lease_renewals += 1
            return created
        lease["spec"] = {
            **(lease.get("spec") or {}),
            "holderIdentity": self.node_name,
            "leaseDurationSeconds": LEASE_DURATION_SECONDS,
            "renewTime": now,
        }
        await self._set_node_owner(lease)
        renewed = await self.client.update(LEASES, body=lease)
        self.lease_renewals += 1
        return renewed
