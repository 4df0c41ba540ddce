"""Kubernetes rules that several components need, in one place: fakeapi's component-helpers.

Upstream keeps the rules every component must apply alike in small libraries below the
components: ``k8s.io/component-helpers`` (taints and tolerations, node affinity, pod resource
requests), apimachinery's condition helpers and ``k8s.io/dynamic-resource-allocation/resourceclaim``
(claim names, reservations). Before this package fakeapi's controllers, scheduler, kubelets and
``kubectl dra`` each kept their own copy of such a rule, and copies drift apart: the eviction
controller once disagreed with the allocator about which device taints a toleration tolerates.

One module per rule family; each module's docstring names the upstream helper it mirrors:

- :mod:`fakeapi.rules.taints` — core/v1 and device ``ToleratesTaint``, untolerated taints, the
  minimum toleration time of the taint-eviction controllers;
- :mod:`fakeapi.rules.nodeaffinity` — node selector terms, required node affinity;
- :mod:`fakeapi.rules.podrequests` — a pod's resource requests (``resourcehelper.PodRequests``);
- :mod:`fakeapi.rules.podgroups` — which PodGroup a pod belongs to;
- :mod:`fakeapi.rules.claims` — pod claim names, reservations, finalizers, generated claims;
- :mod:`fakeapi.rules.pools` — what a DRA pool holds and how much of it is in use (KEP-5677);
- :mod:`fakeapi.rules.nodes` — Node conditions;
- :mod:`fakeapi.rules.conditions` — ``metav1.Condition`` lists;
- :mod:`fakeapi.rules.definitions` — the kind a CustomResourceDefinition serves.

The package sits below every component and above the models: it imports only the models and the
core helpers (:mod:`fakeapi.objects`, quantities, times, selectors, feature gates), never the
server, registry, storage, client or a component (an import-linter contract holds it there). The
rules run on hot paths (tolerations and node affinity per pod × node in the scheduler), so they
read the JSON-shaped objects directly: no pydantic, no copies. Nothing is re-exported here, so
importing one family costs only that family.
"""
