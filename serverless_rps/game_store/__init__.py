"""The DynamoDB adapter: `DynamoGameStore`, the one face `ports.GameStore` sees.

`from serverless_rps.game_store import DynamoGameStore, TableNames` is all the rest of the code
needs; the modules inside are split by the record each one owns (docs/protocol.md, "Table formats").
"""

from serverless_rps.game_store.store import (
    COMPLETED,
    CONTACT_PREFIX,
    ERASED,
    IN_PROGRESS,
    DynamoGameStore,
    TableNames,
)

__all__ = ["COMPLETED", "CONTACT_PREFIX", "ERASED", "IN_PROGRESS", "DynamoGameStore", "TableNames"]
