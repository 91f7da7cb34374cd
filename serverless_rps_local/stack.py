"""The whole local stack, started and stopped together (docs/local.md has the picture).

    phone simulator --signed POST--> local HTTP API --event--> WebhookFunction (worker process)
                                                                  | SendMessage
                                                                  v
    local Twilio API <--REST-- GameFunction (worker processes) <-- SQS event source <-- IncomingQueue
                                   |  DynamoDB, SQS                                       (moto)
                                   v
                                 moto's server (own process): tables and queues from template.yaml
                                 (with DYNAMODB=local the tables are in DynamoDB Local, a Java process)

Everything listens on 127.0.0.1. The functions' environment comes from template.yaml, with only
what cannot exist locally replaced: the Twilio account and API URL, the public webhook URL, the
moto endpoint and dummy credentials. The Twilio auth token sits in moto's SSM as a SecureString
under the template's parameter name, so the functions read it the way they do when deployed; so
does the proof key, made by the stack itself the first time (32 random bytes, as `admin proof-key`
makes one) and kept in the state directory, so that proofs saved there stay checkable.
"""

from __future__ import annotations

import concurrent.futures
import logging
import secrets
import shlex
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from serverless_rps.status_callbacks import STATUS_ROUTE_SUFFIX, is_status_route
from serverless_rps_local import dev_account
from serverless_rps_local.api_gateway import LocalHttpApi, Route
from serverless_rps_local.aws import (
    DUMMY_CREDENTIALS,
    REGION,
    LocalResources,
    MotoServer,
    aws_client,
    provision,
    store_secure_strings,
)
from serverless_rps_local.dynamodb_local import DynamoDbEngine, DynamoDbLocal, selected_engine
from serverless_rps_local.event_source import SqsEventSource
from serverless_rps_local.http_server import BackgroundHttpServer
from serverless_rps_local.lambda_runtime import LocalFunction
from serverless_rps_local.operator_panel import OperatorPanel
from serverless_rps_local.saved_state import (
    STATE_DIRECTORY_VARIABLE,
    StateDirectory,
    export_queues,
    export_tables,
    import_queues,
    import_tables,
    local_stack_running,
)
from serverless_rps_local.simulator import PhoneSimulator, SimulatorApp
from serverless_rps_local.template import FunctionDefinition, StackTemplate, Unresolvable, resolve
from serverless_rps_local.twilio_api import LocalTwilioApi

_log = logging.getLogger(__name__)

__all__ = [
    "GAME_FUNCTION",
    "WEBHOOK_FUNCTION",
    "LocalStack",
    "StackOptions",
    "local_stack_running",
    "repository_root",
]

GAME_FUNCTION = "GameFunction"
# In the state directory while the stack runs: the game function's variables (docs/operations.md).
OPERATOR_ENVIRONMENT = "game-function.env"
WEBHOOK_FUNCTION = "WebhookFunction"
_INCOMING_QUEUE = "IncomingQueue"
_DEAD_LETTER_QUEUE = "DeadLetterQueue"
_GAME_STATE_TABLE = "GameStateTable"
_DEFAULT_WORKERS = 4
_WEBHOOK_CONCURRENCY = 2
# In the state directory: the local proof key (hex), made on the first start.
_PROOF_KEY_STATE = "proof-key"


def repository_root() -> Path:
    return Path(__file__).resolve().parents[1]


@dataclass
class StackOptions:
    template_path: Path = field(default_factory=lambda: repository_root() / "template.yaml")
    # None: nothing is loaded or saved (tests, `demo`).
    state_directory: Path | None = None
    # Game function workers; None: the template's MaximumConcurrency, at most 4.
    workers: int | None = None
    # The page, the phone simulator and the webhook's HTTP API; False for `invoke`.
    serve_http: bool = True
    page_port: int = 0
    # Poll the incoming queue and run the game function; False for `invoke`.
    poll_queue: bool = True
    # What the webhook checks signatures against; None: the local HTTP API's own URL.
    public_webhook_url: str | None = None
    # Start the execution environments at start-up instead of on the first message.
    warm: bool = True
    phones: tuple[str, ...] = dev_account.FIRST_PHONE_NUMBERS
    # Where the functions and moto write their logs; None: the state directory's logs/, if any.
    log_directory: Path | None = None
    # Which engine holds the tables: moto's server, or DynamoDB Local (`DYNAMODB=local`).
    dynamodb: DynamoDbEngine = field(default_factory=selected_engine)


