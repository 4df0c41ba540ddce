"""ConfigMap: data and binaryData keys, the 1 MiB size limit, and ``immutable``.

Once ``immutable: true`` is stored, neither the flag nor the data may change (upstream's
``field is immutable when `immutable` is set``); only metadata can.
"""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from typing import ClassVar

from fakeapi.name_syntax import is_config_map_key
from fakeapi.objects import as_dict
from fakeapi.registry.strategy import AGE_COLUMN, NAME_COLUMN, Column, Obj, Strategy, WriteContext
from fakeapi.validation.field import FieldError, Path, forbidden, invalid, too_long

__all__ = ["MAX_CONFIG_MAP_SIZE", "ConfigMapStrategy"]

#: total bytes of data and (decoded) binaryData values
MAX_CONFIG_MAP_SIZE = 1024 * 1024
_IMMUTABLE = "field is immutable when `immutable` is set"


def _data_cell(obj: Obj, _now: datetime) -> int:
    return len(as_dict(obj.get("data"))) + len(as_dict(obj.get("binaryData")))


class ConfigMapStrategy(Strategy):
    """Namespaced; no status; keys checked, size capped, immutable config maps frozen."""

    columns: ClassVar[tuple[Column, ...]] = (
        NAME_COLUMN,
        Column("Data", _data_cell, type="integer", description="Number of data entries."),
        AGE_COLUMN,
    )

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        errors: list[FieldError] = []
        data = as_dict(obj.get("data"))
        binary = as_dict(obj.get("binaryData"))
        total = 0
        for key, value in data.items():
            at = Path("data").key(key)
            errors.extend(invalid(at, key, msg) for msg in is_config_map_key(key))
            if key in binary:
                errors.append(invalid(at, key, "duplicate of key present in binaryData"))
            total += len(str(value).encode())
        for key, value in binary.items():
            at = Path("binaryData").key(key)
            errors.extend(invalid(at, key, msg) for msg in is_config_map_key(key))
            if key in data:
                errors.append(invalid(at, key, "duplicate of key present in data"))
            try:
                total += len(base64.b64decode(str(value), validate=True))
            except (binascii.Error, ValueError):
                errors.append(invalid(at, "<binary>", "must be base64-encoded"))
        if total > MAX_CONFIG_MAP_SIZE:
            errors.append(too_long(Path(""), MAX_CONFIG_MAP_SIZE))
        return errors

    def validate_update(self, new: Obj, old: Obj, ctx: WriteContext) -> list[FieldError]:
        errors: list[FieldError] = []
        if old.get("immutable") is True:
            if new.get("immutable") is not True:
                errors.append(forbidden("immutable", _IMMUTABLE))
            if as_dict(new.get("data")) != as_dict(old.get("data")):
                errors.append(forbidden("data", _IMMUTABLE))
            if as_dict(new.get("binaryData")) != as_dict(old.get("binaryData")):
                errors.append(forbidden("binaryData", _IMMUTABLE))
        return errors + self.validate(new, ctx)
