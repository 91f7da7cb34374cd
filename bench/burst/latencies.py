"""How long things take in the model, each figure with where it comes from.

Nothing here ran against AWS or Twilio: requests answer from moto and a simulated Twilio in
virtual time, and take the time drawn here.

* DynamoDB: measured from a Lambda function in us-east-1 (Python, boto3), 400 invocations of ten
  requests each (github.com/alexdebrie/dynamodb-performance-testing, README "Results"; 2020):
  min / p50 / p90 / p95 / p99 / max in ms. A single-item request (PutItem) p50 7.55, p99 16.2; a
  five-item TransactWriteItems p50 25.3, p99 92.5. AWS promises "single-digit millisecond"
  single-item requests and gives no figure for transactions. The cost model (bench/cost.py)
  assumed 6 and 15 ms; these measured values are slower.
* Twilio's Messages POST: no source gives a number. Assumed uniform between 100 and 300 ms (200 ms
  on average, as bench/cost.py assumes), and scaled by `--twilio-latency-factor`.
* SQS requests from the function (a quicker redelivery, a message re-enqueued or parked): no AWS
  figure found; assumed like a single-item DynamoDB request.
* The function's own CPU: Lambda gives a function CPU in proportion to its memory, one vCPU at
  1,769 MB (docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html), so CPU measured on
  this machine's one core takes 1769/MemorySize times as long (6.9 at 256 MB). Measured here:
  the engine's own work per record, 1.1 ms (docs/performance.md, "median outside DynamoDB calls");
  botocore's work for one signed DynamoDB request, 0.27 ms, and the Twilio SDK's for one POST,
  0.12 ms (`python -m bench.burst --measure-client-cpu`). The DynamoDB figures above were taken
  from a 1,024 MB function (the Serverless Framework's default), so they already hold that
  function's botocore time: only the difference is added.
* A cold start: importing the game handler and building its clients, 248 ms (docs/performance.md,
  "Import time"); Lambda's own start-up is not included.
* The webhook, from Twilio's POST to the message on the queue: 25 ms (bench/cost.py's assumption).
"""

from __future__ import annotations

import bisect
import itertools
import random
from dataclasses import dataclass, field

__all__ = [
    "DYNAMODB_BATCH",
    "DYNAMODB_SINGLE",
    "DYNAMODB_TRANSACTION",
    "TWILIO_POST",
    "Compute",
    "Latencies",
    "Quantiles",
]

LAMBDA_MB_PER_VCPU = 1769.0
_SOURCE_FUNCTION_MB = 1024.0  # the memory of the function that measured the DynamoDB figures


@dataclass(frozen=True)
class Quantiles:
    """A distribution given by some of its quantiles, in seconds, drawn by inverse transform
    (straight lines between the given points)."""

    points: tuple[tuple[float, float], ...]  # (cumulative probability, seconds), from 0 to 1
    source: str

    def __post_init__(self) -> None:
        probabilities = [p for p, _ in self.points]
        if probabilities[0] != 0 or probabilities[-1] != 1 or probabilities != sorted(probabilities):
            raise ValueError("quantiles must run from probability 0 to 1 in order")

    def draw(self, chance: random.Random) -> float:
        u = chance.random()
        probabilities = [p for p, _ in self.points]
        index = min(max(bisect.bisect_right(probabilities, u), 1), len(self.points) - 1)
        (p0, s0), (p1, s1) = self.points[index - 1], self.points[index]
        return s0 + (s1 - s0) * (u - p0) / (p1 - p0)

    def quantile(self, p: float) -> float:
        """The seconds at cumulative probability `p` (for showing the distribution)."""
        for (p0, s0), (p1, s1) in itertools.pairwise(self.points):
            if p0 <= p <= p1:
                return s0 + (s1 - s0) * (p - p0) / (p1 - p0) if p1 > p0 else s1
        raise ValueError(p)


def _milliseconds(*pairs: tuple[float, float]) -> tuple[tuple[float, float], ...]:
    return tuple((p, ms / 1000) for p, ms in pairs)


