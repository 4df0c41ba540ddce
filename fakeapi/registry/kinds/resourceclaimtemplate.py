"""ResourceClaimTemplate (resource.k8s.io/v1): the immutable blueprint of generated claims.

Defaulting, gated-field dropping and the admin-access namespace check are those of claims applied
to ``spec.spec``; the error path of the admin-access check is the claim's
(``spec.devices.requests[i].adminAccess``), as upstream reports it for templates too.
"""

from __future__ import annotations

from typing import ClassVar

from fakeapi.features import GatedFields, drop_disabled_fields
from fakeapi.registry.kinds.resourceclaim import (
    admin_access_errors,
    claim_spec_gated_fields,
    default_claim_spec,
    first_admin_request,
)
from fakeapi.registry.strategy import Obj, Strategy, WriteContext
from fakeapi.validation import dra
from fakeapi.validation.dra_common import as_dict
from fakeapi.validation.field import FieldError

__all__ = ["ResourceClaimTemplateStrategy"]

_TEMPLATE_GATED_FIELDS: tuple[GatedFields, ...] = (
    *claim_spec_gated_fields("spec.spec"),
    GatedFields(("DRAAdminAccess",), ("spec.spec.devices.requests[*].exactly.adminAccess",)),
)


class ResourceClaimTemplateStrategy(Strategy):
    """Templates: defaulted and validated like a claim spec, then never changed."""

    tracks_generation: ClassVar[bool] = True

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        default_claim_spec(as_dict(obj.get("spec")).get("spec"))

    def prepare_for_create(self, obj: Obj, ctx: WriteContext) -> None:
        drop_disabled_fields(obj, None, gates=ctx.feature_gates, rules=_TEMPLATE_GATED_FIELDS)

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        namespace = str(as_dict(obj.get("metadata")).get("namespace") or "")
        claim_spec = as_dict(obj.get("spec")).get("spec")
        errs = admin_access_errors(ctx.namespace_labels, namespace, first_admin_request(claim_spec))
        return errs + dra.validate_resource_claim_template(obj, gates=ctx.feature_gates)

    def prepare_for_update(self, new: Obj, old: Obj, ctx: WriteContext) -> None:
        drop_disabled_fields(new, old, gates=ctx.feature_gates, rules=_TEMPLATE_GATED_FIELDS)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return dra.validate_resource_claim_template(
            new, gates=ctx.feature_gates
        ) + dra.validate_resource_claim_template_update(new, old)
