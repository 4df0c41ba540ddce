"""The kubelet's plugin side without a driver process: the committed protobuf modules match their
``.proto`` files, the DRA service choice and its errors (cases from upstream's
``registration_test.go``), call faults, and the plugin watcher against plugins served in this
process on unix sockets (registration, notification, refusals, dot-files, re-registration).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from fakeapi.clock import RealClock
from fakeapi.kubelet.dra.callfaults import CallFault, CallFaults, parse_call_fault
from fakeapi.kubelet.faults import faults_from_node
from fakeapi.kubelet.plugins.codegen import PROTO_DIR, comparable, generate
from fakeapi.kubelet.plugins.manager import choose_service
from fakeapi.kubelet.plugins.services import DRA_PLUGIN_TYPE, REGISTRATION, generic_handler
from fakeapi.kubelet.plugins.watcher import PluginWatcher

V1 = "k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin"
V1BETA1 = "k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin"


def test_committed_protobuf_modules_are_what_protoc_makes_of_the_proto_files(
    tmp_path: Path,
) -> None:
    for generated in generate(tmp_path):
        committed = PROTO_DIR / generated.name
        assert comparable(committed.read_text()) == comparable(generated.read_text()), (
            f"{committed.name} is stale: python -m fakeapi.kubelet.plugins.codegen"
        )


@pytest.mark.parametrize(
    ("versions", "chosen"),
    [
        ([V1], V1),
        ([V1BETA1], V1BETA1),
        ([V1, V1BETA1], V1),
        # the plugin's order decides, as upstream's loop over the plugin's list
        ([V1BETA1, V1], V1BETA1),
        (["v1.DRAResourceHealth", V1BETA1], V1BETA1),
    ],
)
def test_the_first_dra_service_the_plugin_lists_that_the_kubelet_speaks_is_chosen(
    versions: list[str], chosen: str
) -> None:
    assert choose_service(versions).name == chosen


@pytest.mark.parametrize(
    ("versions", "message"),
    [
        ([], "empty list of supported gRPC services (aka supported versions)"),
        (["v1alpha4"], 'none of services supported by the plugin (["v1alpha4"]) are supported by '
         f'the kubelet (["{V1}" "{V1BETA1}"])'),
    ],
)
def test_a_plugin_without_a_dra_service_the_kubelet_speaks_is_refused(
    versions: list[str], message: str
) -> None:
    with pytest.raises(ValueError) as error:
        choose_service(versions)
    assert str(error.value) == message


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("fail", CallFault(error="injected failure")),
        ("fail:out of memory", CallFault(error="out of memory")),
        ("delay:5s", CallFault(delay=5.0)),
        ("delay:0.5", CallFault(delay=0.5)),
    ],
)
def test_call_faults_parse(text: str, fault: CallFault) -> None:
    assert parse_call_fault(text) == fault


def test_a_python_call_fault_is_used_up_and_an_annotated_one_stands() -> None:
    faults = CallFaults()
    faults.add("prepare", "default/a", CallFault(error="once"))
    faults.set_standing("prepare", {"default/b": CallFault(delay=3.0)})
    assert faults.take("prepare", ["default/a", "default/b"]) == (3.0, {"default/a": "once"})
    assert faults.take("prepare", ["default/a", "default/b"]) == (3.0, {})
    assert faults.take("unprepare", ["default/a", "default/b"]) == (0.0, {})


def test_node_annotations_name_call_faults_and_a_restart_token() -> None:
    faults = faults_from_node({"metadata": {"annotations": {
        "fakeapi.dev/fault-prepare": "default/a=fail:boom, default/b=delay:2s, bad=fail",
        "fakeapi.dev/fault-unprepare": "ns/c=nonsense",
        "fakeapi.dev/restart-kubelet": "2026-01-01T00:00:00Z",
    }}})
    assert faults.prepare == {"default/a": CallFault(error="boom"),
                              "default/b": CallFault(delay=2.0)}
    assert faults.unprepare == {}
    assert faults.restart_token == "2026-01-01T00:00:00Z"


# --- the plugin watcher ------------------------------------------------------------------------
class Handler:
    """A registration handler that records what the watcher asked."""

    def __init__(self, refuse: str = "") -> None:
        self.refuse = refuse
        self.calls: list[tuple[str, ...]] = []

    def validate(self, name: str, endpoint: str, versions: list[str]) -> None:
        if self.refuse:
            raise ValueError(self.refuse)

    async def register(self, name: str, endpoint: str, versions: list[str]) -> None:
        self.calls.append(("register", name, endpoint, *versions))

    async def deregister(self, name: str, endpoint: str) -> None:
        self.calls.append(("deregister", name, endpoint))


class Plugin:
    """A registration socket served in this process."""

    def __init__(self, path: Path, *, plugin_type: str = DRA_PLUGIN_TYPE) -> None:
        self.path = path
        self.type = plugin_type
        self.statuses: list[tuple[bool, str]] = []
        self.server: Any = None

    async def start(self) -> None:
        pb = REGISTRATION.messages

        async def get_info(request: Any, context: Any) -> Any:
            return pb.PluginInfo(type=self.type, name="gpu.example.com", endpoint="",
                                 supported_versions=[V1])

        async def notify(request: Any, context: Any) -> Any:
            self.statuses.append((request.plugin_registered, request.error))
            return pb.RegistrationStatusResponse()

        self.server = grpc.aio.server()
        self.server.add_generic_rpc_handlers((generic_handler(REGISTRATION.name, {
            REGISTRATION.get_info: get_info, REGISTRATION.notify_registration_status: notify}),))
        self.server.add_insecure_port(f"unix:{self.path}")
        await self.server.start()

    async def stop(self) -> None:
        await self.server.stop(None)
        self.path.unlink(missing_ok=True)


@pytest.fixture
def registry() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="kp-"))  # socket paths must stay short
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
async def plugins() -> AsyncIterator[list[Plugin]]:
    started: list[Plugin] = []
    yield started
    for plugin in started:
        await plugin.stop()


async def serve(plugins: list[Plugin], path: Path, **options: Any) -> Plugin:
    plugin = Plugin(path, **options)
    await plugin.start()
    plugins.append(plugin)
    return plugin


async def test_a_dra_plugin_socket_is_registered_and_told_so(
    registry: Path, plugins: list[Plugin]
) -> None:
    handler = Handler()
    watcher = PluginWatcher(directory=registry, handlers={DRA_PLUGIN_TYPE: handler},
                            clock=RealClock())
    socket = registry / "gpu.example.com-reg.sock"
    plugin = await serve(plugins, socket)
    await watcher.sync()
    # the endpoint defaults to the registration socket itself
    assert handler.calls == [("register", "gpu.example.com", str(socket), V1)]
    assert plugin.statuses == [(True, "")]
    assert watcher.registered() == {str(socket): ("gpu.example.com", str(socket))}

    await plugin.stop()
    await watcher.sync()
    assert handler.calls[-1] == ("deregister", "gpu.example.com", str(socket))
    assert watcher.registered() == {}


async def test_a_plugin_of_a_type_without_handler_is_told_why_it_is_refused(
    registry: Path, plugins: list[Plugin]
) -> None:
    watcher = PluginWatcher(directory=registry, handlers={DRA_PLUGIN_TYPE: Handler()},
                            clock=RealClock())
    socket = registry / "csi-reg.sock"
    plugin = await serve(plugins, socket, plugin_type="CSIPlugin")
    await watcher.sync()
    assert plugin.statuses == [(False, "RegisterPlugin error -- no handler registered for plugin "
                                       f"type: CSIPlugin at socket {socket}")]


async def test_a_plugin_the_handler_refuses_is_told_the_validation_error(
    registry: Path, plugins: list[Plugin]
) -> None:
    watcher = PluginWatcher(directory=registry, handlers={DRA_PLUGIN_TYPE: Handler("no good")},
                            clock=RealClock())
    plugin = await serve(plugins, registry / "gpu-reg.sock")
    await watcher.sync()
    assert plugin.statuses == [
        (False, "RegisterPlugin error -- plugin validation failed with err: no good")]
    assert watcher.history[-1].registered is False


async def test_dot_files_are_not_plugins(registry: Path, plugins: list[Plugin]) -> None:
    handler = Handler()
    watcher = PluginWatcher(directory=registry, handlers={DRA_PLUGIN_TYPE: handler},
                            clock=RealClock())
    plugin = await serve(plugins, registry / ".hidden-reg.sock")
    await watcher.sync()
    assert handler.calls == []
    assert plugin.statuses == []
