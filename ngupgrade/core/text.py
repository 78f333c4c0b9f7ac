"""Strings that are not text: lone UTF-16 surrogates from ``\\udXXX`` escapes, and documents
whose bytes are not UTF-8.

JSON (and YAML's ``"\\ud800"``) can spell half of a UTF-16 surrogate pair; Python's decoders
turn it into a str that no UTF-8 stream can print, so a report naming it crashed (exit 70).
No tool writes one (Go's and Python's encoders pair them or write U+FFFD): a file holding one
was edited by hand or damaged, and its reader reports it as bad input (exit 3), naming where.
A document's bytes can fail earlier: a file saved in a legacy encoding (Latin-1, Windows-1251),
through PowerShell (UTF-16), or by Python with ``errors="surrogatepass"`` (a lone surrogate as
the three bytes ``ED B2 80``); :func:`encoding_fault` says which, and at which byte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal


def lone_surrogate(text: str) -> int | None:
    """Index of the first lone surrogate (U+D800..U+DFFF) in ``text``, or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        return err.start
    return None


def lone_surrogate_path(value: Any, root: str = "$") -> str | None:
    """JSON path of the first key or string value holding a lone surrogate, or None.

    ``value`` is a decoded document (dicts, lists, scalars); keys are paths as
    ``$.a.b[2]``; a bad key is reported at the key itself. Iterative, so a document nested as
    deep as its decoder allowed cannot exhaust the stack here.
    """
    stack: list[tuple[Any, str]] = [(value, root)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if lone_surrogate(item) is not None:
                return path
        elif isinstance(item, dict):
            children = []
            for key, child in item.items():
                where = f"{path}.{key}"
                if isinstance(key, str) and lone_surrogate(key) is not None:
                    return printable_path(where)
                children.append((child, where))
            stack.extend(reversed(children))
        elif isinstance(item, list):
            stack.extend(reversed([(child, f"{path}[{i}]") for i, child in enumerate(item)]))
    return None


def printable_path(path: str) -> str:
    """``path`` with any lone surrogate written as ``\\udXXX`` (printable in any stream)."""
    return path.encode("utf-8", "backslashreplace").decode("utf-8")


def printable_text(text: str) -> str:
    """``text`` with every character that is not printable (``str.isprintable``: controls,
    ESC, a newline, bidi overrides such as U+202E, lone surrogates) written as ``\\uXXXX``
    (``\\UXXXXXXXX`` above the BMP), as :func:`ngupgrade.core.address.hcl_quote` writes an
    address key. For names read from a file that are printed in a report: a name holding
    ``\\x1b[31m`` or a newline would colour a terminal or break a table's row."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else
                   (f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
                   for ch in text)


LONE_SURROGATE_MESSAGE = ("holds a lone UTF-16 surrogate (a \\udXXX escape that is half a "
                          "character): not text")
"""The one wording of the fault, for every reader."""


FaultKind = Literal["utf-16", "bom", "bytes", "surrogate", "escape"]


@dataclass(frozen=True)
class EncodingFault:
    """Where a document meant to be UTF-8 JSON stops being text: ``offset`` of the first bad
    byte (0-based), its ``line`` (1-based), ``what`` is there, said for people, and its
    ``kind``: ``utf-16``, ``bom`` (a UTF-8 byte order mark), ``bytes`` (not UTF-8: another
    encoding), ``surrogate`` (the bytes ``ED A0..BF xx`` of an encoded surrogate) or
    ``escape`` (a lone ``\\udXXX`` escape)."""

    offset: int
    line: int
    what: str
    kind: FaultKind


_CHUNK = 1 << 20
"""Bytes decoded at a time when looking for the first one that is not UTF-8 (the document
may be hundreds of MB: never one str of all of it)."""

_SURROGATE_ESCAPE = re.compile(rb"\\\\|\\u[dD]([89a-fA-F][0-9a-fA-F]{2})")
"""An escaped backslash (skipped, so ``\\\\udc80`` is text) or a ``\\udXXX`` escape."""


def encoding_fault(data: bytes) -> EncodingFault | None:
    """The first reason ``data`` is not UTF-8 JSON text, or None.

    In order: UTF-16 (a byte order mark ``FF FE``/``FE FF``, or NUL bytes between the first
    characters) or a UTF-8 byte order mark (``EF BB BF``, which JSON does not allow); the first
    byte sequence that is not UTF-8 (``ED A0..BF xx`` named as the lone surrogate it encodes);
    a ``\\udXXX`` escape that is half a surrogate pair (:data:`LONE_SURROGATE_MESSAGE`).
    Cost: one pass in 1 MiB slices; meant for the error path of a decoder that refused
    ``data``.
    """
    head = data[:4]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or (len(head) >= 2 and 0 in head[:2]):
        return EncodingFault(0, 1, "UTF-16 text (a byte order mark or NUL bytes between the "
                                   "characters), not UTF-8", "utf-16")
    if head.startswith(b"\xef\xbb\xbf"):
        return EncodingFault(0, 1, "a UTF-8 byte order mark (EF BB BF), which JSON does not "
                                   "allow", "bom")
    bad = _first_bad_utf8(data)
    if bad is not None:
        start, end = bad
        surrogate = _encoded_surrogate(data, start)
        if surrogate is not None:
            return EncodingFault(start, _line(data, start), surrogate, "surrogate")
        return EncodingFault(start, _line(data, start), _bad_bytes_text(data, start, end),
                             "bytes")
    lone = _lone_surrogate_escape(data)
    if lone is not None:
        start, escape = lone
        return EncodingFault(start, _line(data, start), f"{LONE_SURROGATE_MESSAGE}: {escape}",
                             "escape")
    return None


def _line(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _first_bad_utf8(data: bytes) -> tuple[int, int] | None:
    """(start, end) of the first bytes that are not UTF-8, or None. Slices end before a
    continuation byte's run, so no character is cut between two slices."""
    start, size = 0, len(data)
    while start < size:
        end = min(start + _CHUNK, size)
        back = 0
        while end < size and back < 3 and data[end] & 0xC0 == 0x80:
            end -= 1
            back += 1
        try:
            data[start:end].decode("utf-8")
        except UnicodeDecodeError as err:
            return start + err.start, start + err.end
        start = end
    return None


def _encoded_surrogate(data: bytes, start: int) -> str | None:
    """``ED A0..BF xx`` at ``start``: a surrogate as ``errors="surrogatepass"`` encodes it (and
    ``surrogateescape`` text re-encoded so), named; else None."""
    seq = data[start:start + 3]
    if len(seq) < 3 or seq[0] != 0xED or not 0xA0 <= seq[1] <= 0xBF or seq[2] & 0xC0 != 0x80:
        return None
    code = 0xD000 | (seq[1] & 0x3F) << 6 | seq[2] & 0x3F
    return (f"bytes ED {seq[1]:02X} {seq[2]:02X} encode the lone surrogate U+{code:04X}, "
            "which is not UTF-8")


def _bad_bytes_text(data: bytes, start: int, end: int) -> str:
    bad = data[start:max(end, start + 1)]
    shown = " ".join(f"{b:02X}" for b in bad)
    said = f"byte {shown} is" if len(bad) == 1 else f"bytes {shown} are"
    return f"{said} not UTF-8 (a file saved as Latin-1, Windows-1251 or the like?)"


def _lone_surrogate_escape(data: bytes) -> tuple[int, str] | None:
    """(offset, escape) of the first ``\\udXXX`` escape that is not one half of a high-low
    pair, or None."""
    high: re.Match[bytes] | None = None  # a high half waiting for its low half
    for match in _SURROGATE_ESCAPE.finditer(data):
        escape = match.group(1)
        low = escape is not None and int(escape, 16) >= 0xC00
        if high is not None:
            if low and match.start() == high.end():
                high = None
                continue
            return high.start(), high.group().decode()
        if escape is None:  # an escaped backslash
            continue
        if low:  # a low half with no high half before it
            return match.start(), match.group().decode()
        high = match
    return None if high is None else (high.start(), high.group().decode())


def encoding_message(fault: EncodingFault) -> str:
    """The one wording of an encoding fault: ``not UTF-8 text at byte offset 6 (line 1): ...``
    (``not text`` for a lone ``\\udXXX`` escape, which is valid UTF-8 spelling no text)."""
    said = "not text" if fault.kind == "escape" else "not UTF-8 text"
    return f"{said} at byte offset {fault.offset} (line {fault.line}): {fault.what}"


def utf8_copy_name(file: str, default: str) -> str:
    """Where the converted copy of ``file`` goes in a hint: beside it, ``x.utf8.json`` for
    ``x.json`` (``default``, e.g. ``state.json``, when the input was stdin, written ``FILE``).
    Never ``file`` itself: a shell's ``>`` empties the file before ``iconv`` reads it, so a
    hint of ``iconv ... state.json > state.json`` would lose the user's only copy."""
    if file in ("-", "", "FILE"):
        return default
    head, sep, name = file.rpartition("/")
    stem, dot, suffix = name.rpartition(".")
    copy = f"{stem}.utf8.{suffix}" if dot and stem else f"{name}.utf8"
    return f"{head}{sep}{copy}"


def encoding_fix(fault: EncodingFault, file: str, *, writer: str, default: str,
                 again: str, utf16_note: str = "PowerShell's `>` writes UTF-16") -> str:
    """The hint for ``fault`` in ``file`` (``-``: stdin): how to convert it to a UTF-8 copy
    (:func:`utf8_copy_name`; ``default`` names it for stdin) or get it again. ``writer``
    names what writes such files as UTF-8 (``Terraform``, ``kubectl``); ``again`` says how to
    get the file again, as a clause (``write it again: `terraform state pull > state.json```);
    ``utf16_note`` how UTF-16 happens. The one owner of these hints: the state, plan,
    cluster-dump and quota-file readers all ask it."""
    src = file if file not in ("-", "") else "FILE"
    copy = utf8_copy_name(src, default)
    return {
        "utf-16": f"convert it: `iconv -f UTF-16 -t UTF-8 {src} > {copy}` ({utf16_note})",
        "bom": f"remove the mark: `sed '1s/^\\xEF\\xBB\\xBF//' {src} > {copy}`",
        "bytes": f"{writer} writes UTF-8, so the file was re-encoded or edited: convert it "
                 f"from its encoding (`iconv -f WINDOWS-1251 -t UTF-8 {src} > {copy}`), "
                 f"or {again}",
        "surrogate": f"{writer} never writes one: a program wrote text it had read with "
                     f"errors='surrogateescape' or 'surrogatepass'; {again}",
        "escape": f"{writer} never writes one: the file was edited by hand or damaged; "
                  f"{again}",
    }[fault.kind]
