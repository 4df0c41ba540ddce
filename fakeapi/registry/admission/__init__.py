"""Mutating admission as kube-apiserver runs it: NodeRestriction (with the Node authorizer),
Priority, DefaultTolerationSeconds, then PodGroupProtection; ServiceAllocation stands in for the
Service storage's allocators."""

from fakeapi.registry.admission.chain import AdmissionChain, RegistryReader, default_admission
from fakeapi.registry.admission.default_toleration_seconds import DefaultTolerationSeconds
from fakeapi.registry.admission.interface import (
    AdmissionPlugin,
    Attributes,
    ObjectReader,
    Operation,
)
from fakeapi.registry.admission.node_restriction import NodeRestriction
from fakeapi.registry.admission.podgroup_protection import PodGroupProtection
from fakeapi.registry.admission.priority import Priority
from fakeapi.registry.admission.service_allocation import ServiceAllocation

__all__ = [
    "AdmissionChain",
    "AdmissionPlugin",
    "Attributes",
    "DefaultTolerationSeconds",
    "NodeRestriction",
    "ObjectReader",
    "Operation",
    "PodGroupProtection",
    "Priority",
    "RegistryReader",
    "ServiceAllocation",
    "default_admission",
]
