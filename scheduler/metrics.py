"""kube-scheduler's metrics, as prometheus-client objects in the registry the cluster passes in.

Names, labels and buckets follow upstream (``pkg/scheduler/metrics``):
``scheduler_schedule_attempts_total{result,profile}`` (result: scheduled, unschedulable, error),
``scheduler_pod_scheduling_sli_duration_seconds{attempts}`` (from the pod's first entry in the
queue until it is bound; also under the older name ``scheduler_pod_scheduling_duration_seconds``),
``scheduler_pod_scheduling_attempts`` (attempts a scheduled pod took),
``scheduler_scheduling_attempt_duration_seconds{result,profile}``,
``scheduler_preemption_attempts_total`` (every PostFilter run of DefaultPreemption),
``scheduler_preemption_victims`` (victims per preemption) and ``scheduler_pending_pods{queue}``
(active, backoff, unschedulable, gated). Without a registry the
metrics go to a private one, never to prometheus-client's global default: many clusters share one
test process. The families are registered once per registry, as :mod:`fakeapi.dra_metrics` does:
a scheduler restarted in the same cluster (or a second one beside it, under its own profile
label) records into the same families instead of registering them twice.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Mapping

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from fakeapi.dra_metrics import resourceclaim_creates

__all__ = ["SchedulerMetrics"]


def _pending_in(counts: Callable[[], Mapping[str, int]], queue: str) -> float:
    return float(counts().get(queue, 0))


def _exponential(start: float, factor: float, count: int) -> list[float]:
    return [start * factor**i for i in range(count)]


class _Families:
    """The metric families, registered once per registry."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry
        self.attempts = Counter(
            "scheduler_schedule_attempts",
            "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod "
            "could not be scheduled, while 'error' means an internal scheduler problem.",
            ["result", "profile"],
            registry=registry,
        )
        self.pod_scheduling_duration = Histogram(
            "scheduler_pod_scheduling_duration_seconds",
            "E2e latency for a pod being scheduled which may include multiple scheduling attempts.",
            ["attempts"],
            buckets=_exponential(0.01, 2, 20),
            registry=registry,
        )
        self.pod_scheduling_sli_duration = Histogram(
            "scheduler_pod_scheduling_sli_duration_seconds",
            "E2e latency for a pod being scheduled, from the time the pod enters the scheduling "
            "queue and might involve multiple scheduling attempts.",
            ["attempts"],
            buckets=_exponential(0.01, 2, 20),
            registry=registry,
        )
        self.pod_scheduling_attempts = Histogram(
            "scheduler_pod_scheduling_attempts",
            "Number of attempts to successfully schedule a pod.",
            buckets=_exponential(1, 2, 5),
            registry=registry,
        )
        self.preemption_attempts = Counter(
            "scheduler_preemption_attempts",
            "Total preemption attempts in the cluster till now",
            registry=registry,
        )
        self.preemption_victims = Histogram(
            "scheduler_preemption_victims",
            "Number of selected preemption victims for preemption initiated by a single pod",
            buckets=_exponential(1, 2, 7),
            registry=registry,
        )
        self.attempt_duration = Histogram(
            "scheduler_scheduling_attempt_duration_seconds",
            "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
            ["result", "profile"],
            buckets=_exponential(0.001, 2, 15),
            registry=registry,
        )
        self.pending = Gauge(
            "scheduler_pending_pods",
            "Number of pending pods, by the queue type. 'active' means number of pods in "
            "activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number "
            "of pods in unschedulablePods that the scheduler attempted to schedule and failed; "
            "'gated' is the number of unschedulable pods that the scheduler never attempted to "
            "schedule because they are gated.",
            ["queue"],
            registry=registry,
        )


_FAMILIES: weakref.WeakKeyDictionary[CollectorRegistry, _Families] = weakref.WeakKeyDictionary()


class SchedulerMetrics:
    """One scheduler's handles on the families of its registry (its profile's labels bound)."""

    def __init__(self, *, registry: CollectorRegistry | None, profile: str) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        self.profile = profile
        families = _FAMILIES.get(self.registry)
        if families is None:
            families = _FAMILIES[self.registry] = _Families(self.registry)
        self.attempts = families.attempts
        self.pod_scheduling_duration = families.pod_scheduling_duration
        self.pod_scheduling_sli_duration = families.pod_scheduling_sli_duration
        self.pod_scheduling_attempts = families.pod_scheduling_attempts
        self.preemption_attempts = families.preemption_attempts
        self.preemption_victims = families.preemption_victims
        self.attempt_duration = families.attempt_duration
        self.pending = families.pending
        #: shared with the resourceclaim controller (upstream's one metric since 1.37)
        self.claim_creates = resourceclaim_creates(self.registry)
        self._pending = {
            q: self.pending.labels(queue=q) for q in ("active", "backoff", "unschedulable", "gated")
        }
        self._attempts = {
            r: self.attempts.labels(result=r, profile=profile)
            for r in ("scheduled", "unschedulable", "error")
        }
        self._attempt_duration = {
            r: self.attempt_duration.labels(result=r, profile=profile)
            for r in ("scheduled", "unschedulable", "error")
        }
        #: the e2e duration histograms' children by ``attempts`` label, made when first used
        self._durations: dict[str, tuple[Histogram, Histogram]] = {}

    def count_pending(self, counts: Callable[[], Mapping[str, int]]) -> None:
        """Read ``scheduler_pending_pods`` from ``counts`` (the queue's) whenever it is scraped:
        the queue changes with every pod, the gauge is read now and then."""
        for queue, gauge in self._pending.items():
            gauge.set_function(functools.partial(_pending_in, counts, queue))

    def attempt(self, result: str, seconds: float) -> None:
        self._attempts[result].inc()
        self._attempt_duration[result].observe(max(seconds, 0.0))

    def scheduled(self, *, attempts: int, seconds: float) -> None:
        label = str(attempts) if attempts < 16 else "15+"
        durations = self._durations.get(label)
        if durations is None:
            durations = self._durations[label] = (
                self.pod_scheduling_duration.labels(attempts=label),
                self.pod_scheduling_sli_duration.labels(attempts=label),
            )
        for duration in durations:
            duration.observe(max(seconds, 0.0))
        self.pod_scheduling_attempts.observe(attempts)

    def preemption(self, *, victims: int | None) -> None:
        """One preemption attempt; ``victims``: how many the chosen candidate evicts (None when
        no candidate was chosen)."""
        self.preemption_attempts.inc()
        if victims is not None:
            self.preemption_victims.observe(victims)
