"""The DynamoDB adapter, and everything the rest of the code takes from it.

Two stores, one per side of the commit: `DynamoGameStore` (`ports.GameStore`: claim, reads,
leases, the commit) and the `OutboxRecords` it builds beside it (`ports.OutboxStore`: a
committed message's replies). The webhook's status route writes through `DeliveryStatusRecords`;
the operator's tool reads records with the item readers below. The modules inside are split by
the record each one owns (store.py lists them, and docs/protocol.md's "Table formats" has one
chapter per record); nothing outside this package imports them.
"""

from serverless_rps.game_store.contacts import CONTACT_PREFIX
from serverless_rps.game_store.delivery_status import (
    STATUS_RANK,
    DeliveryStatus,
    DeliveryStatusRecords,
    StatusOutcome,
    statuses_from,
)
from serverless_rps.game_store.errors import translated
from serverless_rps.game_store.items import budget_from, player_from_item
from serverless_rps.game_store.messages import COMPLETED, IN_PROGRESS, completed_record
from serverless_rps.game_store.outboxes import OutboxRecords
from serverless_rps.game_store.sms_counts import CEILING_PREFIX
from serverless_rps.game_store.store import DynamoGameStore
from serverless_rps.game_store.tables import TableNames

__all__ = [
    "CEILING_PREFIX",
    "COMPLETED",
    "CONTACT_PREFIX",
    "IN_PROGRESS",
    "STATUS_RANK",
    "DeliveryStatus",
    "DeliveryStatusRecords",
    "DynamoGameStore",
    "OutboxRecords",
    "StatusOutcome",
    "TableNames",
    "budget_from",
    "completed_record",
    "player_from_item",
    "statuses_from",
    "translated",
]
