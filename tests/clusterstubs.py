"""Small stand-ins for the tests of bad input: kubeconfigs, closed ports, a version-only server.

The version-only server answers ``GET /version`` as a v1.36.3 API server would, and 404 to
everything else. It is not a mocked API server: it exists only so that the refusal of a cluster
older than v1.37 can be tested without one.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import socket
import threading
from pathlib import Path
from typing import Iterator

import yaml


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (a moment ago)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_kubeconfig(path: Path, server: str, *, contexts=("vendor-prod", "staging"), current="vendor-prod") -> Path:
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": current,
        "clusters": [{"name": "c", "cluster": {"server": server, "insecure-skip-tls-verify": True}}],
        "users": [{"name": "u", "user": {"token": "x"}}],
        "contexts": [{"name": n, "context": {"cluster": "c", "user": "u"}} for n in contexts],
    }))
    return path


class _VersionOnly(http.server.BaseHTTPRequestHandler):
    git_version = "v1.36.3"

    def do_GET(self):
        if self.path.split("?")[0].rstrip("/") != "/version":
            self.send_error(404)
            return
        major, minor = self.git_version.lstrip("v").split(".")[:2]
        body = json.dumps({"major": major, "minor": minor, "gitVersion": self.git_version, "gitCommit": "0" * 40,
                           "gitTreeState": "clean", "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.26.0",
                           "compiler": "gc", "platform": "linux/amd64"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def version_only_server(git_version: str = "v1.36.3") -> Iterator[str]:
    """Serve ``/version`` with ``git_version`` on 127.0.0.1; yield the URL; stop on exit."""
    handler = type("VersionOnly", (_VersionOnly,), {"git_version": git_version})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
