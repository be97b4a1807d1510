"""The address guard of web_fetch: which IP addresses may be contacted (public ones only), and one
lookup of a host through an injectable resolver that is refused unless every address is public.

Pure checks with no traffic: the resolver is the only way out, and tests inject their own.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import socket
from collections.abc import Callable

from okbot.core.local_tools.web.errors import FetchError

Resolver = Callable[[str, int], list[str]]

METADATA_IPS = frozenset({"169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200"})
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_LEGACY_IPV4 = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}$", re.IGNORECASE)


def check_address(ip: str) -> str:
    """ "" when ``ip`` is a public address a tool may contact, else the reason it is refused.

    Refused: loopback, private (RFC 1918, fc00::/7), link-local (169.254/16 with the cloud metadata
    service, fe80::/10), CGNAT 100.64/10, multicast, unspecified, reserved, documentation and other
    special-purpose ranges, and IPv6 forms that embed such an IPv4 address (mapped, NAT64, 6to4, Teredo).
    """
    try:
        addr = ipaddress.ip_address(ip.strip() if isinstance(ip, str) else ip)
    except ValueError:
        return f"{ip!r} is not an IP address"
    if str(addr).split("%")[0] in METADATA_IPS:
        return f"{ip} is the cloud metadata service (a link-local/internal address)"
    if isinstance(addr, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(addr)
        inner = check_address(str(embedded)) if embedded is not None else ""
        if inner:
            return f"{ip} → {inner}"
        if embedded is not None and (addr.ipv4_mapped or any(addr in net for net in _NAT64)):
            return ""  # the IPv6 form of a public IPv4 address (mapped, or NAT64 of DNS64 networks)
    for flag, kind in (
        ("is_loopback", "loopback"),
        ("is_unspecified", "unspecified"),
        ("is_link_local", "link-local"),
        ("is_multicast", "multicast"),
        ("is_private", "private"),
        ("is_reserved", "reserved"),
        ("is_site_local", "site-local"),
    ):
        if getattr(addr, flag, False):
            return f"{ip} is a {kind} address"
    if addr in _CGNAT:
        return f"{ip} is a carrier-grade NAT (shared, 100.64.0.0/10) address"
    if not addr.is_global:
        return f"{ip} is not a public address"
    return ""


def _embedded_ipv4(addr: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address a mapped, NAT64, 6to4 or Teredo address leads to."""
    if addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    if any(addr in net for net in _NAT64):
        return ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)
    if addr.sixtofour is not None:
        return addr.sixtofour
    if addr.teredo is not None:
        return addr.teredo[1]
    return None


def system_resolve(host: str, port: int) -> list[str]:
    """The addresses ``socket.getaddrinfo`` gives for ``host`` (TCP), without duplicates."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _literal_ip(host: str) -> str | None:
    """The address when ``host`` is an IP literal, including legacy IPv4 forms (2130706433, 0x7f.1, 127.1)."""
    with contextlib.suppress(ValueError):
        return str(ipaddress.ip_address(host))
    with contextlib.suppress(OSError):
        return socket.inet_ntoa(socket.inet_aton(host)) if _LEGACY_IPV4.match(host) else None
    return None


def resolve_public(
    host: str, port: int, resolve: Resolver = system_resolve, check: Callable[[str], str] = check_address
) -> list[str]:
    """Resolve ``host`` once and return its addresses, all checked; FetchError unless every one is public.

    An IP literal (legacy IPv4 forms too) is checked without calling ``resolve``; so are names that always
    mean this machine (localhost and its subdomains).
    """
    host = host.strip().strip("[]").rstrip(".").lower()
    if not host:
        raise FetchError("the URL has no host")
    literal = _literal_ip(host)
    if literal is None and (host == "localhost" or host.endswith(".localhost")):
        literal = "127.0.0.1"
    if literal is not None:
        addresses = [literal]
    else:
        try:
            addresses = [str(a) for a in resolve(host, port)]
        except (OSError, UnicodeError, ValueError) as exc:
            raise FetchError(f"could not resolve host {host!r}: {exc}") from exc
        if not addresses:
            raise FetchError(f"host {host!r} has no addresses")
    reasons = [reason for reason in map(check, addresses) if reason]
    if reasons:
        raise FetchError(f"refused: {host} leads to a non-public address ({reasons[0]}); only public sites are reached")
    return addresses
