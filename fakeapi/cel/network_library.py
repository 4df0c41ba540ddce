"""The Kubernetes ``ip``, ``cidr`` and ``url`` CEL libraries (k8s.io/apiserver/pkg/cel/library).

IP addresses and prefixes follow Go's ``net/netip`` rules as Kubernetes applies them: no
zones, no IPv4-mapped IPv6 addresses, no leading zeros in IPv4 octets; ``string()`` gives the
canonical form. URLs must be absolute URIs or absolute paths (Go's ``url.ParseRequestURI``);
the getters return the parts as Go's ``net/url`` does. Parse errors carry Kubernetes' prefixes
(``IP Address "x" parse error during conversion from string: ...``).
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import parse_qsl, quote, unquote

from fakeapi.cel.errors import EvalError
from fakeapi.cel.overloads import Function
from fakeapi.cel.values import no_overload

__all__ = ["CIDR", "IP", "NETWORK_GLOBALS", "NETWORK_MEMBERS", "URL", "parse_url"]

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class IP:
    """A ``net.IP`` value."""

    __slots__ = ("addr",)
    cel_type_name = "net.IP"

    def __init__(self, addr: Address) -> None:
        self.addr = addr

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IP) and other.addr == self.addr

    def __hash__(self) -> int:
        return hash(self.addr)

    def __str__(self) -> str:
        return str(self.addr)


class CIDR:
    """A ``net.CIDR`` value: an address with a prefix length (not necessarily masked)."""

    __slots__ = ("addr", "bits")
    cel_type_name = "net.CIDR"

    def __init__(self, addr: Address, bits: int) -> None:
        self.addr = addr
        self.bits = bits

    def network(self) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
        return ipaddress.ip_network(f"{self.addr}/{self.bits}", strict=False)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CIDR) and (other.addr, other.bits) == (self.addr, self.bits)

    def __hash__(self) -> int:
        return hash((self.addr, self.bits))

    def __str__(self) -> str:
        return f"{self.addr}/{self.bits}"


class URL:
    """A ``kubernetes.URL`` value: the parts Go's ``url.Parse`` yields."""

    __slots__ = ("host", "path", "query", "raw", "scheme")
    cel_type_name = "kubernetes.URL"

    def __init__(self, *, raw: str, scheme: str, host: str, path: str, query: str) -> None:
        self.raw = raw
        self.scheme = scheme
        self.host = host
        self.path = path
        self.query = query

    def __eq__(self, other: object) -> bool:
        return isinstance(other, URL) and other.raw == self.raw

    def __hash__(self) -> int:
        return hash(self.raw)

    def __str__(self) -> str:
        return self.raw


# -- parsing ------------------------------------------------------------------------------------
def _addr_error(raw: str) -> str:
    """Go's ``netip.ParseAddr`` error text, for the common mistakes."""
    if raw == "":
        return 'ParseAddr(""): unable to parse IP'
    if ":" not in raw and "." in raw:
        fields = raw.split(".")
        if len(fields) != 4:
            return f"ParseAddr({raw!r}): IPv4 address too short".replace("'", '"')
        for field in fields:
            if not field:
                return f'ParseAddr("{raw}"): IPv4 field must have at least one digit'
            if not field.isdigit():
                return f'ParseAddr("{raw}"): unexpected character'
            if len(field) > 1 and field[0] == "0":
                return f'ParseAddr("{raw}"): IPv4 field has octet with leading zero'
            if int(field) > 255:
                return f'ParseAddr("{raw}"): IPv4 field has value >255'
    return f'ParseAddr("{raw}"): unable to parse IP'


def _parse_addr(raw: str) -> Address:
    """An address as Kubernetes accepts it, or EvalError with its message."""
    if "%" in raw:
        try:
            ipaddress.IPv6Address(raw)
        except ValueError:
            pass
        else:
            raise EvalError(f'IP address "{raw}" with zone value is not allowed')
    try:
        addr = ipaddress.ip_address(raw)
    except ValueError:
        raise EvalError(
            f'IP Address "{raw}" parse error during conversion from string: {_addr_error(raw)}'
        ) from None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise EvalError(f'IPv4-mapped IPv6 address "{raw}" is not allowed')
    return addr


