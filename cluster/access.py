"""How a test reaches an in-process cluster from outside: its URL, kubeconfig, the official client,
and the failure report read straight from the registry.

The first room of :class:`~fakeapi.cluster.assembler.Cluster` (the others: ``wiring`` for the
components, ``nodes`` for the simulated nodes, ``assembler`` for start and stop). The report is
synchronous, so that pytest's hooks can call it from any thread: it reads the registry rather
than asking the API.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from fakeapi.client import EVENTS
from fakeapi.cluster.handle import ClusterHandle
from fakeapi.cluster.report import event_time, format_failure_report
from fakeapi.cluster.supervision import ComponentError
from fakeapi.registry.options import ListOptions

if TYPE_CHECKING:
    from fakeapi.registry.store import GenericStore
    from fakeapi.server.runner import ApiServer

__all__ = ["InProcessAccess"]

_REPORT_EVENTS = 20
_REPORT_OBJECTS = 30
_REPORT_ERRORS = 20


class InProcessAccess(ClusterHandle):
    """The URL, kubeconfig, ``kubernetes`` client and failure report of an in-process cluster."""

    registry: GenericStore
    server: ApiServer | None
    api_url: str | None
    _kubeconfig_path: Path | None
    _kubernetes: Any
    #: what the components failed at while the cluster ran (see ``fakeapi.cluster.supervision``)
    component_errors: list[ComponentError]

    @property
    def url(self) -> str:
        """The API server's URL (the cluster must have been started with ``http=True``)."""
        if self.api_url is not None:
            return self.api_url
        if self.server is None:
            raise RuntimeError("this cluster serves no HTTP: start it with http=True")
        return self.server.url

    @property
    def kubeconfig(self) -> Path:
        """A kubeconfig for kubectl and client libraries (``http=True`` only)."""
        if (self.server is None and self.api_url is None) or self._kubeconfig_path is None:
            raise RuntimeError("this cluster serves no HTTP: start it with http=True")
        return self._kubeconfig_path

    @property
    def kubernetes(self) -> Any:
        """A ``kubernetes.client.ApiClient`` for this cluster (needs the ``kubernetes`` package
        and ``http=True``): ``kubernetes.client.CoreV1Api(cluster.kubernetes)``; as the admin
        when the cluster authenticates."""
        if self._kubernetes is None:
            import kubernetes.client  # optional, and slow to import: late for start-up time

            configuration = kubernetes.client.Configuration()
            if getattr(self, "tokens", None) is not None or self.url.startswith("https"):
                import kubernetes.config  # the kubeconfig's credentials and trusted CA

                kubernetes.config.load_kube_config(  # type: ignore[no-untyped-call]
                    config_file=str(self.kubeconfig), client_configuration=configuration
                )
            else:
                configuration.host = self.url
            self._kubernetes = kubernetes.client.ApiClient(configuration)
        return self._kubernetes

    def failure_report(self) -> str:
        """Read straight from the registry: synchronous, so it works from pytest's hooks."""
        if not hasattr(self, "registry"):
            return "the cluster did not start\n"
        events_type = self.registry.resources.lookup(EVENTS.group, EVENTS.version, EVENTS.plural)
        events: list[dict[str, Any]] = []
        if events_type is not None:
            listed = self.registry.list(events_type, None, ListOptions())
            events = sorted((s.obj for s in listed.items), key=event_time)[-_REPORT_EVENTS:]
        objects = []
        for resource, namespace, name in self.touched[:_REPORT_OBJECTS]:
            rt = self.registry.resources.lookup(resource.group, resource.version, resource.plural)
            obj = None
            if rt is not None:
                try:
                    obj = self.registry.get(rt, namespace, name).obj
                except Exception:  # not found: reported as gone
                    obj = None
            objects.append((resource, namespace, name, obj))
        return format_failure_report(
            events=events, objects=objects, errors=self.component_errors[-_REPORT_ERRORS:]
        )
