"""Claims generated from ResourceClaimTemplates, for a pod or a PodGroup: find, else create.

The half of the resourceclaim controller that must never produce two claims for one owner's
entry. A claim is looked up, in this order, by the name the owner has recorded, by (owner uid,
annotation, entry) through an informer index, and in a memo of claims this process created (the
factory's read-your-writes puts a created claim into the index at once; the memo covers a client
whose writes the factory does not observe). Only when all three miss is a claim created, named
``<owner>-<entry>-<5 random>`` from the injected ``random.Random`` (``generateName`` holds the
base, as on upstream's claims) and retried with a new name when that one is taken. A missing
template, one that needs a feature whose gate is off, or a create the server refuses is a
``FailedResourceClaimCreation`` warning on the owner and a retry with backoff.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping
from typing import Any

from prometheus_client import Counter

from fakeapi import features, klog
from fakeapi.client import (
    RESOURCE_CLAIM_TEMPLATES,
    RESOURCE_CLAIMS,
    Client,
    Informer,
    LegacyEventRecorder,
    is_already_exists,
    is_not_found,
)
from fakeapi.objects import Obj, as_dict, as_list, controller_ref, meta, object_key, text
from fakeapi.rules.claims import (
    POD_CLAIM_ANNOTATION,
    PODGROUP_CLAIM_ANNOTATION,
    admin_access,
    generated_claim_base,
    generated_claim_name,
)
from fakeapi.selectors.errors import go_quote

__all__ = ["GENERATED_INDEX", "ClaimGenerator", "generated_for"]

log = logging.getLogger("fakeapi.controllers.resourceclaim")

GENERATED_INDEX = "resourceclaim-controller/generated-for"


def generated_for(claim: Obj) -> list[str]:
    """Index: ``<owner uid>/<annotation>/<entry name>`` of a generated claim."""
    ref = controller_ref(claim)
    if ref is None:
        return []
    annotations = as_dict(meta(claim).get("annotations"))
    return [
        f"{ref.get('uid')}/{key}/{annotations[key]}"
        for key in (POD_CLAIM_ANNOTATION, PODGROUP_CLAIM_ANNOTATION)
        if key in annotations
    ]


class ClaimGenerator:
    """Finds or creates the generated claim of one owner's entry."""

    def __init__(
        self,
        *,
        client: Client,
        claims: Informer,
        templates: Informer,
        rng: random.Random,
        gates: Mapping[str, bool],
        events: LegacyEventRecorder,
        creates: Counter | None,
    ) -> None:
        self.client = client
        self.claims = claims
        self.templates = templates
        self.rng = rng
        self.gates = gates
        self.events = events
        self.creates = creates
        #: (owner uid, annotation, entry) -> claim name, for claims created by this process
        self._created: dict[tuple[str, str, str], str] = {}

    def find(self, owner: Obj, annotation: str, entry_name: str) -> str:
        uid = text(meta(owner).get("uid"))
        found = self.claims.index_keys(GENERATED_INDEX, f"{uid}/{annotation}/{entry_name}")
        if found:
            return found[0].partition("/")[2]
        return self._created.get((uid, annotation, entry_name), "")

    async def owned_claim_exists(self, ns: str, claim_name: str, owner_uid: str) -> bool:
        claim = self.claims.get(f"{ns}/{claim_name}")
        if claim is None:
            try:
                claim = await self.client.get(RESOURCE_CLAIMS, namespace=ns, name=claim_name)
            except Exception as exc:
                if is_not_found(exc):
                    return False
                raise
        ref = controller_ref(claim)
        return ref is not None and ref.get("uid") == owner_uid

    async def ensure(
        self,
        *,
        owner: Obj,
        owner_kind: tuple[str, str],
        annotation: str,
        entry_name: str,
        template: str,
        recorded: str | None,
    ) -> str | None:
        """The name of the owner's claim for ``entry_name``, created if needed; None when the
        template is missing (the caller retries with backoff)."""
        ns, uid = text(meta(owner).get("namespace")), text(meta(owner).get("uid"))
        if recorded and await self.owned_claim_exists(ns, recorded, uid):
            return recorded
        found = self.find(owner, annotation, entry_name)
        if found and await self.owned_claim_exists(ns, found, uid):
            return found
        self._created.pop((uid, annotation, entry_name), None)
        tmpl = self.templates.get(f"{ns}/{template}")
        if tmpl is None:
            try:
                tmpl = await self.client.get(RESOURCE_CLAIM_TEMPLATES, namespace=ns, name=template)
            except Exception as exc:
                if is_not_found(exc):
                    self.creation_failed(
                        owner, entry_name, f"resource claim template {go_quote(template)}: {exc}"
                    )
                    return None
                raise
        spec = as_dict(as_dict(tmpl.get("spec")).get("spec"))
        refused = self.gated_out(spec)
        if refused:
            self.creation_failed(owner, entry_name, refused)
            return None
        tmpl_meta = as_dict(as_dict(tmpl.get("spec")).get("metadata"))
        annotations = dict(as_dict(tmpl_meta.get("annotations")))
        annotations[annotation] = entry_name
        claim_meta: dict[str, Any] = {
            "namespace": ns,
            "annotations": annotations,
            "ownerReferences": [
                {
                    "apiVersion": owner_kind[0],
                    "kind": owner_kind[1],
                    "name": meta(owner).get("name"),
                    "uid": uid,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        }
        if tmpl_meta.get("labels"):
            claim_meta["labels"] = dict(as_dict(tmpl_meta.get("labels")))
        admin = admin_access({"spec": spec})
        owner_name = text(meta(owner).get("name"))
        # the name is picked here, from the injected random source, as the apiserver would pick
        # it from generateName; generateName is kept so the claim reads as upstream's does
        claim_meta["generateName"] = generated_claim_base(owner=owner_name, claim=entry_name)
        for _attempt in range(5):
            claim_meta["name"] = generated_claim_name(
                owner=owner_name, claim=entry_name, rng=self.rng
            )
            body = {
                "apiVersion": RESOURCE_CLAIMS.api_version,
                "kind": "ResourceClaim",
                "metadata": claim_meta,
                "spec": spec,
            }
            try:
                created = await self.client.create(RESOURCE_CLAIMS, namespace=ns, body=body)
            except Exception as exc:
                if is_already_exists(exc):
                    continue
                self.count_create("failure", admin)
                self.creation_failed(
                    owner, entry_name, f"create ResourceClaim {claim_meta['name']}: {exc}"
                )
                raise
            self.count_create("success", admin)
            claim_name = text(meta(created).get("name"))
            kind = owner_kind[1] or "Pod"
            klog.info(log, "Created ResourceClaim", claim=f"{ns}/{claim_name}",
                      **{kind[0].lower() + kind[1:]: object_key(owner)})
            self._created[(uid, annotation, entry_name)] = claim_name
            return claim_name
        raise RuntimeError(f"no free name for the claim of {ns}/{meta(owner).get('name')}")

    def creation_failed(self, owner: Obj, entry_name: str, why: str) -> None:
        log.info("%s: claim %s: %s", object_key(owner), entry_name, why)
        self.events.event(
            regarding=owner,
            type="Warning",
            reason="FailedResourceClaimCreation",
            action="CreateResourceClaim",
            note=f"PodResourceClaim {entry_name}: {why}",
        )

    def gated_out(self, spec: dict[str, Any]) -> str:
        """Why a template's claim may not be created with the current gates ("" if it may)."""
        requests = [as_dict(r) for r in as_list(as_dict(spec.get("devices")).get("requests"))]
        if not features.enabled(self.gates, "DRAAdminAccess") and admin_access({"spec": spec}):
            return "admin access is requested, but the feature is disabled"
        if not features.enabled(self.gates, "DRAPrioritizedList") and any(
            r.get("firstAvailable") for r in requests
        ):
            return (
                "template includes a prioritized list of subrequests, but the feature is disabled"
            )
        return ""

    def count_create(self, status: str, admin: bool) -> None:
        if self.creates is not None:
            self.creates.labels(status=status, admin_access=str(admin).lower()).inc()
