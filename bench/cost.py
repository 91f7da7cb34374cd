"""Cost per 1,000 games on AWS (us-east-1) and Twilio (US long code), from the measured counts.

A game is two inbound SMS: a throw that waits and a throw that resolves it, with their four
replies (the thrower's confirmation, the challenge, and the two results). DynamoDB units come from
bench/requests_per_command.py (0 pending challenges); Lambda duration is modelled, not measured:
the engine's own CPU time (measured in-process, bench/handler_time.py) plus assumed AWS latencies
for each DynamoDB request and each Twilio API call, which moto and the local stack cannot show.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ASSUMPTIONS", "PRICES", "estimate", "render"]

PRICES_AS_OF = (
    "2026-11 (list prices, us-east-1; Twilio US long code). Check the pricing pages before relying on them."
)
PRICES = {
    "twilio_sms_segment_outbound": 0.0083,  # USD per segment, US long code
    "twilio_sms_segment_inbound": 0.0083,  # USD per segment, US long code
    "lambda_gb_second_arm64": 0.0000133334,  # USD, first 6 billion GB-s/month tier
    "lambda_request": 0.20 / 1e6,
    "dynamodb_write_request_unit": 0.625 / 1e6,  # on-demand, since the November 2024 price cut
    "dynamodb_read_request_unit": 0.125 / 1e6,
    "sqs_request": 0.40 / 1e6,  # standard queue, per 64 KB chunk, after the first million/month
    "http_api_request": 1.00 / 1e6,  # API Gateway HTTP API, first 300 million/month
}
ASSUMPTIONS = {
    "dynamodb_request_ms": 6.0,  # single-item request, same region, warm connection
    "dynamodb_transaction_ms": 15.0,
    "twilio_send_ms": 200.0,  # one Messages API POST from us-east-1
    "webhook_ms": 25.0,  # verify the signature, one SendMessage
    "game_memory_gb": 0.25,  # template.yaml MemorySize 256
    "webhook_memory_gb": 0.25,
    # SendMessage (webhook) + ReceiveMessage and DeleteMessageBatch by Lambda's poller; at low
    # traffic batches hold one message, so about 3 requests per message (idle long polls extra).
    "sqs_requests_per_message": 3.0,
    "carrier_fee_per_segment": 0.003,  # 10DLC carrier pass-through, not included in the total
}


@dataclass(frozen=True)
class MessageCost:
    requests: int
    transactions: int
    read_units: float
    write_units: float
    sms_out: int


def estimate(rows: list[dict[str, Any]], engine_cpu_ms: float) -> dict[str, Any]:
    by_command = {row["command"]: row for row in rows if row["pending"] == 0}
    messages = [by_command["throw that waits"], by_command["throw that resolves"]]
    sms_out, sms_in = 4, 2
    requests = sum(row["requests"] for row in messages)
    transactions = sum(1 for row in messages if "TransactWriteItems" in row["by_operation"])
    read_units = sum(row["read_units"] for row in messages)
    write_units = sum(row["write_units"] for row in messages)
    game_ms = (
        len(messages) * engine_cpu_ms
        + (requests - transactions) * ASSUMPTIONS["dynamodb_request_ms"]
        + transactions * ASSUMPTIONS["dynamodb_transaction_ms"]
        + sms_out * ASSUMPTIONS["twilio_send_ms"]
    )
    webhook_ms = sms_in * ASSUMPTIONS["webhook_ms"]
    games = 1000
    lines = {
        "SMS (Twilio, 6 segments a game)": games
        * (sms_out * PRICES["twilio_sms_segment_outbound"] + sms_in * PRICES["twilio_sms_segment_inbound"]),
        "Lambda GB-seconds (game + webhook)": games
        * PRICES["lambda_gb_second_arm64"]
        * (
            game_ms / 1000 * ASSUMPTIONS["game_memory_gb"]
            + webhook_ms / 1000 * ASSUMPTIONS["webhook_memory_gb"]
        ),
        "Lambda requests (game + webhook)": games * PRICES["lambda_request"] * (len(messages) + sms_in),
        "DynamoDB request units": games
        * (
            write_units * PRICES["dynamodb_write_request_unit"]
            + read_units * PRICES["dynamodb_read_request_unit"]
        ),
        "SQS requests": games
        * PRICES["sqs_request"]
        * len(messages)
        * ASSUMPTIONS["sqs_requests_per_message"],
        "API Gateway HTTP API requests": games * PRICES["http_api_request"] * sms_in,
    }
    return {
        "prices_as_of": PRICES_AS_OF,
        "prices": PRICES,
        "assumptions": ASSUMPTIONS,
        "per_game": {
            "inbound_messages": len(messages),
            "sms_segments": sms_out + sms_in,
            "dynamodb_requests": requests,
            "read_units": read_units,
            "write_units": write_units,
            "modelled_game_function_ms": game_ms,
        },
        "per_1000_games_usd": lines,
        "total_usd": sum(lines.values()),
        "total_without_sms_usd": sum(value for name, value in lines.items() if not name.startswith("SMS")),
        "carrier_fees_usd": games * (sms_out + sms_in) * ASSUMPTIONS["carrier_fee_per_segment"],
    }


def render(data: dict[str, Any]) -> str:
    game = data["per_game"]
    lines = [
        f"Prices as of {data['prices_as_of']}",
        "",
        f"A game: {game['inbound_messages']} inbound messages, {game['sms_segments']} SMS segments, "
        f"{game['dynamodb_requests']} DynamoDB requests ({game['read_units']:g} RRU, "
        f"{game['write_units']:g} WRU), "
        f"modelled game-function time {game['modelled_game_function_ms']:.0f} ms.",
        "",
        "| per 1,000 games | USD |",
        "|---|---|",
    ]
    for name, value in data["per_1000_games_usd"].items():
        lines.append(f"| {name} | {value:.4f} |")
    lines.append(f"| **total** | **{data['total_usd']:.2f}** |")
    lines.append(f"| total without SMS | {data['total_without_sms_usd']:.4f} |")
    lines += [
        "",
        f"US carrier (10DLC) fees come on top: about {data['carrier_fees_usd']:.2f} USD per 1,000 games.",
    ]
    return "\n".join(lines)
