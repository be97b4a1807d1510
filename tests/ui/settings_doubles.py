"""Test doubles shared by the Settings and first-run tests."""

from __future__ import annotations

import socket


def closed_port_url() -> str:
    """A base URL on 127.0.0.1 where nothing listens (connection refused at once)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