def _parse_cidr(raw: str) -> CIDR:
    prefix = "network address parse error during conversion from string: "

    def fail(detail: str) -> EvalError:  # Kubernetes wraps the prefix error twice
        return EvalError(f'{prefix}{prefix}netip.ParsePrefix("{raw}"): {detail}')

    address, slash, bits_text = raw.partition("/")
    if not slash:
        raise EvalError(prefix + prefix + f"netip.ParsePrefix(\"{raw}\"): no '/'")
    try:
        addr = ipaddress.ip_address(address)
    except ValueError:
        raise fail(_addr_error(address)) from None
    if "%" in address:
        raise EvalError(
            prefix
            + prefix
            + f'netip.ParsePrefix("{raw}"): IPv6 zones cannot be present in a prefix'
        )
    if not bits_text.isdigit() or (len(bits_text) > 1 and bits_text[0] == "0"):
        raise EvalError(
            prefix + prefix + f'netip.ParsePrefix("{raw}"): bad bits after slash: "{bits_text}"'
        )
    bits = int(bits_text)
    if bits > addr.max_prefixlen:
        raise fail("prefix length out of range")
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise EvalError(prefix + f'IPv4-mapped IPv6 address "{raw}" is not allowed')
    return CIDR(addr, bits)


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")


def parse_url(raw: str) -> URL:
    """Go's ``url.ParseRequestURI`` acceptance, with ``url.Parse``'s parts."""

    def fail(detail: str) -> EvalError:
        return EvalError(f'URL parse error during conversion from string: parse "{raw}": {detail}')

    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in raw):
        raise fail("net/url: invalid control character in URL")
    text, _, _fragment = raw.partition("#")
    rest, qmark, query = text.partition("?")
    scheme = ""
    colon = rest.find(":")
    if colon > 0 and "/" not in rest[:colon]:
        if _SCHEME.fullmatch(rest[:colon]) is None:
            raise fail("first path segment in URL cannot contain colon")
        scheme, rest = rest[:colon].lower(), rest[colon + 1 :]
    elif colon == 0:
        raise fail("missing protocol scheme")
    if not scheme and not rest.startswith("/"):
        raise fail("invalid URI for request")
    host = ""
    if rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        path = slash + path
        host = authority.rpartition("@")[2]
        if host.startswith("["):
            end = host.find("]")
            if end < 0:
                raise fail("missing ']' in host")
            port = host[end + 1 :]
        else:
            port = host[host.find(":") :] if ":" in host else ""
            if port and ":" in port[1:]:
                raise fail(f'invalid port "{port[port.rfind(":") :]}" after host')
        if port not in ("", ":") and (not port.startswith(":") or not port[1:].isdigit()):
            raise fail(f'invalid port "{port}" after host')
    else:
        path = rest
    return URL(raw=raw, scheme=scheme, host=host, path=path, query=query if qmark else "")


# -- functions ----------------------------------------------------------------------------------
def _one(name: str, args: tuple[object, ...], kind: type) -> object:
    if len(args) != 1 or not isinstance(args[0], kind):
        raise no_overload(name, *args)
    return args[0]


def _ip(*args: object) -> object:
    if len(args) == 1 and isinstance(args[0], CIDR):
        return IP(args[0].addr)
    raw = _one("ip", args, str)
    assert isinstance(raw, str)
    return IP(_parse_addr(raw))


def _is_ip(*args: object) -> object:
    raw = _one("isIP", args, str)
    try:
        _parse_addr(str(raw))
    except EvalError:
        return False
    return True


def _ip_is_canonical(*args: object) -> object:
    raw = str(_one("ip.isCanonical", args, str))
    return str(_parse_addr(raw)) == raw


def _cidr(*args: object) -> object:
    raw = _one("cidr", args, str)
    return _parse_cidr(str(raw))


def _is_cidr(*args: object) -> object:
    raw = _one("isCIDR", args, str)
    try:
        _parse_cidr(str(raw))
    except EvalError:
        return False
    return True


def _ip_predicate(name: str, test: object) -> Function:
    def call(*args: object) -> object:
        value = _one(name, args, IP)
        assert isinstance(value, IP)
        return test(value.addr)  # type: ignore[operator]

    return call


def _link_local_multicast(addr: Address) -> bool:
    if addr.version == 4:
        return addr in ipaddress.ip_network("224.0.0.0/24")
    return (int(addr) >> 112) & 0xFF0F == 0xFF02


