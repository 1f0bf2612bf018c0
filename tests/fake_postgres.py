"""A PostgreSQL server that asks for a password and refuses it, as a real one refuses a wrong or
expired password (the test server trusts every local login, so it never asks): enough of the
wire protocol for libpq to say what it says then."""

from __future__ import annotations

import socket
import socketserver
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager

SSL_REQUEST, GSS_REQUEST = 80877103, 80877104
CLEARTEXT_PASSWORD = 3


class _Refusing(socketserver.BaseRequestHandler):
    passwords: list[str]  # what the clients gave, in order (set per server)

    def handle(self) -> None:
        connection: socket.socket = self.request
        while True:  # encryption requests, then the startup message
            length, code = struct.unpack("!ii", _read(connection, 8))
            _read(connection, length - 8)
            if code not in (SSL_REQUEST, GSS_REQUEST):
                break
            connection.sendall(b"N")  # no encryption here
        connection.sendall(b"R" + struct.pack("!ii", 8, CLEARTEXT_PASSWORD))
        kind = connection.recv(1)
        if kind != b"p":
            return  # libpq hung up: it had no password to give
        (length,) = struct.unpack("!i", _read(connection, 4))
        self.passwords.append(_read(connection, length - 4).rstrip(b"\0").decode())
        fields = [
            b"SFATAL",
            b"VFATAL",
            b"C28P01",
            b'Mpassword authentication failed for user "ana"',
        ]
        body = b"".join(field + b"\0" for field in fields) + b"\0"
        connection.sendall(b"E" + struct.pack("!i", len(body) + 4) + body)


def _read(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the client hung up")
        data += chunk
    return data


@contextmanager
def refusing_server() -> Iterator[tuple[int, list[str]]]:
    """A server on 127.0.0.1 that refuses every password: its port, and the passwords it was
    given."""
    passwords: list[str] = []
    handler = type("Refusing", (_Refusing,), {"passwords": passwords})
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], passwords
    finally:
        server.shutdown()
        server.server_close()
