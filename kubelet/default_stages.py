"""The default pod lifecycle, as stage data (YAML text, parsed by :mod:`fakeapi.kubelet.stages`).

Kept as a string in a module rather than a ``.yaml`` file so that it ships with the package however
it is installed; it is data all the same, and the golden files in tests/kubelet pin what each
stage does. Pass your own stages to :class:`~fakeapi.kubelet.Kubelet` (``stages=``) to change
timings or behaviour. Annotations a pod may carry to steer it:

``fakeapi.dev/finish``       ``Succeeded`` or ``Failed``: the containers exit after
                             ``fakeapi.dev/run-seconds`` (default 5 s), with exit code 0 or 1;
                             what happens next follows ``spec.restartPolicy``
``fakeapi.dev/run-seconds``  how long the containers run before they finish
"""

from __future__ import annotations

__all__ = ["DEFAULT_STAGES_YAML"]

DEFAULT_STAGES_YAML = """\
# Pod lifecycle stages (docs/kubelet.md). A stage fires when its selector matches the pod and its
# delay (+ jitter) has passed on the kubelet's clock; pods not being deleted are considered only
# once the kubelet has admitted them (claims checked and prepared).
stages:
- name: pod-ready
  description: an admitted pod starts its containers and becomes Ready
  selector:
  - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
  - {key: .status.phase, operator: In, values: [Pending]}
  delay: {seconds: 0.5, jitterSeconds: 1.0}
  steps:
  - network: true
  - containers: {state: running}
  - conditions:
      PodReadyToStartContainers: "True"
      Initialized: "True"
      ContainersReady: "True"
      Ready: "True"
  - phase: Running
  # A real kubelet also reports Pulled and Created for each container; each event is one more
  # API write per container, so they are left to stages that want them (docs/kubelet.md).
  - event: {reason: Started, perContainer: true, note: Container started}

- name: pod-complete
  description: containers of a pod annotated to finish successfully exit with code 0
  selector:
  - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
  - {key: .status.phase, operator: In, values: [Running]}
  - {key: '.metadata.annotations["fakeapi.dev/finish"]', operator: In, values: [Succeeded]}
  - {key: '.status.containerStatuses[*].state.running', operator: Exists}
  delay:
    seconds: 5
    jitterSeconds: 1.0
    fromPath: '.metadata.annotations["fakeapi.dev/run-seconds"]'
  steps:
  - containers: {state: terminated, reason: Completed, exitCode: 0}
  - conditions:
      ContainersReady: {status: "False", reason: PodCompleted}
      Ready: {status: "False", reason: PodCompleted}
  - phase: FromContainers

- name: pod-fail
  description: containers of a pod annotated to fail exit with code 1
  selector:
  - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
  - {key: .status.phase, operator: In, values: [Running]}
  - {key: '.metadata.annotations["fakeapi.dev/finish"]', operator: In, values: [Failed]}
  - {key: '.status.containerStatuses[*].state.running', operator: Exists}
  delay:
    seconds: 5
    jitterSeconds: 1.0
    fromPath: '.metadata.annotations["fakeapi.dev/run-seconds"]'
  steps:
  - containers: {state: terminated, reason: Error, exitCode: 1}
  - conditions:
      ContainersReady: {status: "False", reason: ContainersNotReady}
      Ready: {status: "False", reason: ContainersNotReady}
  - phase: FromContainers

- name: container-restart-always
  description: restartPolicy Always restarts exited containers (after a back-off)
  selector:
  - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
  - {key: .status.phase, operator: In, values: [Running]}
  - {key: .spec.restartPolicy, operator: In, values: [Always]}
  - {key: '.status.containerStatuses[*].state.terminated', operator: Exists}
  delay: {seconds: 10, jitterSeconds: 1.0}
  steps: &restart  # the same steps restart containers under OnFailure
  - containers: {state: restart}
  - conditions:
      ContainersReady: "True"
      Ready: "True"
  - event:
      type: Warning
      reason: BackOff
      perContainer: true
      note: Back-off restarting failed container {container} in pod {pod}_{namespace}({uid})
  - event: {reason: Started, perContainer: true, note: Container started}

- name: container-restart-on-failure
  description: restartPolicy OnFailure restarts containers that exited with a non-zero code
  selector:
  - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
  - {key: .status.phase, operator: In, values: [Running]}
  - {key: .spec.restartPolicy, operator: In, values: [OnFailure]}
  - {key: '.status.containerStatuses[*].state.terminated.exitCode', operator: NotIn, values: ["0"]}
  - {key: '.status.containerStatuses[*].state.terminated', operator: Exists}
  delay: {seconds: 10, jitterSeconds: 1.0}
  steps: *restart

- name: pod-delete
  description: graceful deletion - stop the containers, report the terminal phase, then delete
  selector:
  - {key: .metadata.deletionTimestamp, operator: Exists}
  delay: {seconds: 0, jitterSeconds: 0.5}
  steps:
  - containers: {state: terminated, reason: Completed, exitCode: 0}
  - conditions:
      ContainersReady: {status: "False", reason: PodCompleted}
      Ready: {status: "False", reason: PodCompleted}
  - phase: Terminal
  - event: {reason: Killing, perContainer: true, note: "Stopping container {container}"}
  - delete: true
"""