_DEBRIE = "alexdebrie/dynamodb-performance-testing, from Lambda"
DYNAMODB_SINGLE = Quantiles(
    _milliseconds((0, 5.47), (0.5, 7.55), (0.9, 11.3), (0.95, 13.2), (0.99, 16.2), (1, 29)),
    f"PutItem, {_DEBRIE}",
)
DYNAMODB_BATCH = Quantiles(
    _milliseconds((0, 7.96), (0.5, 10.2), (0.9, 16), (0.95, 18), (0.99, 27.6), (1, 76.4)),
    f"BatchWriteItem of 25 items, {_DEBRIE}",
)
DYNAMODB_TRANSACTION = Quantiles(
    _milliseconds((0, 19.4), (0.5, 25.3), (0.9, 30.7), (0.95, 36.4), (0.99, 92.5), (1, 218)),
    f"TransactWriteItems of 5 items, {_DEBRIE}",
)
TWILIO_POST = Quantiles(_milliseconds((0, 100), (1, 300)), "assumed: uniform 100-300 ms, no source")
SQS_REQUEST = Quantiles(DYNAMODB_SINGLE.points, "assumed like a DynamoDB single-item request")


@dataclass(frozen=True)
class Compute:
    """CPU the function spends itself, in seconds on this machine's one core."""

    engine_per_record: float = 0.0011
    botocore_per_request: float = 0.00027
    twilio_sdk_per_post: float = 0.00012
    cold_start: float = 0.248


@dataclass
class Latencies:
    """Draws every duration of a run from one seeded generator, in the order the run asks."""

    chance: random.Random
    memory_mb: int
    twilio_factor: float = 1.0
    compute: Compute = field(default_factory=Compute)
    webhook_seconds: float = 0.025

    @property
    def cpu_factor(self) -> float:
        """How much longer CPU work takes on the function than on one core here."""
        return LAMBDA_MB_PER_VCPU / self.memory_mb

    def dynamodb(self, operation: str) -> float:
        """One DynamoDB request: the network and DynamoDB, and botocore's CPU on this function
        beyond what the measuring function already spent."""
        if operation == "TransactWriteItems":
            measured = DYNAMODB_TRANSACTION
        elif operation.startswith("Batch"):
            measured = DYNAMODB_BATCH
        else:
            measured = DYNAMODB_SINGLE
        extra_cpu = self.compute.botocore_per_request * (
            self.cpu_factor - LAMBDA_MB_PER_VCPU / _SOURCE_FUNCTION_MB
        )
        return measured.draw(self.chance) + max(0.0, extra_cpu)

    def sqs(self) -> float:
        return SQS_REQUEST.draw(self.chance) + self.compute.botocore_per_request * self.cpu_factor

    def twilio(self) -> float:
        return TWILIO_POST.draw(self.chance) * self.twilio_factor + self.compute.twilio_sdk_per_post * (
            self.cpu_factor
        )

    def engine(self) -> float:
        """The engine's own work on one record (parsing, deciding, building requests)."""
        return self.compute.engine_per_record * self.cpu_factor

    def cold_start(self) -> float:
        return self.compute.cold_start

    def assumptions(self) -> dict[str, str]:
        """Every figure, as the report shows it."""

        def shown(quantiles: Quantiles, factor: float = 1.0) -> str:
            p50, p99 = (quantiles.quantile(p) * 1000 * factor for p in (0.5, 0.99))
            return f"p50 {p50:.1f} ms, p99 {p99:.1f} ms ({quantiles.source})"

        return {
            "DynamoDB single-item request": shown(DYNAMODB_SINGLE),
            "DynamoDB BatchGetItem": shown(DYNAMODB_BATCH),
            "DynamoDB TransactWriteItems": shown(DYNAMODB_TRANSACTION),
            "Twilio Messages POST": shown(TWILIO_POST, self.twilio_factor) + f", x{self.twilio_factor:g}",
            "SQS request": shown(SQS_REQUEST),
            "function CPU": (
                f"x{self.cpu_factor:.2f} of one core here ({self.memory_mb} MB; 1,769 MB = 1 vCPU): "
                f"engine {self.engine() * 1000:.1f} ms a record, botocore "
                f"{self.compute.botocore_per_request * self.cpu_factor * 1000:.2f} ms a request, "
                f"Twilio SDK {self.compute.twilio_sdk_per_post * self.cpu_factor * 1000:.2f} ms a POST"
            ),
            "cold start": f"{self.compute.cold_start * 1000:.0f} ms (import and build, docs/performance.md)",
            "webhook": f"{self.webhook_seconds * 1000:.0f} ms from Twilio's POST to the queue (cost.py)",
        }
