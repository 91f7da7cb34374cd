"""AWS, locally: moto's server for DynamoDB, SQS and SSM in a process of its own, and the resources
template.yaml declares, created in it. DynamoDB may be DynamoDB Local instead (dynamodb_local);
the tables are then created there.

The server answers one request at a time (serialized_moto explains why: moto's transactions are
not atomic across threads). So nothing may hold a request open: the event source polls the queue
without long polling.

Why a process of its own: the local stack's main process already serves the web page, the Twilio
API and the webhook, and the game workers hit DynamoDB hard; a separate interpreter keeps moto off
their GIL. It also keeps the server's state apart from `moto.mock_aws`, which resets moto's in-process
backends whenever a test starts one.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import multiprocessing.connection
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3

from serverless_rps_local.template import StackTemplate

__all__ = [
    "ACCOUNT_ID",
    "DUMMY_CREDENTIALS",
    "REGION",
    "LocalResources",
    "MotoServer",
    "aws_client",
    "provision",
    "store_secure_strings",
]

REGION = "us-east-1"
ACCOUNT_ID = "123456789012"  # moto's default account
DUMMY_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_SESSION_TOKEN": "local",
}
_START_TIMEOUT_SECONDS = 60.0


def aws_client(service: str, endpoint_url: str) -> Any:
    """A boto3 client for the local stack; never one that could reach a real account."""
    return boto3.session.Session(
        aws_access_key_id=DUMMY_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=DUMMY_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        aws_session_token=DUMMY_CREDENTIALS["AWS_SESSION_TOKEN"],
        region_name=REGION,
    ).client(service, endpoint_url=endpoint_url)  # type: ignore[call-overload]


def _serve_moto(connection: multiprocessing.connection.Connection, port: int, log_path: str) -> None:
    """The moto process: serve until the parent says stop or goes away (EOF on the pipe)."""
    import signal

    from serverless_rps_local.moto_expressions import install_expression_memory
    from serverless_rps_local.moto_rollback import install_light_transaction_rollback
    from serverless_rps_local.serialized_moto import SerializedMotoServer

    # A long session must not slow down as the idempotency table grows, and the same expressions
    # need parsing only once.
    install_light_transaction_rollback()
    install_expression_memory()
    # Ctrl-C and a closed terminal's hang-up reach the whole process group; the parent decides
    # when moto stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    # moto's server logs every request: keep that out of the console.
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    server = SerializedMotoServer(ip_address="127.0.0.1", port=port)
    server.start()
    connection.send(server.get_host_and_port()[1])
    threading.Thread(target=_load_ssm, name="load-ssm", daemon=True).start()
    with contextlib.suppress(EOFError):
        while connection.recv() == "queue-messages":
            connection.send(_queue_messages())
    # Everything moto holds is in memory and was saved already if wanted: no orderly shutdown.
    os._exit(0)


def _load_ssm() -> None:
    """moto's SSM takes two seconds to import and set up: do it now, while the stack starts."""
    from moto.ssm.models import ssm_backends

    ssm_backends[ACCOUNT_ID][REGION].describe_parameters(filters=[], parameter_filters=[])


def _queue_messages() -> dict[str, list[dict[str, Any]]]:
    """Every message of every queue, in flight or not: what no SQS API call can list."""
    from moto.sqs.models import sqs_backends

    backend = sqs_backends[ACCOUNT_ID][REGION]
    return {
        name: [
            {
                "body": message.body,
                "message_attributes": {
                    attribute_name: {"DataType": value["DataType"], "StringValue": value["StringValue"]}
                    for attribute_name, value in message.message_attributes.items()
                    if value.get("StringValue") is not None
                },
            }
            for message in queue._messages
        ]
        for name, queue in backend.queues.items()
    }


class MotoServer:
    """moto's server in a child process on 127.0.0.1 (on a free port unless `port` is given).

    Its own log (a line per request) goes to `log_path`, or nowhere.
    """

    def __init__(self, port: int = 0, log_path: Path | None = None) -> None:
        context = multiprocessing.get_context("spawn")
        self._connection, child_connection = context.Pipe()
        self._process = context.Process(
            target=_serve_moto,
            args=(child_connection, port, str(log_path) if log_path else os.devnull),
            name="moto-server",
            daemon=True,
        )
        self._child_connection = child_connection
        self._endpoint_url: str | None = None

    def start(self) -> str:
        self._process.start()
        self._child_connection.close()
        try:
            if not self._connection.poll(_START_TIMEOUT_SECONDS):
                raise EOFError
            port = self._connection.recv()
        except EOFError:
            self._process.kill()
            raise RuntimeError("moto's server did not start") from None
        self._endpoint_url = f"http://127.0.0.1:{port}"
        return self._endpoint_url

    @property
    def endpoint_url(self) -> str:
        if self._endpoint_url is None:
            raise RuntimeError("moto's server is not running")
        return self._endpoint_url

    def queue_messages(self) -> dict[str, list[dict[str, Any]]]:
        """Every queue's messages including those in flight, by queue name."""
        self._connection.send("queue-messages")
        messages: dict[str, list[dict[str, Any]]] = self._connection.recv()
        return messages

    def stop(self) -> None:
        if self._process.is_alive():
            with contextlib.suppress(BrokenPipeError, OSError):
                self._connection.send("stop")
            self._process.join(10)
            if self._process.is_alive():
                self._process.kill()
                self._process.join()
        self._connection.close()
        self._endpoint_url = None


