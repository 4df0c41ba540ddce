"""A kopf operator inside the cluster: ``Cluster(extra_components=[kopf_operator(...)])``.

kopf talks to the API over HTTP with its own client, so the operator runs in-process, on the
cluster's event loop, against the cluster's HTTP endpoint (the pytest fixtures always serve
one). What it takes to run kopf as a guest in someone else's loop:

- **Login.** The operator logs in through one ``@kopf.on.login`` handler fakeapi adds to the
  operator's registry (once per registry), which answers with the URL of the cluster the
  registry runs against now; a registry runs against one cluster at a time.
- **No CRDs.** fakeapi serves no CustomResourceDefinitions yet, so the operator runs
  standalone (``settings.peering.standalone``: no peering objects) and without scanning
  (``settings.scanning.disabled``: no CRD or namespace watches); it watches built-in kinds
  (``@kopf.on.create("v1", "configmaps")``). Pass your own ``settings`` to choose otherwise.
- **Only its own tasks.** ``kopf.operator()`` ends by cancelling every task of the loop created
  after it started — the cluster's included — so the helper uses ``kopf.spawn_tasks`` and stops
  the operator's root tasks itself (each ends the tasks it spawned). kopf sets OS signal
  handlers when it runs on the main thread; the ones the loop had before are put back.
- **Errors in the report.** What kopf logs at ERROR while the operator runs (a handler that
  raised, say) is recorded for the test's failure report, as is an operator that stops by itself.

kopf is optional: it is imported when an operator starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import weakref
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from fakeapi.cluster.components import Component, ComponentContext

if TYPE_CHECKING:
    import kopf

__all__ = ["KopfOperator", "kopf_operator"]

#: how long stop() waits for the operator's tasks to end before cancelling them
STOP_TIMEOUT = 10.0
_LOGIN_ID = "fakeapi-login"
#: the cluster URL each registry runs against now (its login handler answers with it)
_SERVERS: weakref.WeakKeyDictionary[Any, tuple[str, str]] = weakref.WeakKeyDictionary()
#: registries that have fakeapi's login handler
_LOGGED_IN: weakref.WeakSet[Any] = weakref.WeakSet()


def _add_login(registry: kopf.OperatorRegistry) -> None:
    import kopf

    if registry in _LOGGED_IN:
        return
    ref = weakref.ref(registry)

    def login(**_: Any) -> kopf.ConnectionInfo | None:
        target = ref()
        server = _SERVERS.get(target) if target is not None else None
        if server is None:
            return None
        url, namespace = server
        # fakeapi serves plain HTTP without authentication
        return kopf.ConnectionInfo(server=url, insecure=True, default_namespace=namespace)

    kopf.on.login(registry=registry, id=_LOGIN_ID)(login)
    _LOGGED_IN.add(registry)


class _ErrorsToReport(logging.Handler):
    """kopf's ERROR records, into the component's supervisor."""

    def __init__(self, context: ComponentContext) -> None:
        super().__init__(level=logging.ERROR)
        self._context = context

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        self._context.supervisor.record(f"kopf: {record.getMessage()}", exc)


def _signal_handlers(loop: asyncio.AbstractEventLoop) -> dict[int, Any]:
    # asyncio keeps a Unix loop's handlers there and offers no way to read them back
    return dict(getattr(loop, "_signal_handlers", None) or {})


def _restore_signal_handlers(loop: asyncio.AbstractEventLoop, before: dict[int, Any]) -> None:
    now = _signal_handlers(loop)
    for sig in (signal.SIGINT, signal.SIGTERM):
        previous = before.get(sig)
        if now.get(sig) is previous:
            continue
        if previous is None:
            loop.remove_signal_handler(sig)
        else:
            loop.add_signal_handler(sig, previous._callback, *previous._args)


class _KopfComponent:
    """One running operator (see the module docstring)."""

    def __init__(self, context: ComponentContext, options: KopfOperator) -> None:
        self.context = context
        self.options = options
        self._roots: Collection[asyncio.Task[Any]] = ()
        self._stop_flag = asyncio.Event()
        self._handler = _ErrorsToReport(context)
        self._registry: Any = None
        self._stopping = False

    async def start(self) -> None:
        import kopf

        if self.context.url is None:
            raise RuntimeError(
                "kopf_operator runs the operator against the cluster's HTTP endpoint: start the "
                "cluster with http=True (the pytest fixtures always serve HTTP)"
            )
        registry = self.options.registry or kopf.get_default_registry()
        running = _SERVERS.get(registry)
        if running is not None and running[0] != self.context.url:
            raise RuntimeError(
                f"this kopf registry already runs an operator against {running[0]}: give each "
                "cluster's operator its own kopf.OperatorRegistry"
            )
        self._registry = registry
        _SERVERS[registry] = (self.context.url, self.options.namespace)
        _add_login(registry)
        settings = self.options.settings
        if settings is None:
            settings = kopf.OperatorSettings()
            settings.peering.standalone = True
            settings.scanning.disabled = True
        logging.getLogger("kopf").addHandler(self._handler)
        ready = asyncio.Event()
        loop = asyncio.get_running_loop()
        handlers = _signal_handlers(loop)
        # a task of its own: kopf's context variables stay in it, away from the caller's
        spawning = self.context.spawn(
            kopf.spawn_tasks(
                registry=registry,
                settings=settings,
                clusterwide=self.options.clusterwide,
                namespaces=self.options.namespaces,
                memo=self.options.memo,
                stop_flag=self._stop_flag,
                ready_flag=ready,
            ),
            name="spawn",
        )
        try:
            self._roots = await spawning
        finally:
            _restore_signal_handlers(loop, handlers)
        self.context.spawn(self._watch_roots(), name="roots")
        async with asyncio.timeout(self.options.ready_timeout):
            await ready.wait()

    async def _watch_roots(self) -> None:
        """An operator whose root task ends by itself has stopped: say so in the report."""
        done, _ = await asyncio.wait(self._roots, return_when=asyncio.FIRST_COMPLETED)
        if not self._stopping:
            task = next(iter(done))
            exc = None if task.cancelled() else task.exception()
            self.context.supervisor.record(
                f"the kopf operator stopped by itself ({task.get_name()} ended)", exc
            )

    async def stop(self) -> None:
        self._stopping = True
        self._stop_flag.set()
        roots = list(self._roots)
        try:
            if roots:
                _, pending = await asyncio.wait(roots, timeout=STOP_TIMEOUT,
                                                return_when=asyncio.FIRST_COMPLETED)
                for task in pending:  # the stop-flag checker ended: the others end now
                    task.cancel()
                _, late = await asyncio.wait(roots, timeout=STOP_TIMEOUT)
                for task in late:
                    task.cancel()
                for task in roots:
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task
        finally:
            logging.getLogger("kopf").removeHandler(self._handler)
            if self._registry is not None and _SERVERS.get(self._registry, ("",))[0] == \
                    self.context.url:
                del _SERVERS[self._registry]


class KopfOperator:
    """A component factory for a kopf operator (see :func:`kopf_operator`)."""

    def __init__(
        self,
        *,
        registry: kopf.OperatorRegistry | None,
        settings: kopf.OperatorSettings | None,
        namespaces: Collection[str],
        clusterwide: bool | None,
        memo: object | None,
        name: str,
        namespace: str,
        ready_timeout: float,
    ) -> None:
        if clusterwide and namespaces:
            raise ValueError("a kopf operator is cluster-wide or namespaced, not both")
        self.registry = registry
        self.settings = settings
        self.namespaces = tuple(namespaces)
        self.clusterwide = not namespaces if clusterwide is None else clusterwide
        self.memo = memo
        #: the component's name (its field manager; kopf writes with its own client as "kopf")
        self.component_name = name
        self.namespace = namespace
        self.ready_timeout = ready_timeout

    def __call__(self, context: ComponentContext) -> Component:
        return _KopfComponent(context, self)


def kopf_operator(
    *,
    registry: kopf.OperatorRegistry | None = None,
    settings: kopf.OperatorSettings | None = None,
    namespaces: Collection[str] = (),
    clusterwide: bool | None = None,
    memo: object | None = None,
    name: str = "kopf-operator",
    namespace: str = "default",
    ready_timeout: float = 30.0,
) -> KopfOperator:
    """A factory for ``extra_components`` that runs a kopf operator in the cluster.

    ``registry`` holds the operator's handlers (default: kopf's global registry, where
    ``@kopf.on...`` puts them without ``registry=``); ``settings`` default to standalone with
    scanning off (no CRDs needed); ``namespaces`` makes it namespaced (else cluster-wide);
    ``memo`` is passed to the handlers; ``namespace`` is where kopf posts events about
    cluster-scoped objects. The component starts once the operator is ready (its startup
    handlers ran), within ``ready_timeout`` seconds.
    """
    return KopfOperator(
        registry=registry, settings=settings, namespaces=namespaces, clusterwide=clusterwide,
        memo=memo, name=name, namespace=namespace, ready_timeout=ready_timeout,
    )
