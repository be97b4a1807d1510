"""The address guard on its own: injected resolvers, no traffic."""

from __future__ import annotations

import pytest

from okbot.core.local_tools.web.address import check_address, resolve_public
from okbot.core.local_tools.web.errors import FetchError
from tests.unit.core.local_tools.web.fakes import FakeDNS, no_resolver

REFUSED = [
    "127.0.0.1",
    "127.255.255.254",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "169.254.0.1",
    "169.254.170.2",
    "100.64.0.1",
    "100.127.255.255",
    "0.0.0.0",
    "0.1.2.3",
    "224.0.0.1",
    "239.255.255.250",
    "255.255.255.255",
    "240.0.0.1",
    "192.0.2.1",
    "198.18.0.1",
    "::1",
    "::",
    "fc00::1",
    "fd12:3456::1",
    "fd00:ec2::254",
    "fe80::1",
    "fe80::1%eth0",
    "ff02::1",
    "fec0::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "::ffff:100.64.0.1",
    "::127.0.0.1",
    "64:ff9b::a00:1",
    "2002:a00:1::",
    "2002:a9fe:a9fe::",
    "2001:db8::1",
    "not an ip",
    "",
    "127.0.0.1.nip.io",
    "1.2.3.4/8",
]
PUBLIC = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "100.63.255.255",
    "100.128.0.1",
    "172.15.255.255",
    "172.32.0.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
]


@pytest.mark.parametrize("ip", REFUSED)
def test_check_address_refuses_non_public(ip):
    assert check_address(ip)


@pytest.mark.parametrize("ip", PUBLIC)
def test_check_address_allows_public(ip):
    assert check_address(ip) == ""


def test_check_address_names_the_reason():
    assert "metadata" in check_address("169.254.169.254")
    assert "metadata" in check_address("::ffff:169.254.169.254")
    assert "loopback" in check_address("127.0.0.1")
    assert "private" in check_address("192.168.0.10")
    assert "link-local" in check_address("fe80::1")
    assert "carrier-grade NAT" in check_address("100.64.1.1")
    assert "not an IP address" in check_address("example.com")


def test_resolve_public_returns_checked_addresses():
    dns = FakeDNS({"example.test": ["93.184.216.34", "2606:2800:220:1::1"]})
    assert resolve_public("Example.TEST.", 443, dns) == ["93.184.216.34", "2606:2800:220:1::1"]
    assert dns.calls == [("example.test", 443)]


@pytest.mark.parametrize(
    "addresses",
    [["10.0.0.5"], ["93.184.216.34", "127.0.0.1"], ["169.254.169.254"], ["::1"], ["::ffff:192.168.1.1"], ["fe80::1"]],
)
def test_resolve_public_refuses_when_any_address_is_not_public(addresses):
    dns = FakeDNS({"rebind.test": addresses})
    with pytest.raises(FetchError, match="non-public"):
        resolve_public("rebind.test", 80, dns)


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "2130706433",
        "0x7f000001",
        "0x7f.1",
        "127.1",
        "017700000001",
        "0",
        "::1",
        "[::1]",
        "::ffff:127.0.0.1",
        "169.254.169.254",
        "localhost",
        "LOCALHOST.",
        "app.localhost",
        "10.0.0.1",
    ],
)
def test_ip_literals_and_local_names_are_refused_without_a_lookup(host):
    with pytest.raises(FetchError, match="non-public"):
        resolve_public(host, 80, no_resolver)


def test_resolver_failures_are_clear_errors():
    with pytest.raises(FetchError, match="could not resolve host 'nowhere.test'"):
        resolve_public("nowhere.test", 80, FakeDNS({}))
    with pytest.raises(FetchError, match="no addresses"):
        resolve_public("empty.test", 80, FakeDNS({"empty.test": []}))
    with pytest.raises(FetchError, match="not an IP address"):
        resolve_public("junk.test", 80, FakeDNS({"junk.test": ["banana"]}))
    with pytest.raises(FetchError, match="no host"):
        resolve_public("", 80, no_resolver)
