"""End-to-end latency on the local stack: from the signed webhook POST to the first reply reaching
the local Twilio API, with 1, 4 and 16 game workers; and two players throwing at each other at the
same moment (lock contention): the time until both have their result.

Run: `python -m bench.latency [--quick]`. The stack runs with the soak's observers armed but no
faults (bench/chaos/injection.py): workers log what they do, and moto's server serialises DynamoDB
requests and rolls transactions back per item. Everything shares this machine's cores: the
figures are the local stack's, dominated by moto and process hand-offs, not AWS's.
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.chaos.soak import Harness, SoakOptions
from bench.stats import distribution

__all__ = ["measure", "render"]


def _observing_options(workers: int) -> SoakOptions:
    # The template's own timings: nothing here should expire.
    return SoakOptions(
        workers=workers,
        players=0,
        rates={},
        function_timeout_seconds=15,
        lock_lease_seconds=25,
        in_progress_expiry_seconds=30,
        lock_wait_seconds=1.5,
        visibility_timeout_seconds=90,
        log=lambda _: None,
    )


class _Inbox:
    """Every SMS the local Twilio API accepts, by recipient; waiters are woken as SMS arrive.

    Fed by the Twilio API's listener, so waiting costs no CPU: the figures are the stack's, not
    the harness's polling.
    """

    def __init__(self, harness: Harness) -> None:
        self._condition = threading.Condition()
        self._by_phone: dict[str, list[tuple[float, str]]] = defaultdict(list)
        assert harness.stack is not None
        harness.stack.twilio.subscribe(self._on_sms)

    def _on_sms(self, message: dict[str, Any]) -> None:
        with self._condition:
            self._by_phone[message["to"]].append((time.monotonic(), message["body"]))
            self._condition.notify_all()

    def wait(
        self, phone: str, since: float, wanted: Callable[[str], bool], timeout: float = 120
    ) -> float | None:
        """When the first SMS to `phone` after `since` whose body is `wanted` arrived, or None."""

        def found() -> float | None:
            return next((at for at, body in self._by_phone[phone] if at >= since and wanted(body)), None)

        with self._condition:
            self._condition.wait_for(lambda: found() is not None, timeout)
            return found()


def _register(harness: Harness, inbox: _Inbox, phones: list[str]) -> None:
    posted = {
        phone: harness.inbound[harness.text(phone, f"nick u{phone[-5:]}", "nick")].posted_at
        for phone in phones
    }
    for phone, since in posted.items():
        inbox.wait(phone, since, lambda body: body.startswith(("Welcome", "You're")))


def _play_pairs(
    harness: Harness, inbox: _Inbox, pairs: int, rounds: int, first_pair: int = 0
) -> tuple[list[float], float]:
    """`pairs` pairs play `rounds` games each, one message in flight per pair (closed loop).

    A pair's first throw is answered with "You threw ..."; the second with the result.
    """
    delays: list[float] = []
    lock = threading.Lock()

    def pair(index: int) -> None:
        first, second = f"+15550880{2 * index:03d}", f"+15550880{2 * index + 1:03d}"
        for _ in range(rounds):
            for phone, other, answer in ((first, second, "You threw"), (second, first, _RESULTS)):
                sid = harness.text(phone, f"throw rock u{other[-5:]}", "throw")
                posted = harness.inbound[sid].posted_at
                arrived = inbox.wait(phone, posted, _starting_with(answer))
                if arrived is not None:
                    with lock:
                        delays.append(arrived - posted)

    _register(harness, inbox, [f"+15550880{n:03d}" for n in range(2 * first_pair, 2 * (first_pair + pairs))])
    started = time.monotonic()
    threads = [
        threading.Thread(target=pair, args=(index,)) for index in range(first_pair, first_pair + pairs)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return delays, time.monotonic() - started


_RESULTS = ("You won", "You lost", "A tie")


def _starting_with(prefix: str | tuple[str, ...]) -> Callable[[str], bool]:
    return lambda body: body.startswith(prefix)


def _contention(harness: Harness, inbox: _Inbox, repeats: int, stagger: float) -> dict[str, Any]:
    """Two players throw at each other at (nearly) the same moment; time until both have a result.

    Sent together, the two messages usually land in one batch and one worker runs them one after
    the other. Staggered by a few tens of milliseconds, two pollers pick them up and two workers
    race for the same two locks: the case the canonical lock order is for.
    """
    phones = [f"+1555099{int(stagger * 1000):01d}{n:03d}" for n in range(2 * repeats)]
    _register(harness, inbox, phones)
    times: list[float] = []
    sids: list[str] = []
    for index in range(repeats):
        first, second = phones[2 * index], phones[2 * index + 1]
        pair = [harness.text(first, f"throw rock u{second[-5:]}", "contention")]
        time.sleep(stagger)
        pair.append(harness.text(second, f"throw paper u{first[-5:]}", "contention"))
        sids += pair
        posted = min(harness.inbound[sid].posted_at for sid in pair)
        arrivals = [
            inbox.wait(phone, posted, lambda body: body.startswith(_RESULTS)) for phone in (first, second)
        ]
        if None not in arrivals:
            times.append(max(arrival for arrival in arrivals if arrival is not None) - posted)
        time.sleep(0.5)
    wanted = set(sids)
    locks: Counter[str] = Counter()
    workers: dict[str, int] = {}
    for path in harness.event_directory.glob("worker-*.jsonl"):
        for line in path.read_text().splitlines():
            event = json.loads(line)
            if event.get("key") not in wanted:
                continue
            if event["e"] == "lock":
                locks["taken" if event["ok"] else "contended (backed off and retried)"] += 1
            if event["e"] == "commit" and event["ok"]:
                workers[event["key"]] = event["pid"]
    different = sum(
        1 for index in range(0, len(sids), 2) if workers.get(sids[index]) != workers.get(sids[index + 1])
    )
    return {
        "both_results": distribution(times),
        "lock_attempts": dict(locks),
        "pairs_run_by_two_workers": different,
        "repeats": repeats,
        "stagger_ms": stagger * 1000,
    }


def measure(quick: bool = False, progress: Any = print) -> dict[str, Any]:
    results: dict[str, Any] = {"workers": {}}
    worker_counts = (1, 4) if quick else (1, 4, 16)
    pairs, rounds = (8, 3) if quick else (16, 4)
    for workers in worker_counts:
        progress(f"latency: local stack with {workers} game worker(s) ...")
        with tempfile.TemporaryDirectory(prefix="rps-latency-") as directory:
            harness = Harness(_observing_options(workers), Path(directory))
            stack = harness.start_stack()
            try:
                stack.function("GameFunction").warm()
                inbox = _Inbox(harness)
                idle, _ = _play_pairs(harness, inbox, 1, 4 if quick else 8, first_pair=100)
                delays, seconds = _play_pairs(harness, inbox, pairs, rounds)
                entry = {
                    "one_at_a_time": distribution(idle),
                    "delays": distribution(delays),
                    "messages": len(delays),
                    "concurrent_pairs": pairs,
                    "throughput_per_second": len(delays) / seconds,
                }
                if workers == 4:
                    progress("latency: lock contention with 4 workers ...")
                    results["contention"] = [
                        _contention(harness, inbox, 5 if quick else 15, stagger) for stagger in (0.0, 0.05)
                    ]
                results["workers"][workers] = entry
            finally:
                stack.stop(save=False)
                harness.restore_environment()
    return results


def render(data: dict[str, Any]) -> str:
    lines = [
        "| game workers | one message at a time: p50 / p99 ms | concurrent pairs | messages "
        "| p50 ms | p95 ms | p99 ms | max ms | messages/s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for workers, entry in data["workers"].items():
        d, idle = entry["delays"], entry["one_at_a_time"]
        lines.append(
            f"| {workers} | {idle['median_ms']:.0f} / {idle['p99_ms']:.0f} | {entry['concurrent_pairs']} "
            f"| {entry['messages']} | {d['median_ms']:.0f} | {d['p95_ms']:.0f} | {d['p99_ms']:.0f} "
            f"| {d['max_ms']:.0f} | {entry['throughput_per_second']:.1f} |"
        )
    for case in data.get("contention", []):
        d = case["both_results"]
        lines += [
            "",
            f"Lock contention, 4 workers, {case['repeats']} pairs throwing at each other "
            f"{case['stagger_ms']:.0f} ms apart: both results after median "
            f"{d.get('median_ms', math.nan):.0f} ms, worst {d.get('max_ms', math.nan):.0f} ms; "
            f"{case['pairs_run_by_two_workers']} of {case['repeats']} "
            f"pairs ran on two workers; lock requests: {case['lock_attempts']}.",
        ]
    return "\n".join(lines)


def main() -> None:
    data = measure(quick="--quick" in sys.argv)
    print(render(data))
    if "--json" in sys.argv:
        print(json.dumps(data, indent=2, default=str))


if __name__ == "__main__":
    main()