@dataclass(frozen=True)
class LocalResources:
    """What the template's resources are called locally: what `!Ref` and `!GetAtt` resolve to."""

    endpoint_url: str
    references: dict[str, Any]
    attributes: dict[tuple[str, str], Any]
    # Where the tables are: moto's server (endpoint_url) unless DynamoDB Local serves them.
    dynamodb_endpoint_url: str

    def table_name(self, logical_id: str) -> str:
        return str(self.references[logical_id])

    def queue_url(self, logical_id: str) -> str:
        return str(self.references[logical_id])

    def queue_arn(self, logical_id: str) -> str:
        return str(self.attributes[(logical_id, "Arn")])


def provision(
    template: StackTemplate, endpoint_url: str, dynamodb_endpoint_url: str | None = None
) -> LocalResources:
    """Create the template's tables (in `dynamodb_endpoint_url` if given) and queues (dead-letter
    queues first) in moto's server at `endpoint_url`."""
    references: dict[str, Any] = {
        "AWS::Region": REGION,
        "AWS::AccountId": ACCOUNT_ID,
        "AWS::StackName": "serverless-rps-local",
        "AWS::Partition": "aws",
        "AWS::URLSuffix": "amazonaws.com",
    }
    references.update({name: value for name, value in template.parameters.items() if value is not None})
    attributes: dict[tuple[str, str], Any] = {}

    dynamodb_endpoint_url = dynamodb_endpoint_url or endpoint_url
    dynamodb = aws_client("dynamodb", dynamodb_endpoint_url)
    for table in template.tables.values():
        arguments: dict[str, Any] = {
            "TableName": table.name,
            "KeySchema": table.key_schema,
            "AttributeDefinitions": table.attribute_definitions,
            "BillingMode": "PAY_PER_REQUEST",
        }
        if table.global_secondary_indexes:
            arguments["GlobalSecondaryIndexes"] = [
                {key: value for key, value in index.items() if key != "ProvisionedThroughput"}
                for index in table.global_secondary_indexes
            ]
        if table.local_secondary_indexes:
            arguments["LocalSecondaryIndexes"] = table.local_secondary_indexes
        description = dynamodb.create_table(**arguments)["TableDescription"]
        if table.ttl_attribute:
            dynamodb.update_time_to_live(
                TableName=table.name,
                TimeToLiveSpecification={"AttributeName": table.ttl_attribute, "Enabled": True},
            )
        references[table.logical_id] = table.name
        attributes[(table.logical_id, "Arn")] = description["TableArn"]

    sqs = aws_client("sqs", endpoint_url)
    # Dead-letter queues first: a redrive policy names its target by ARN.
    ordered = sorted(template.queues.values(), key=lambda queue: queue.dead_letter_target is not None)
    for queue in ordered:
        queue_attributes = {
            name: str(value)
            for name, value in queue.properties.items()
            if name
            in {
                "DelaySeconds",
                "MaximumMessageSize",
                "MessageRetentionPeriod",
                "ReceiveMessageWaitTimeSeconds",
                "VisibilityTimeout",
            }
        }
        if queue.dead_letter_target is not None:
            queue_attributes["RedrivePolicy"] = json.dumps(
                {
                    "deadLetterTargetArn": attributes[(queue.dead_letter_target, "Arn")],
                    "maxReceiveCount": queue.max_receive_count,
                }
            )
        url = sqs.create_queue(QueueName=queue.name, Attributes=queue_attributes)["QueueUrl"]
        arn = f"arn:aws:sqs:{REGION}:{ACCOUNT_ID}:{queue.name}"
        references[queue.logical_id] = url
        attributes.update(
            {
                (queue.logical_id, "Arn"): arn,
                (queue.logical_id, "QueueUrl"): url,
                (queue.logical_id, "QueueName"): queue.name,
            }
        )

    return LocalResources(endpoint_url, references, attributes, dynamodb_endpoint_url)


def store_secure_strings(endpoint_url: str, parameters: dict[str, str]) -> None:
    """Put SSM SecureStrings (the Twilio auth token). moto's SSM takes seconds to answer its first call."""
    ssm = aws_client("ssm", endpoint_url)
    for name, value in parameters.items():
        ssm.put_parameter(Name=name, Value=value, Type="SecureString", Overwrite=True)
