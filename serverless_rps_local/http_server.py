"""A quiet, threaded WSGI server on 127.0.0.1 that runs in a background thread."""

from __future__ import annotations

import threading
from typing import Any

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

__all__ = ["BackgroundHttpServer"]


class _QuietRequestHandler(WSGIRequestHandler):
    """Werkzeug logs every request to stderr; the local stack prints its own summary instead."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        return None


class BackgroundHttpServer:
    """Serves one WSGI application until `stop()`; port 0 picks a free port."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0) -> None:
        self._server: BaseWSGIServer = make_server(
            host, port, app, threaded=True, request_handler=_QuietRequestHandler
        )
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="http-server", daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://{self._server.host}:{self._server.port}"

    def start(self) -> str:
        self._thread.start()
        return self.base_url

    def stop(self) -> None:
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()
