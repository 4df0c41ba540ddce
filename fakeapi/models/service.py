"""core/v1 Service: a stable virtual IP and ports in front of the pods a selector picks.

fakeapi serves Services as an API object (``kubectl cluster-info``, ``kubectl get svc``, and the
headless Services workload controllers make for their pods): virtual IPs and node ports are
allocated, nothing routes traffic, and no load balancer ever reports an address.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from fakeapi.models.base import Int32, IntOrString, K8sModel, atomic_list, atomic_map, map_list
from fakeapi.models.meta import Condition, ObjectMeta

__all__ = [
    "ClientIPConfig",
    "LoadBalancerIngress",
    "LoadBalancerStatus",
    "PortStatus",
    "Service",
    "ServicePort",
    "ServiceSpec",
    "ServiceStatus",
    "SessionAffinityConfig",
]


class ServicePort(K8sModel):
    """A port the service exposes."""

    name: str | None = None
    """The port's name within the service (a DNS label); required when there are several."""
    protocol: str | None = None
    """TCP (the default), UDP or SCTP."""
    app_protocol: str | None = None
    """The application protocol of this port, a hint for implementations."""
    port: Int32
    """The port the service exposes."""
    target_port: IntOrString | None = None
    """The number or name of the port on the pods; defaults to port."""
    node_port: Int32 | None = None
    """The port on each node for NodePort and LoadBalancer services; allocated when unset."""


class ClientIPConfig(K8sModel):
    """Client IP based session affinity settings."""

    timeout_seconds: Int32 | None = None
    """Seconds a ClientIP session sticks (default 10800)."""


class SessionAffinityConfig(K8sModel):
    """Session affinity settings."""

    client_ip: ClientIPConfig | None = Field(default=None, alias="clientIP")
    """Settings of ClientIP session affinity."""


class ServiceSpec(K8sModel):
    """What the service exposes and how."""

    ports: Annotated[list[ServicePort] | None, map_list("port", "protocol")] = None
    """The ports the service exposes."""
    selector: Annotated[dict[str, str] | None, atomic_map()] = None
    """The labels of the pods traffic goes to."""
    cluster_ip: str | None = Field(default=None, alias="clusterIP")
    """The virtual IP, allocated when unset; None for a headless service."""
    cluster_ips: Annotated[list[str] | None, atomic_list()] = Field(
        default=None, alias="clusterIPs"
    )
    """The virtual IPs (the first is clusterIP)."""
    type: str | None = None
    """ClusterIP (the default), NodePort, LoadBalancer or ExternalName."""
    external_ips: Annotated[list[str] | None, atomic_list()] = Field(
        default=None, alias="externalIPs"
    )
    """IPs outside the cluster that also accept traffic for the service."""
    session_affinity: str | None = None
    """None (the default) or ClientIP."""
    load_balancer_ip: str | None = Field(default=None, alias="loadBalancerIP")
    """Deprecated: the address asked of the load balancer."""
    load_balancer_source_ranges: Annotated[list[str] | None, atomic_list()] = None
    """CIDRs the load balancer accepts traffic from."""
    external_name: str | None = None
    """The DNS name an ExternalName service is an alias of."""
    external_traffic_policy: str | None = None
    """Cluster or Local routing of traffic from outside the cluster."""
    health_check_node_port: Int32 | None = None
    """The health check node port of a LoadBalancer service with Local traffic policy."""
    publish_not_ready_addresses: bool | None = None
    """Whether endpoints of pods that are not ready are published."""
    session_affinity_config: SessionAffinityConfig | None = None
    """Session affinity settings."""
    ip_families: Annotated[list[str] | None, atomic_list()] = None
    """IPv4 and/or IPv6, in the order of clusterIPs."""
    ip_family_policy: str | None = None
    """SingleStack, PreferDualStack or RequireDualStack."""
    allocate_load_balancer_node_ports: bool | None = None
    """Whether node ports are allocated for a LoadBalancer service (default true)."""
    load_balancer_class: str | None = None
    """The load balancer implementation this service belongs to."""
    internal_traffic_policy: str | None = None
    """Cluster or Local routing of traffic from inside the cluster."""
    traffic_distribution: str | None = None
    """A preference for how traffic is distributed to endpoints (PreferClose...)."""


class PortStatus(K8sModel):
    """The state of one port of a load balancer ingress point."""

    port: Int32
    """The port number."""
    protocol: str
    """TCP, UDP or SCTP."""
    error: str | None = None
    """Why the port is not served, if it is not."""


class LoadBalancerIngress(K8sModel):
    """An ingress point of a load balancer."""

    ip: str | None = None
    """Its IP address."""
    hostname: str | None = None
    """Its DNS name."""
    ip_mode: str | None = None
    """VIP or Proxy."""
    ports: Annotated[list[PortStatus] | None, atomic_list()] = None
    """The state of its ports."""


class LoadBalancerStatus(K8sModel):
    """The state of a load balancer."""

    ingress: Annotated[list[LoadBalancerIngress] | None, atomic_list()] = None
    """Its ingress points."""


class ServiceStatus(K8sModel):
    """The state of a service."""

    load_balancer: LoadBalancerStatus | None = None
    """The load balancer's state, if there is one."""
    conditions: Annotated[list[Condition] | None, map_list("type")] = None
    """The service's conditions."""


class Service(K8sModel):
    """A named set of ports in front of the pods a selector picks."""

    api_version: str | None = None
    """The versioned schema of this object, e.g. v1."""
    kind: str | None = None
    """The REST resource type this object represents, in CamelCase."""
    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: ServiceSpec | None = None
    """What the service exposes and how."""
    status: ServiceStatus | None = None
    """The state of the service."""
