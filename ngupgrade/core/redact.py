"""Credentials never printed: the userinfo of a URL (``https://KEY:SECRET@host``).

RFC 3986 section 3.2.1 (https://www.rfc-editor.org/rfc/rfc3986#section-3.2.1): "Use of the
format "user:password" in the userinfo field is deprecated. Applications should not render
as clear text any data after the first colon (":") found within a userinfo subcomponent".
ngupgrade hides the whole userinfo, as curl's and git's messages do with a password: a key
id is half a credential too. One function for every URL or endpoint ngupgrade prints (the
CLI's error lines and hints, the JSON ``error`` object, the report header's ``inputs``), so a
message built anywhere (a library's own words about the endpoint included) is covered.
"""

from __future__ import annotations

import re
from typing import Any

_USERINFO = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*://)[^/?#\s@'\"<>]+@")
_BARE = re.compile(r"(^|[\s'\"(=])[^\s/?#@:'\"<>()=]+:[^\s/?#@'\"<>]+@(?=[A-Za-z0-9\[])")
"""``KEY:SECRET@host:port`` with no scheme (an ``--endpoint`` is HOST:PORT)."""
HIDDEN = "***"
"""What stands for the userinfo: ``https://***@storage.example``."""


def redact_urls(text: str) -> str:
    """``text`` with the userinfo of every URL in it replaced by :data:`HIDDEN`
    (``https://k:s@host/x`` -> ``https://***@host/x``, and with no scheme ``k:s@host:443``
    -> ``***@host:443``); anything else unchanged (``user@example.com`` too)."""
    if "@" not in text:
        return text
    return _BARE.sub(rf"\1{HIDDEN}@", _USERINFO.sub(rf"\1{HIDDEN}@", text))


def redact_values(value: Any) -> Any:
    """A JSON value (dicts, lists, strings, numbers) with :func:`redact_urls` applied to
    every string in it, keys included."""
    if isinstance(value, str):
        return redact_urls(value)
    if isinstance(value, dict):
        return {redact_values(k): redact_values(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_values(v) for v in value]
    return value
