"""core/v1 ServiceAccount and Secret strategies.

A Secret's write-only ``stringData`` is merged into ``data`` (base64) as the body is decoded, so
it is never stored, as upstream's conversion does; its ``type`` defaults to Opaque and is a field
label. The printer columns are upstream's (``SECRETS`` for accounts, ``TYPE`` and ``DATA`` for
secrets).
"""

from __future__ import annotations

import base64
from typing import ClassVar

from fakeapi.objects import as_dict, as_list, text
from fakeapi.registry.strategy import AGE_COLUMN, NAME_COLUMN, Column, Obj, Strategy, WriteContext
from fakeapi.validation.accounts import validate_secret, validate_secret_update
from fakeapi.validation.field import FieldError

__all__ = ["SecretStrategy", "ServiceAccountStrategy"]


class ServiceAccountStrategy(Strategy):
    """Namespaced; nothing beyond metadata to check."""

    columns: ClassVar[tuple[Column, ...]] = (
        NAME_COLUMN,
        Column("Secrets", lambda obj, _now: len(as_list(obj.get("secrets"))), type="integer",
               description="Secrets is a list of the secrets in the same namespace that pods "
               "running using this ServiceAccount are allowed to use."),
        AGE_COLUMN,
    )


class SecretStrategy(Strategy):
    """Namespaced; ``stringData`` folded into ``data``; immutable secrets stay as they are."""

    field_labels: ClassVar[tuple[str, ...]] = ("type",)
    columns: ClassVar[tuple[Column, ...]] = (
        NAME_COLUMN,
        Column("Type", lambda obj, _now: text(obj.get("type")),
               description="Used to facilitate programmatic handling of secret data."),
        Column("Data", lambda obj, _now: len(as_dict(obj.get("data"))), type="integer",
               description="Data contains the secret data."),
        AGE_COLUMN,
    )

    def apply_defaults(self, obj: Obj, ctx: WriteContext) -> None:
        obj.setdefault("type", "Opaque")
        plain = obj.pop("stringData", None)
        if isinstance(plain, dict) and plain:
            data = obj.get("data")
            if not isinstance(data, dict):
                data = obj["data"] = {}
            for key, value in plain.items():
                data[key] = base64.b64encode(text(value).encode()).decode()

    def selectable_fields(self, obj: Obj) -> dict[str, str]:
        return {"type": text(obj.get("type"))}

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return validate_secret(obj)

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        return validate_secret_update(new, old)
