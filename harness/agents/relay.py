"""The model endpoint relay: a CLI agent in the sandbox reaches only its model API, through a socket the harness
relays to the endpoint (docs/agents.md)."""

from __future__ import annotations

import os
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from harness.core.errors import ConfigError


@dataclass(frozen=True)
class Endpoint:
    """A model base URL split into what the relay needs."""

    url: str
    host: str
    port: int

    @classmethod
    def parse(cls, url: str) -> "Endpoint":
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"--base-url '{url}' is not an http(s) URL")
        return cls(url, parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))

    def via(self, host: str, port: int) -> str:
        """The same URL with its host:port replaced (what the CLI is told to call)."""
        parts = urlsplit(self.url)
        return urlunsplit(parts._replace(netloc=f"{host}:{port}"))


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (dst, src):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


MAX_RELAY_CONNECTIONS = 16  # per sample: a CLI agent keeps a few open; more is a flood, refused


class HostRelay:
    """Forwards each connection on a unix socket (bubblewrap) or a loopback TCP port (plain) to the
    endpoint. Bytes are relayed as they are, so it works for any HTTP API, streaming included.

    The agent controls how many connections it opens, and every one costs the harness two file
    descriptors shared with the other samples' graders: so at most ``MAX_RELAY_CONNECTIONS`` are
    relayed at once (more are closed at once), each is closed when done, and an accept error
    (e.g. EMFILE) is waited out rather than ending the relay."""

    def __init__(self, endpoint: Endpoint, unix_path: Path | None = None):
        self.endpoint = endpoint
        if unix_path is not None:
            unix_path.unlink(missing_ok=True)
            self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.server.bind(str(unix_path))
            os.chmod(unix_path, 0o600)
        else:
            self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.server.bind(("127.0.0.1", 0))
        self.server.listen(64)
        self.port = self.server.getsockname()[1] if unix_path is None else None
        self.connections = 0
        self.refused = 0
        self._open = threading.BoundedSemaphore(MAX_RELAY_CONNECTIONS)
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop:
            try:
                client, _ = self.server.accept()
            except OSError:
                if self._stop:
                    return
                time.sleep(0.05)
                continue
            if not self._open.acquire(blocking=False):
                self.refused += 1
                client.close()
                continue
            try:
                upstream = socket.create_connection((self.endpoint.host, self.endpoint.port), timeout=30)
                upstream.settimeout(None)
                upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                client.close()
                self._open.release()
                continue
            self.connections += 1
            threading.Thread(target=self._relay, args=(client, upstream), daemon=True).start()

    def _relay(self, client: socket.socket, upstream: socket.socket) -> None:
        back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
        back.start()
        _pump(client, upstream)
        back.join()
        for s in (client, upstream):
            s.close()
        self._open.release()

    def close(self) -> None:
        self._stop = True
        try:
            self.server.close()
        except OSError:
            pass


# Runs inside the sandbox with the harness's Python: listen on 127.0.0.1:PORT (the sandbox's own
# loopback) and forward each connection to the host relay's unix socket. Stdlib only.
INSIDE_FORWARDER = r'''
import os, socket, sys, threading
port, sock_path, ready = int(sys.argv[1]), sys.argv[2], sys.argv[3]
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", port)); srv.listen(64)
open(ready, "w").close()
def pump(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d: break
            b.sendall(d)
    except OSError: pass
    finally:
        for s in (a, b):
            try: s.shutdown(socket.SHUT_RDWR)
            except OSError: pass
while True:
    c, _ = srv.accept()
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    u = socket.socket(socket.AF_UNIX)
    try: u.connect(sock_path)
    except OSError: c.close(); continue
    threading.Thread(target=pump, args=(c, u), daemon=True).start()
    threading.Thread(target=pump, args=(u, c), daemon=True).start()
'''
