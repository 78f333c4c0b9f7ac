"""A state or plan document that is not UTF-8 text, named where it breaks and with how to get
it as Terraform writes it: UTF-16 or a byte order mark (PowerShell) before decoding, any other
fault (another encoding's bytes, a lone surrogate) once msgspec has refused the document or a
slice of it. The wording of the fault and its hint is :mod:`ngupgrade.core.text`'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import msgspec

from ngupgrade.core.errors import BadInput
from ngupgrade.core.text import encoding_fault, encoding_fix, encoding_message, utf8_copy_name

PULL = "terraform state pull > state.json"
"""How to get the state as Terraform writes it: UTF-8 JSON (or `--state tf:DIR`)."""


@contextmanager
def encoding_named(data: bytes, source: str, again: str) -> Iterator[None]:
    """Around the decoding of the document ``data`` (and of its slices, decoded later): when
    the JSON decoder refuses any of it and ``data`` is not UTF-8 text, raise
    :func:`refuse_not_text`'s error (offset and line in the whole file) instead: msgspec calls
    a lone surrogate "truncated" and another encoding's bytes "invalid JSON".

    Raises:
        BadInput: the encoding fault, or the decoder's own error when ``data`` is text.
    """
    try:
        yield
    except BadInput as err:
        cause: BaseException | None = err
        while cause is not None and not isinstance(cause, msgspec.DecodeError):
            cause = cause.__cause__ or cause.__context__
        if cause is not None:
            refuse_not_text(data, source, again)
        raise


def refuse_not_text(data: bytes, source: str, again: str) -> None:
    """After the JSON decoder refused ``data`` (a whole state or plan document): when it is not
    UTF-8 text, say so, where (byte offset and line in ``data``) and how to get it as Terraform
    writes it (``again``: the command, e.g. ``terraform state pull > state.json``), instead of
    msgspec's "not valid JSON" or "truncated". Returns when ``data`` is UTF-8 text.

    Raises:
        BadInput: the fault of :func:`ngupgrade.core.text.encoding_fault`, if any.
    """
    fault = encoding_fault(data)
    if fault is None:
        return
    raise BadInput(encoding_message(fault), source=source, path="$",
                   hint=encoding_fix(fault, source, writer="Terraform",
                                     default=again.rsplit("> ", 1)[-1],
                                     again=f"write it again: `{again}`"))


_ICONV = "iconv -f {enc} -t UTF-8 {src} > {copy}"
_NO_BOM = ("PowerShell's `>` writes UTF-16 and `Out-File -Encoding utf8` a BOM; PowerShell 7 "
           "writes it as Terraform does with `terraform state pull | Set-Content -Encoding "
           "utf8NoBOM state.json`")


def refuse_other_encodings(data: bytes, source: str) -> None:
    """Terraform writes states as UTF-8 without a byte order mark; a state saved through
    PowerShell is UTF-16 (``>``) or starts with a BOM. Name that instead of letting the
    JSON decoder call it "truncated".

    Raises:
        BadInput: the encoding, and how to convert the file (``iconv``, or writing it again).
    """
    src = source if source not in ("-", "") else "FILE"
    copy = utf8_copy_name(src, "state.json")
    head = data[:4]
    found: tuple[str, str] | None = None
    if head.startswith(b"\xef\xbb\xbf"):
        found = ("UTF-8 with a byte order mark (BOM, bytes EF BB BF)",
                 f"sed '1s/^\\xEF\\xBB\\xBF//' {src} > {copy}")
    elif head.startswith((b"\xff\xfe", b"\xfe\xff")):
        order = "LE" if head.startswith(b"\xff\xfe") else "BE"
        found = (f"UTF-16 {order} with a byte order mark (BOM)",
                 _ICONV.format(enc="UTF-16", src=src, copy=copy))
    elif len(head) >= 2 and b"\x00" in head[:2]:
        order = "LE" if head[1:2] == b"\x00" else "BE"
        found = (f"UTF-16 {order} (NUL bytes between the characters)",
                 _ICONV.format(enc=f"UTF-16{order}", src=src, copy=copy))
    if found is not None:
        raise BadInput(f"the state is {found[0]}; Terraform writes UTF-8 JSON without a BOM",
                       source=source, path="$",
                       hint=f"convert it: `{found[1]}`; {_NO_BOM}")
