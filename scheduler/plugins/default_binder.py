"""DefaultBinder: bind through ``POST pods/{name}/binding``, as kube-scheduler does."""

from __future__ import annotations

from fakeapi.client import PODS, Client
from fakeapi.objects import Obj
from fakeapi.scheduler.framework.cycle_state import CycleState
from fakeapi.scheduler.framework.interface import Handle
from fakeapi.scheduler.framework.status import Status, as_error

__all__ = ["DefaultBinder", "NAME"]

NAME = "DefaultBinder"


class DefaultBinder:
    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.client: Client = handle.client

    async def bind(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        meta = pod.get("metadata") or {}
        body = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {
                "name": meta.get("name"),
                "namespace": meta.get("namespace"),
                "uid": meta.get("uid"),
            },
            "target": {"apiVersion": "v1", "kind": "Node", "name": node_name},
        }
        try:
            await self.client.create_subresource(
                PODS,
                name=str(meta.get("name")),
                namespace=str(meta.get("namespace")),
                subresource="binding",
                body=body,
            )
        except Exception as exc:
            return as_error(exc)
        return None