def _global_unicast(addr: Address) -> bool:
    if addr.version == 4 and str(addr) == "255.255.255.255":
        return False
    return not (addr.is_unspecified or addr.is_loopback or addr.is_multicast or addr.is_link_local)


def _family(*args: object) -> object:
    value = _one("family", args, IP)
    assert isinstance(value, IP)
    return value.addr.version


def _cidr_method(name: str) -> Function:
    def call(*args: object) -> object:
        if not args or not isinstance(args[0], CIDR):
            raise no_overload(name, *args)
        cidr = args[0]
        if name == "prefixLength" and len(args) == 1:
            return cidr.bits
        if name == "masked" and len(args) == 1:
            return CIDR(cidr.network().network_address, cidr.bits)
        if name == "containsIP" and len(args) == 2:
            other = args[1]
            addr = _parse_addr(other) if isinstance(other, str) else getattr(other, "addr", None)
            if not isinstance(other, (str, IP)) or addr is None:
                raise no_overload(name, *args)
            return addr.version == cidr.addr.version and addr in cidr.network()
        if name == "containsCIDR" and len(args) == 2:
            other = args[1]
            inner = _parse_cidr(other) if isinstance(other, str) else other
            if not isinstance(inner, CIDR):
                raise no_overload(name, *args)
            if inner.addr.version != cidr.addr.version or inner.bits < cidr.bits:
                return False
            return inner.addr in cidr.network()
        raise no_overload(name, *args)

    return call


def _url(*args: object) -> object:
    return parse_url(str(_one("url", args, str)))


def _is_url(*args: object) -> object:
    try:
        parse_url(str(_one("isURL", args, str)))
    except EvalError:
        return False
    return True


_PATH_SAFE = "$&+,/:;=@-_.~"
_VALID_ENCODED = re.compile(r"(?:[A-Za-z0-9\-_.~!$&'()*+,;=:@\[\]/]|%[0-9A-Fa-f]{2})*")


def _hostname(host: str) -> str:
    if host.startswith("["):
        return host[1 : host.find("]")]
    return host.partition(":")[0]


def _url_getter(name: str) -> Function:
    def call(*args: object) -> object:
        value = _one(name, args, URL)
        assert isinstance(value, URL)
        if name == "getScheme":
            return value.scheme
        if name == "getHost":
            return value.host
        if name == "getHostname":
            return _hostname(value.host)
        if name == "getPort":
            host = value.host
            port = host[host.find("]") + 1 :] if host.startswith("[") else host.partition(":")[2]
            return port.lstrip(":") if host.startswith("[") else port
        if name == "getEscapedPath":
            if _VALID_ENCODED.fullmatch(value.path):
                return value.path
            return quote(unquote(value.path), safe=_PATH_SAFE)
        query: dict[object, object] = {}
        for key, item in parse_qsl(value.query, keep_blank_values=True):
            query.setdefault(key, []).append(item)  # type: ignore[attr-defined]
        return query

    return call


NETWORK_GLOBALS: dict[str, Function] = {
    "ip": _ip,
    "isIP": _is_ip,
    "ip.isCanonical": _ip_is_canonical,
    "cidr": _cidr,
    "isCIDR": _is_cidr,
    "url": _url,
    "isURL": _is_url,
}

NETWORK_MEMBERS: dict[str, Function] = {
    "ip": _ip,
    "family": _family,
    "isUnspecified": _ip_predicate("isUnspecified", lambda a: a.is_unspecified),
    "isLoopback": _ip_predicate("isLoopback", lambda a: a.is_loopback),
    "isLinkLocalMulticast": _ip_predicate("isLinkLocalMulticast", _link_local_multicast),
    "isLinkLocalUnicast": _ip_predicate("isLinkLocalUnicast", lambda a: a.is_link_local),
    "isGlobalUnicast": _ip_predicate("isGlobalUnicast", _global_unicast),
    "containsIP": _cidr_method("containsIP"),
    "containsCIDR": _cidr_method("containsCIDR"),
    "prefixLength": _cidr_method("prefixLength"),
    "masked": _cidr_method("masked"),
    **{
        name: _url_getter(name)
        for name in (
            "getScheme",
            "getHost",
            "getHostname",
            "getPort",
            "getEscapedPath",
            "getQuery",
        )
    },
}
