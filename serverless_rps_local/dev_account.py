"""The made-up Twilio account, numbers and URLs of the local stack and of the files in events/.

Nothing here is a secret: the token only signs requests between local processes.
"""

from __future__ import annotations

__all__ = [
    "ACCOUNT_SID",
    "AUTH_TOKEN",
    "EVENTS_WEBHOOK_URL",
    "FIRST_PHONE_NUMBERS",
    "SERVICE_NUMBER",
]

ACCOUNT_SID = "AC" + "0" * 31 + "1"
AUTH_TOKEN = "local-development-auth-token"
# The game's own number, in the 555-01xx range that is reserved for fiction.
SERVICE_NUMBER = "+15550100000"
FIRST_PHONE_NUMBERS = ("+15550100001", "+15550100002")
# The public URL the webhook event in events/ is signed for; `invoke` sets PUBLIC_WEBHOOK_URL to it.
EVENTS_WEBHOOK_URL = "https://local.execute-api.us-east-1.amazonaws.com/sms"
