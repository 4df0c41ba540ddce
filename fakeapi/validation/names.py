"""The former home of :mod:`fakeapi.name_syntax`, kept while code written against it is merged.

The name and key syntax checks moved below :mod:`fakeapi.validation` because CEL's ``format``
library reports them too and API validation compiles CEL: kept here, they made the two packages
import each other. Import them from :mod:`fakeapi.name_syntax`.
"""

from __future__ import annotations

from fakeapi.name_syntax import (
    DNS1123_LABEL_MAX_LENGTH,
    DNS1123_SUBDOMAIN_MAX_LENGTH,
    LABEL_VALUE_MAX_LENGTH,
    QUALIFIED_NAME_MAX_LENGTH,
    is_c_identifier,
    is_config_map_key,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    is_valid_port_name,
    mask_trailing_dash,
    max_len_error,
    regex_error,
)

__all__ = [
    "DNS1123_LABEL_MAX_LENGTH",
    "DNS1123_SUBDOMAIN_MAX_LENGTH",
    "LABEL_VALUE_MAX_LENGTH",
    "QUALIFIED_NAME_MAX_LENGTH",
    "is_c_identifier",
    "is_config_map_key",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_qualified_name",
    "is_valid_label_value",
    "is_valid_port_name",
    "mask_trailing_dash",
    "max_len_error",
    "regex_error",
]
