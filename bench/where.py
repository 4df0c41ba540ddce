"""Where a sandbox process's time goes, by actor: py-spy samples grouped by the task they step.

``bench_scheduler.py --black-box --where`` samples each sandbox process with ``py-spy record
--format raw`` (when py-spy is installed) for the measured window, then charges every sample to
the first actor its stack passes through, outermost first: an HTTP request the API server
handles (a watch stream apart), the scheduler's scheduling loop or a binding cycle, a
controller's worker (named by the controller's class), an informer, the Event writer. Samples
inside the registry (``GenericStore``) are also counted apart, so that one-process runs show how
much of each component's time is the API server's work done on its behalf. A sample in the
loop's ``select`` is the loop waiting. py-spy counts a thread that is runnable but not running
(on a machine shared by more processes than cores) as busy: shares are of the samples, not of
CPU seconds (the CPU lines of the run give those).
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
from collections import Counter
from pathlib import Path

__all__ = ["Sampler", "available"]

#: (pattern in a frame, actor): the first match from the outermost frame wins
ACTORS: tuple[tuple[str, str], ...] = (
    ("stream_watch ", "API server: watch streams"),
    ("RequestHandler._handle_request ", "API server: HTTP requests"),
    ("RequestHandler.data_received ", "API server: reading requests"),
    ("Scheduler._binding_cycle ", "scheduler: binding cycles"),
    ("Scheduler._run ", "scheduler: scheduling loop"),
    ("Informer._run ", "informers"),
    ("QueuedEventWriter.", "Event writes"),
    ("EpollSelector.select ", "the loop waiting (select)"),
    ("ClientRequest.", "HTTP client (aiohttp's own tasks)"),
    ("_SelectorSocketTransport._read_ready", "socket reads into protocols"),
)
#: for stacks py-spy could not unwind to their task: a frame that still says who it was
FALLBACKS: tuple[tuple[str, str], ...] = (
    ("Framework.run_pre_bind ", "scheduler: binding cycles"),
    ("Framework.run_bind ", "scheduler: binding cycles"),
    ("Scheduler.schedule_one ", "scheduler: scheduling loop"),
    ("Informer.", "informers"),
    ("InProcessTransport.", "in-process API calls (caller not unwound)"),
)
_CONTROLLER = re.compile(r"^(\w+Controller)\.")
_REGISTRY = "(fakeapi/registry/"


def available() -> bool:
    return shutil.which("py-spy") is not None


class Sampler:
    """``py-spy record`` on one process until :meth:`stop`; then :meth:`report`."""

    def __init__(self, pid: int, out: Path, *, rate: int = 100) -> None:
        self.out = out
        self.process = subprocess.Popen(
            ["py-spy", "record", "--pid", str(pid), "--format", "raw", "--output", str(out),
             "--rate", str(rate), "--nonblocking"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        self.process.wait(60)

    def report(self, title: str) -> None:
        by_actor: Counter[str] = Counter()
        in_registry: Counter[str] = Counter()
        if not self.out.exists():
            print(f"    {title}: py-spy wrote no samples")
            return
        for line in self.out.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            if not count.isdigit():
                continue
            frames = stack.split(";")
            actor = _actor(frames)
            by_actor[actor] += int(count)
            if any(_REGISTRY in frame for frame in frames):
                in_registry[actor] += int(count)
        total = sum(by_actor.values()) or 1
        print(f"    {title}, by actor ({total} py-spy samples; in the registry: the API "
              "server's work inside it):")
        for actor, count in by_actor.most_common():
            if count < 0.01 * total:
                continue
            registry = in_registry[actor]
            inside = f"  (in the registry {100 * registry / total:3.0f}%)" if registry else ""
            print(f"      {actor:<52} {100 * count / total:4.0f}%{inside}")


def _actor(frames: list[str]) -> str:
    for frame in frames:
        for pattern, actor in ACTORS:
            if frame.startswith(pattern):
                return actor
        if frame.startswith(("Controller._worker ", "Controller._process ")):
            names = (_CONTROLLER.match(f) for f in frames)
            found = next((m.group(1) for m in names if m is not None), "a controller")
            return f"controllers: {found}"
    for frame in frames:
        for pattern, actor in FALLBACKS:
            if frame.startswith(pattern):
                return actor
    last = frames[-1] if frames else ""
    if last.startswith(("Handle._run ", "BaseEventLoop._run_once ")):
        return "the event loop itself"
    return "other (callbacks, collector)"
