"""An API Gateway HTTP API, locally: an HTTP request becomes a payload-2.0 event for a function,
and the function's answer becomes the HTTP response.

As API Gateway does for an HTTP API: header names are lower-cased, a form body arrives base64-encoded
with `isBase64Encoded: true`, and a function that fails yields `500 {"message": "Internal Server Error"}`.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from email.utils import formatdate
from typing import Any, Protocol

from werkzeug.wrappers import Request, Response

from serverless_rps_local.aws import ACCOUNT_ID
from serverless_rps_local.lambda_runtime import Invocation

__all__ = ["LocalHttpApi", "Route", "http_api_event"]

_TEXT_CONTENT_TYPES = ("text/", "application/json", "application/xml")


class _HttpFunction(Protocol):
    def invoke(self, event: Any) -> Invocation: ...


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    function: _HttpFunction


def http_api_event(
    *,
    method: str,
    path: str,
    headers: Mapping[str, str],
    body: bytes,
    domain_name: str,
    query_string: str = "",
    source_ip: str = "127.0.0.1",
    route_key: str = "$default",
    request_id: str | None = None,
    epoch_millis: int | None = None,
) -> dict[str, Any]:
    """The event API Gateway's HTTP API (payload format 2.0) hands a Lambda integration."""
    epoch_millis = epoch_millis if epoch_millis is not None else int(time.time() * 1000)
    lowered = {name.lower(): value for name, value in headers.items()}
    content_type = lowered.get("content-type", "")
    as_text = content_type.startswith(_TEXT_CONTENT_TYPES)
    request_id = request_id or uuid.uuid4().hex[:16]
    return {
        "version": "2.0",
        "routeKey": route_key,
        "rawPath": path,
        "rawQueryString": query_string,
        "headers": lowered,
        "requestContext": {
            "accountId": ACCOUNT_ID,
            "apiId": domain_name.split(".", 1)[0],
            "domainName": domain_name,
            "domainPrefix": domain_name.split(".", 1)[0],
            "http": {
                "method": method.upper(),
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": source_ip,
                "userAgent": lowered.get("user-agent", ""),
            },
            "requestId": request_id,
            "routeKey": route_key,
            "stage": "$default",
            "time": formatdate(epoch_millis / 1000, usegmt=True),
            "timeEpoch": epoch_millis,
        },
        "body": body.decode("utf-8") if as_text else base64.b64encode(body).decode("ascii"),
        "isBase64Encoded": not as_text,
    }


class LocalHttpApi:
    """Routes requests for the template's HttpApi paths to their functions; other requests go on to
    `fallback` (the simulator's page and its API)."""

    def __init__(self, routes: Iterable[Route], fallback: Any) -> None:
        self._routes = {(route.method, route.path): route for route in routes}
        self._fallback = fallback

    def wsgi_app(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        request = Request(environ)
        route = self._routes.get((request.method, request.path)) or self._routes.get(("ANY", request.path))
        if route is None:
            return self._fallback(environ, start_response)  # type: ignore[no-any-return]
        event = http_api_event(
            method=request.method,
            path=request.path,
            query_string=request.query_string.decode("latin-1"),
            headers=dict(request.headers.items()),
            body=request.get_data(),
            domain_name=request.host,
            source_ip=request.remote_addr or "127.0.0.1",
            route_key=f"{route.method} {route.path}",
        )
        invocation = route.function.invoke(event)
        return _http_response(invocation)(environ, start_response)


def _http_response(invocation: Invocation) -> Response:
    if invocation.error is not None or invocation.response is None:
        return Response(json.dumps({"message": "Internal Server Error"}), 500, mimetype="application/json")
    result = invocation.response
    if not (isinstance(result, dict) and "statusCode" in result):
        # Payload 2.0 lets a function return just a body: API Gateway answers 200 with it as JSON.
        return Response(json.dumps(result), 200, mimetype="application/json")
    body = result.get("body") or ""
    data = base64.b64decode(body) if result.get("isBase64Encoded") else str(body).encode("utf-8")
    response = Response(data, status=int(result["statusCode"]))
    response.headers.remove("Content-Type")
    for name, value in (result.get("headers") or {}).items():
        response.headers[name] = str(value)
    for cookie in result.get("cookies") or []:
        response.headers.add("Set-Cookie", cookie)
    return response
