"""All resource.k8s.io models in one import (``from fakeapi.models.resource import ResourceClaim``).

The types live in modules per kind; this module only re-exports them. The KEP-5677 kind
``ResourcePool`` (resource.k8s.io/v1beta2) shares its name with the slice's ``spec.pool`` type
(``resource_slice.ResourcePool``, io.k8s.api.resource.v1.ResourcePool), so it is not re-exported
here: import it from :mod:`fakeapi.models.resource_pool`.
"""

from __future__ import annotations

from fakeapi.models.device_class import *  # noqa: F403
from fakeapi.models.device_class import __all__ as _class_all
from fakeapi.models.device_taint_rule import *  # noqa: F403
from fakeapi.models.device_taint_rule import __all__ as _rule_all
from fakeapi.models.resource_claim import *  # noqa: F403
from fakeapi.models.resource_claim import __all__ as _claim_all
from fakeapi.models.resource_common import *  # noqa: F403
from fakeapi.models.resource_common import __all__ as _common_all
from fakeapi.models.resource_slice import *  # noqa: F403
from fakeapi.models.resource_slice import __all__ as _slice_all

__all__ = [*_common_all, *_slice_all, *_claim_all, *_class_all, *_rule_all]