class LocalStack:
    """Start with `start()` (or `with LocalStack(...) as stack:`), stop with `stop()`."""

    def __init__(self, options: StackOptions | None = None) -> None:
        self.options = options or StackOptions()
        self.template = StackTemplate.load(self.options.template_path)
        self.state = StateDirectory(self.options.state_directory) if self.options.state_directory else None
        log_directory = self._log_directory()
        if log_directory is not None:
            log_directory.mkdir(parents=True, exist_ok=True)
        self.moto = MotoServer(log_path=log_directory / "moto.log" if log_directory else None)
        self.dynamodb_local = (
            DynamoDbLocal(log_path=log_directory / "dynamodb-local.log" if log_directory else None)
            if self.options.dynamodb is DynamoDbEngine.LOCAL
            else None
        )
        self.twilio = LocalTwilioApi(dev_account.ACCOUNT_SID, dev_account.AUTH_TOKEN)
        self.resources: LocalResources | None = None
        self.functions: dict[str, LocalFunction] = {}
        self.event_source: SqsEventSource | None = None
        self.simulator: PhoneSimulator | None = None
        self.panel: OperatorPanel | None = None
        self._http: BackgroundHttpServer | None = None
        self._api: LocalHttpApi | None = None
        self._clients: dict[str, Any] = {}
        self._background_warm: threading.Thread | None = None
        self.page_url: str | None = None
        self.restored: dict[str, int] = {}
        self.started_in_seconds: float | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    def __enter__(self) -> LocalStack:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> LocalStack:
        started = time.monotonic()
        if self.state is not None:
            self.state.lock()
        try:
            self._start()
        except BaseException:
            self.stop(save=False)
            raise
        self.started_in_seconds = time.monotonic() - started
        return self

    def _start(self) -> None:
        endpoint_url = self.moto.start()
        dynamodb_endpoint_url = self.dynamodb_local.start() if self.dynamodb_local else None
        self.resources = provision(self.template, endpoint_url, dynamodb_endpoint_url)
        self._restore()
        twilio_url = self.twilio.start()

        public_webhook_url = self.options.public_webhook_url
        if self.options.serve_http:
            self._http = BackgroundHttpServer(self._dispatch, "127.0.0.1", self.options.page_port)
            self.page_url = self._http.base_url
            public_webhook_url = public_webhook_url or f"{self.page_url}{self._webhook_route_path()}"
        for logical_id, definition in self.template.functions.items():
            overrides = {"TWILIO_ACCOUNT_SID": dev_account.ACCOUNT_SID, "TWILIO_API_URL": twilio_url}
            if logical_id == WEBHOOK_FUNCTION and public_webhook_url:
                overrides["PUBLIC_WEBHOOK_URL"] = public_webhook_url
            if logical_id == GAME_FUNCTION and public_webhook_url:
                # The template's choice (public URL or the API's own) in local terms: the status route.
                overrides["STATUS_CALLBACK_URL"] = public_webhook_url + STATUS_ROUTE_SUFFIX
            self.functions[logical_id] = LocalFunction(
                name=logical_id,
                handler=definition.handler,
                code_root=self.template.path.parent / definition.code_uri,
                environment=self.function_environment(definition, overrides),
                timeout_seconds=definition.timeout_seconds,
                memory_mb=definition.memory_mb,
                concurrency=self._workers() if logical_id == GAME_FUNCTION else _WEBHOOK_CONCURRENCY,
                log_directory=self._log_directory(),
            )

        # Three slow things at once: moto's SSM answers its first call only after seconds, and
        # each function's first execution environment has its cold start (imports) to do.
        with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
            pending = [pool.submit(store_secure_strings, endpoint_url, self._secure_strings())]
            if self.options.warm:
                pending += [pool.submit(self._warm, logical_id, 1) for logical_id in self._functions_in_use()]
            for future in pending:
                future.result()

        if self.state is not None:
            self._write_operator_environment(public_webhook_url)
        if self.options.poll_queue:
            self.event_source = self._event_source()
            self.event_source.start()
        if self.options.serve_http:
            assert public_webhook_url is not None
            self._serve_page(public_webhook_url)
        if self.options.warm:
            # The game function's other environments start while the first messages are played.
            self._background_warm = threading.Thread(target=self._warm_the_rest, name="warm-up", daemon=True)
            self._background_warm.start()

    def _serve_page(self, public_webhook_url: str) -> None:
        self.simulator = PhoneSimulator(
            self.twilio,
            public_webhook_url,
            dev_account.AUTH_TOKEN,
            dev_account.SERVICE_NUMBER,
            phones=self.options.phones,
        )
        saved = self.state.read("simulator") if self.state is not None else None
        if saved:
            self.simulator.import_state(saved)
        self.panel = self._operator_panel()
        page = SimulatorApp(self.simulator, self.panel.snapshot, self.describe())
        self._api = LocalHttpApi(
            [
                Route(route.method, route.path, self.functions[WEBHOOK_FUNCTION])
                for route in self.template.function(WEBHOOK_FUNCTION).http_routes
            ],
            page.wsgi_app,
        )
        assert self._http is not None
        self._http.start()

    def _warm(self, logical_id: str, count: int | None) -> None:
        errors = self.functions[logical_id].warm(count)
        if errors:
            raise RuntimeError(f"{logical_id} failed to start: {errors[0]['errorMessage']}")

    def _warm_the_rest(self) -> None:
        # Only an optimisation: an environment that fails to start here (or is killed while it
        # starts, as the chaos soak does) is started again by the first invocation that needs it.
        function = self.functions[GAME_FUNCTION]
        errors = function.warm(None)
        if errors and not function.stopped:  # stopped while warming: nothing failed
            _log.warning(
                "%s: an execution environment failed to warm up: %s",
                GAME_FUNCTION,
                errors[0].get("errorMessage"),
            )

    def _functions_in_use(self) -> list[str]:
        return [GAME_FUNCTION, WEBHOOK_FUNCTION] if self.options.serve_http else [GAME_FUNCTION]

    def _secure_strings(self) -> dict[str, str]:
        """The template's auth-token parameter names, each holding the local token, and its proof
        key's, holding the local proof key."""
        return {
            **dict.fromkeys(self._parameter_names("TWILIO_AUTH_TOKEN_PARAMETER"), dev_account.AUTH_TOKEN),
            **dict.fromkeys(self._parameter_names("PROOF_KEY_PARAMETER"), self._proof_key()),
        }

    def _parameter_names(self, variable: str) -> set[str]:
        assert self.resources is not None
        return {
            str(resolve(definition.environment[variable], self.resources.references, {}))
            for definition in self.template.functions.values()
            if variable in definition.environment
        }

    def _proof_key(self) -> str:
        """The local proof key: the state directory's, or a new one (kept there, if there is one)."""
        saved = self.state.read(_PROOF_KEY_STATE) if self.state is not None else None
        if isinstance(saved, dict) and isinstance(saved.get("key"), str):
            return str(saved["key"])
        key = secrets.token_hex(32)
        if self.state is not None:
            self.state.write(_PROOF_KEY_STATE, {"key": key})
        return key

    def _log_directory(self) -> Path | None:
        if self.options.log_directory is not None:
            return self.options.log_directory
        return self.state.logs if self.state is not None else None

    def stop(self, save: bool = True) -> None:
        """Stop polling, let invocations in progress finish, save the state, stop everything."""
        if self.event_source is not None:
            self.event_source.stop()
            self.event_source = None
        if self._http is not None:
            self._http.stop()
            self._http = None
        for function in self.functions.values():
            function.stop()
        if self._background_warm is not None:
            self._background_warm.join()
            self._background_warm = None
        if save and self.resources is not None:
            self.save()
        self.twilio.stop()
        self.moto.stop()
        if self.dynamodb_local is not None:
            self.dynamodb_local.stop()
        if self.state is not None:
            (self.state.path / OPERATOR_ENVIRONMENT).unlink(missing_ok=True)  # its ports are gone
            self.state.unlock()

    def _write_operator_environment(self, public_webhook_url: str | None) -> None:
        """The game function's variables, for the operator's tool in another terminal:
        `set -a; . .local-state/game-function.env; set +a; .venv/bin/python -m serverless_rps.admin status`,
        and for its `verify`, the webhook's URL and the game's number. Removed when the stack stops
        (its ports change at every start)."""
        assert self.state is not None
        environment = dict(self.functions[GAME_FUNCTION].environment)
        environment["TWILIO_PHONE_NUMBER"] = dev_account.SERVICE_NUMBER
        environment[STATE_DIRECTORY_VARIABLE] = str(self.state.path.resolve())
        if public_webhook_url is not None:
            environment["WEBHOOK_URL"] = public_webhook_url
        lines = [f"{name}={shlex.quote(value)}" for name, value in sorted(environment.items())]
        (self.state.path / OPERATOR_ENVIRONMENT).write_text("\n".join(lines) + "\n", encoding="utf-8")

    # -- state -----------------------------------------------------------------------------------

    def save(self) -> None:
        if self.state is None or self.resources is None:
            return
        tables = {logical_id: table.name for logical_id, table in self.template.tables.items()}
        queues = {logical_id: queue.name for logical_id, queue in self.template.queues.items()}
        self.state.write("dynamodb", export_tables(self.aws("dynamodb"), tables))
        self.state.write("sqs", export_queues(self.moto.queue_messages(), queues))
        self.state.write("twilio", self.twilio.export_state())
        if self.simulator is not None:
            self.state.write("simulator", self.simulator.export_state())

    def _restore(self) -> None:
        if self.state is None or self.resources is None:
            return
        tables = {logical_id: table.name for logical_id, table in self.template.tables.items()}
        queue_urls = {logical_id: self.resources.queue_url(logical_id) for logical_id in self.template.queues}
        self.restored = {
            "items": import_tables(self.aws("dynamodb"), tables, self.state.read("dynamodb") or {}),
            "messages": import_queues(self.aws("sqs"), queue_urls, self.state.read("sqs") or {}),
        }
        self.twilio.import_state(self.state.read("twilio") or {})

    # -- pieces ----------------------------------------------------------------------------------

    def aws(self, service: str) -> Any:
        """A boto3 client of moto's server, or of DynamoDB Local for DynamoDB when it holds the
        tables (one per service; boto3 clients are thread-safe)."""
        if service not in self._clients:
            assert self.resources is not None
            endpoint_url = (
                self.resources.dynamodb_endpoint_url if service == "dynamodb" else self.resources.endpoint_url
            )
            self._clients[service] = aws_client(service, endpoint_url)
        return self._clients[service]

    def function(self, logical_id: str) -> LocalFunction:
        return self.functions[logical_id]

    def function_environment(
        self, definition: FunctionDefinition, overrides: dict[str, str]
    ) -> dict[str, str]:
        """The template's variables, resolved against local resources, plus what Lambda sets."""
        assert self.resources is not None
        environment: dict[str, str] = {}
        for name, value in definition.environment.items():
            try:
                resolved = resolve(value, self.resources.references, self.resources.attributes)
            except Unresolvable:
                continue  # a parameter without a default: an override below supplies it
            environment[name] = _as_variable(resolved)
        environment.update(
            {
                "AWS_LAMBDA_FUNCTION_NAME": definition.logical_id,
                "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(definition.memory_mb),
                "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
                "AWS_REGION": REGION,
                "AWS_DEFAULT_REGION": REGION,
                "AWS_ENDPOINT_URL": self.resources.endpoint_url,
                "AWS_ENDPOINT_URL_DYNAMODB": self.resources.dynamodb_endpoint_url,
                "AWS_CONFIG_FILE": "/dev/null",
                "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
                **DUMMY_CREDENTIALS,
                # There is no X-Ray daemon locally.
                "POWERTOOLS_TRACE_DISABLED": "true",
                "AWS_XRAY_CONTEXT_MISSING": "IGNORE_ERROR",
                "AWS_SAM_LOCAL": "true",
            }
        )
        environment.update(overrides)
        return environment

    def describe(self) -> dict[str, Any]:
        """Where everything is, for the page and the console."""
        assert self.resources is not None
        return {
            "page_url": self.page_url,
            "moto_endpoint": self.resources.endpoint_url,
            "dynamodb_endpoint": self.resources.dynamodb_endpoint_url,
            "dynamodb_engine": self.options.dynamodb.value,
            "twilio_api_url": self.twilio.base_url,
            "webhook_url": self.simulator.webhook_url if self.simulator else None,
            "service_number": dev_account.SERVICE_NUMBER,
            "workers": self._workers(),
            "state_directory": str(self.state.path) if self.state else None,
        }

    def queue_depth(self, logical_id: str) -> int:
        """Messages in a queue, visible or in flight."""
        assert self.resources is not None
        attributes = self.aws("sqs").get_queue_attributes(
            QueueUrl=self.resources.queue_url(logical_id),
            AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        )["Attributes"]
        return int(attributes["ApproximateNumberOfMessages"]) + int(
            attributes["ApproximateNumberOfMessagesNotVisible"]
        )

    def wait_until_idle(self, timeout: float = 30.0) -> None:
        """Block until the incoming queue is empty and no invocation runs (bounded by `timeout`)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.queue_depth(_INCOMING_QUEUE) == 0 and not (self.event_source and self.event_source.busy):
                return
            time.sleep(0.05)
        raise TimeoutError(f"the incoming queue was not drained within {timeout} s")

    def _workers(self) -> int:
        if self.options.workers is not None:
            return self.options.workers
        trigger = self.template.function(GAME_FUNCTION).sqs_trigger
        maximum = trigger.maximum_concurrency if trigger and trigger.maximum_concurrency else _DEFAULT_WORKERS
        return min(maximum, _DEFAULT_WORKERS)

    def _webhook_route_path(self) -> str:
        routes = [
            route
            for route in self.template.function(WEBHOOK_FUNCTION).http_routes
            if not is_status_route(route.path)
        ]
        if not routes:
            raise RuntimeError(f"{WEBHOOK_FUNCTION} has no HttpApi event in {self.template.path}")
        return routes[0].path

    def _event_source(self) -> SqsEventSource:
        assert self.resources is not None
        trigger = self.template.function(GAME_FUNCTION).sqs_trigger
        if trigger is None:
            raise RuntimeError(f"{GAME_FUNCTION} has no SQS event in {self.template.path}")
        return SqsEventSource(
            self.functions[GAME_FUNCTION],
            self.aws("sqs"),
            self.resources.queue_url(trigger.queue_logical_id),
            self.resources.queue_arn(trigger.queue_logical_id),
            REGION,
            batch_size=trigger.batch_size,
            concurrency=self._workers(),
            report_batch_item_failures=trigger.report_batch_item_failures,
        )

    def _operator_panel(self) -> OperatorPanel:
        assert self.resources is not None
        event_source = self.event_source
        return OperatorPanel(
            sqs=self.aws("sqs"),
            dynamodb=self.aws("dynamodb"),
            incoming_queue_url=self.resources.queue_url(_INCOMING_QUEUE),
            dead_letter_queue_url=self.resources.queue_url(_DEAD_LETTER_QUEUE),
            game_state_table=self.template.table(_GAME_STATE_TABLE).name,
            player_key=self.template.table(_GAME_STATE_TABLE).hash_key,
            recent_errors=lambda: (
                [error.as_dict() for error in event_source.recent_errors()] if event_source else []
            ),
        )

    def _dispatch(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        # The server is bound (its URL goes into the webhook's environment) before the API exists.
        assert self._api is not None
        return self._api.wsgi_app(environ, start_response)


def _as_variable(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
