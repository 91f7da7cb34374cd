"""A stand-in for the game function, for testing the event source alone.

Each record's body says what to do with it: {"do": "succeed" | "fail" | "raise" | "sleep" |
"name-a-stranger", "seconds": n, "started": path}; a `started` file is created when the record's
work begins, so a test knows when the worker is mid-message. The response also carries the
worker's process id, so tests can tell execution environments apart.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    failures = []
    for record in event["Records"]:
        instruction = json.loads(record["body"])
        action = instruction["do"]
        if "started" in instruction:
            Path(instruction["started"]).touch()
        if action == "raise":
            raise RuntimeError("the stand-in function was told to raise")
        if action == "sleep":
            time.sleep(float(instruction["seconds"]))
        elif action == "fail":
            failures.append({"itemIdentifier": record["messageId"]})
        elif action == "name-a-stranger":
            failures.append({"itemIdentifier": "not-a-message-of-this-batch"})
    return {"batchItemFailures": failures, "pid": os.getpid(), "records": event["Records"]}
