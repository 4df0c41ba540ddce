"""The gRPC services of the kubelet's plugin APIs: names, methods and their messages, once.

Upstream generates a client and a server stub per service; fakeapi names each method here with
its request and response types instead, and builds both sides from that with grpc's generic
API (``channel.unary_unary`` / ``grpc.method_handlers_generic_handler``). That keeps one
definition for the kubelet's calls, for the example driver of the tests and for any plugin
written in Python against fakeapi, without generated stubs and the grpcio version check they
carry.

Service names are ``<proto package>.<service>``, which is also how a DRA plugin lists what it
supports in ``PluginInfo.supported_versions`` (upstream's ``DRAPluginService`` constants).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import grpc

from fakeapi.kubelet.plugins.proto import (
    dra_v1_pb2,
    dra_v1beta1_pb2,
    drahealth_v1_pb2,
    drahealth_v1alpha1_pb2,
    pluginregistration_v1_pb2,
)

__all__ = [
    "DRA_PLUGIN_TYPE",
    "DRA_SERVICES",
    "DRA_V1",
    "DRA_V1BETA1",
    "HEALTH_SERVICES",
    "HEALTH_V1",
    "HEALTH_V1ALPHA1",
    "REGISTRATION",
    "DRAService",
    "HealthService",
    "Method",
    "RegistrationService",
    "generic_handler",
    "go_error",
]

#: ``PluginInfo.type`` of a DRA driver's kubelet plugin
DRA_PLUGIN_TYPE = "DRAPlugin"


@dataclass(frozen=True, slots=True)
class Method:
    """One RPC: its service, name and message types."""

    service: str
    name: str
    request: Any
    response: Any
    server_streaming: bool = False

    @property
    def path(self) -> str:
        return f"/{self.service}/{self.name}"

    def client(self, channel: Any) -> Any:
        """A callable for this method on ``channel`` (a ``grpc.aio`` or plain channel)."""
        make = channel.unary_stream if self.server_streaming else channel.unary_unary
        return make(
            self.path,
            request_serializer=self.request.SerializeToString,
            response_deserializer=self.response.FromString,
        )

    def handler(self, behaviour: Callable[..., Any]) -> Any:
        """The server side of this method, answered by ``behaviour(request, context)``."""
        make = (
            grpc.unary_stream_rpc_method_handler
            if self.server_streaming
            else grpc.unary_unary_rpc_method_handler
        )
        return make(
            behaviour,
            request_deserializer=self.request.FromString,
            response_serializer=self.response.SerializeToString,
        )


@dataclass(frozen=True, slots=True)
class RegistrationService:
    """``pluginregistration.Registration``: served on a plugin's registration socket."""

    name: str
    messages: Any
    get_info: Method
    notify_registration_status: Method


@dataclass(frozen=True, slots=True)
class DRAService:
    """``k8s.io.kubelet.pkg.apis.dra.<version>.DRAPlugin``: prepare and unprepare claims."""

    name: str
    version: str
    messages: Any
    node_prepare_resources: Method
    node_unprepare_resources: Method


@dataclass(frozen=True, slots=True)
class HealthService:
    """``<version>.DRAResourceHealth``: the device health stream of KEP-4680."""

    name: str
    version: str
    messages: Any
    node_watch_resources: Method


def _registration() -> RegistrationService:
    pb = pluginregistration_v1_pb2
    name = "pluginregistration.Registration"
    return RegistrationService(
        name=name,
        messages=pb,
        get_info=Method(name, "GetInfo", pb.InfoRequest, pb.PluginInfo),
        notify_registration_status=Method(
            name, "NotifyRegistrationStatus", pb.RegistrationStatus, pb.RegistrationStatusResponse
        ),
    )


def _dra(pb: Any, version: str) -> DRAService:
    name = f"k8s.io.kubelet.pkg.apis.dra.{version}.DRAPlugin"
    return DRAService(
        name=name,
        version=version,
        messages=pb,
        node_prepare_resources=Method(
            name, "NodePrepareResources", pb.NodePrepareResourcesRequest,
            pb.NodePrepareResourcesResponse,
        ),
        node_unprepare_resources=Method(
            name, "NodeUnprepareResources", pb.NodeUnprepareResourcesRequest,
            pb.NodeUnprepareResourcesResponse,
        ),
    )


def _health(pb: Any, version: str) -> HealthService:
    name = f"{version}.DRAResourceHealth"
    return HealthService(
        name=name,
        version=version,
        messages=pb,
        node_watch_resources=Method(
            name, "NodeWatchResources", pb.NodeWatchResourcesRequest,
            pb.NodeWatchResourcesResponse, server_streaming=True,
        ),
    )


REGISTRATION = _registration()
DRA_V1 = _dra(dra_v1_pb2, "v1")
DRA_V1BETA1 = _dra(dra_v1beta1_pb2, "v1beta1")
#: the DRA services the kubelet speaks, newest first (upstream's ``servicesSupportedByKubelet``)
DRA_SERVICES: tuple[DRAService, ...] = (DRA_V1, DRA_V1BETA1)
HEALTH_V1 = _health(drahealth_v1_pb2, "v1")
HEALTH_V1ALPHA1 = _health(drahealth_v1alpha1_pb2, "v1alpha1")
#: the health services the kubelet subscribes to, newest first
HEALTH_SERVICES: tuple[HealthService, ...] = (HEALTH_V1, HEALTH_V1ALPHA1)


def generic_handler(service: str, methods: Mapping[Method, Callable[..., Any]]) -> Any:
    """A ``grpc`` generic handler serving ``methods`` (each answered by its behaviour)."""
    return grpc.method_handlers_generic_handler(
        service, {method.name: method.handler(behaviour) for method, behaviour in methods.items()}
    )


#: Go's names of gRPC status codes, as ``status.Code(err).String()`` prints them
_GO_CODES = {
    "OK": "OK",
    "CANCELLED": "Canceled",
    "UNKNOWN": "Unknown",
    "INVALID_ARGUMENT": "InvalidArgument",
    "DEADLINE_EXCEEDED": "DeadlineExceeded",
    "NOT_FOUND": "NotFound",
    "ALREADY_EXISTS": "AlreadyExists",
    "PERMISSION_DENIED": "PermissionDenied",
    "RESOURCE_EXHAUSTED": "ResourceExhausted",
    "FAILED_PRECONDITION": "FailedPrecondition",
    "ABORTED": "Aborted",
    "OUT_OF_RANGE": "OutOfRange",
    "UNIMPLEMENTED": "Unimplemented",
    "INTERNAL": "Internal",
    "UNAVAILABLE": "Unavailable",
    "DATA_LOSS": "DataLoss",
    "UNAUTHENTICATED": "Unauthenticated",
}


def go_error(code: str, details: str) -> str:
    """A gRPC error as a Go client prints it (``rpc error: code = Unavailable desc = ...``),
    the words upstream's kubelet puts into events and errors."""
    return f"rpc error: code = {_GO_CODES.get(code, code)} desc = {details}"
