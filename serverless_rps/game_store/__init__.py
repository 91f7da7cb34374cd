"""The DynamoDB adapter: `DynamoGameStore`, the one face `ports.GameStore` sees.

`from serverless_rps.game_store import DynamoGameStore, TableNames` is all the rest of the code
needs; the modules inside are split by the record each one owns (store.py lists them, and
docs/protocol.md's "Table formats" has one chapter per record).
"""

from serverless_rps.game_store.contacts import CONTACT_PREFIX
from serverless_rps.game_store.messages import COMPLETED, ERASED, IN_PROGRESS
from serverless_rps.game_store.store import DynamoGameStore
from serverless_rps.game_store.tables import TableNames

__all__ = ["COMPLETED", "CONTACT_PREFIX", "ERASED", "IN_PROGRESS", "DynamoGameStore", "TableNames"]
