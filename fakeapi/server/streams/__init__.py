"""Logs, exec, attach and port-forward of simulated pods, as kwok offers them (off by default).

:mod:`.config` reads the stream configuration (kwok's ClusterLogs, ClusterExec, ClusterAttach,
ClusterPortForward and their namespaced forms); :mod:`.routes` serves ``pods/log``, ``exec``,
``attach`` and ``portforward`` from it; :mod:`.channels` is the WebSocket channel protocol of
exec and attach, :mod:`.portforward` and :mod:`.spdy` the port-forward protocols kubectl and the
Python client speak. docs/sandbox.md describes the configuration.
"""

from fakeapi.server.streams.config import StreamConfig, StreamConfigError, load_stream_config
from fakeapi.server.streams.routes import core_with_streams

__all__ = ["StreamConfig", "StreamConfigError", "core_with_streams", "load_stream_config"]
