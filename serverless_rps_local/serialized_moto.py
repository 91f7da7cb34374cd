"""moto's server with one request at a time, so each request is atomic as it is on AWS.

moto applies a TransactWriteItems item by item and, when a condition fails, rolls back by
restoring a copy of the whole table taken when the transaction began. Two requests served at once
on two threads can therefore erase each other's writes: a rollback puts back a table from before
a concurrent, successful write. DynamoDB never does that; each request is atomic. Serving requests
one at a time restores that guarantee while keeping what matters for our tests: concurrent
invocations interleave at request boundaries, exactly where they can interleave on AWS.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import BaseWSGIServer, make_server

__all__ = ["SerializedMotoServer"]


class SerializedMotoServer:
    """A drop-in for `moto.server.ThreadedMotoServer` (start, stop, get_host_and_port)."""

    def __init__(self, ip_address: str = "127.0.0.1", port: int = 0) -> None:
        self._ip_address = ip_address
        self._port = port
        self._server: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        moto_app = DomainDispatcherApplication(create_backend_app)
        one_at_a_time = threading.Lock()

        def serialized(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
            with one_at_a_time:
                # Read the whole response inside the lock: the request's effect is complete.
                return list(moto_app(environ, start_response))

        # werkzeug's own request handler, as moto's ThreadedMotoServer has below 5.2 (5.2's keeps
        # headers with underscores for S3's metadata; DynamoDB, SQS and SSM send none).
        self._server = make_server(self._ip_address, self._port, serialized, threaded=True)
        self._thread = threading.Thread(target=self._server.serve_forever, name="moto-server", daemon=True)
        self._thread.start()

    def get_host_and_port(self) -> tuple[str, int]:
        assert self._server is not None, "call start() first"
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    @property
    def endpoint_url(self) -> str:
        host, port = self.get_host_and_port()
        return f"http://{host}:{port}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = self._thread = None
