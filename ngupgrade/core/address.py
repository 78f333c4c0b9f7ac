"""A Terraform resource-instance address as a value, printed and parsed as Terraform does. Pure.

``module.k8s["prod"].yandex_kubernetes_node_group.ng["gpu.v100"]``: module steps, the resource
type and name, an index key (``count``: an int, ``for_each``: a string). String keys use HCL's
quoted-string syntax (Terraform's ``addrs.StringKey.String``), so ``terraform state list`` and
ngupgrade print the same address; keys may hold dots, quotes and spaces
(adammck/terraform-inventory#133), so an address is never split on dots.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

IndexKey = int | str | None
"""``count`` gives an int, ``for_each`` a string, neither gives None (state v4 ``index_key``)."""


@dataclass(frozen=True)
class ModuleStep:
    """One ``module.NAME[KEY]`` step of a module path."""

    name: str
    key: IndexKey = None


def _format_key(key: IndexKey) -> str:
    if key is None:
        return ""
    if isinstance(key, bool):  # bool is an int subclass; a state never holds one here
        raise TypeError("index key must be int or str")
    if isinstance(key, int):
        return f"[{key}]"
    return f"[{hcl_quote(key)}]"


_HCL_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"}


def hcl_quote(text: str) -> str:
    """A string key as Terraform prints it in an address (``addrs.StringKey.String``).

    HCL's quoted-string syntax: ``\\n \\r \\t \\" \\\\`` escaped; ``${`` and ``%{``
    doubled to ``$${`` / ``%%{`` (template introducers); any other non-printable character
    as ``\\uXXXX`` (or ``\\UXXXXXXXX`` above the BMP); everything else, non-ASCII letters
    included, as is. So ``terraform state list`` and ngupgrade print the same address.
    """
    out = ['"']
    for i, ch in enumerate(text):
        if ch in _HCL_ESCAPES:
            out.append(_HCL_ESCAPES[ch])
        elif ch in "$%":
            out.append(ch * 2 if text.startswith("{", i + 1) else ch)
        elif not ch.isprintable():
            code = ord(ch)
            out.append(f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


@dataclass(frozen=True)
class TfAddress:
    """An absolute Terraform resource-instance address.

    ``str(addr)`` gives e.g. ``module.k8s["prod"].yandex_kubernetes_node_group.ng["gpu.v100"]``;
    :meth:`parse` reads it back (round-trip). Keys may hold dots, quotes and spaces
    (adammck/terraform-inventory#133), so an address is never split on dots.
    """

    type: str
    name: str
    index: IndexKey = None
    module: tuple[ModuleStep, ...] = ()
    mode: Literal["managed", "data"] = "managed"

    @property
    def module_path(self) -> str:
        """``module.a["x"].module.b``, or ``""`` for the root module."""
        return ".".join(f"module.{m.name}{_format_key(m.key)}" for m in self.module)

    def __str__(self) -> str:
        parts = [self.module_path] if self.module else []
        prefix = "data." if self.mode == "data" else ""
        parts.append(f"{prefix}{self.type}.{self.name}{_format_key(self.index)}")
        return ".".join(parts)

    @classmethod
    def parse(cls, text: str) -> TfAddress:
        """Parse an address as Terraform prints it.

        Raises:
            ValueError: the text is not a resource-instance address.
        """
        parser = _AddressParser(text)
        return parser.parse()


class _AddressParser:
    """A small recursive-descent reader for ``name[key]`` steps separated by dots."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> ValueError:
        return ValueError(f"not a Terraform address: {self.text!r} ({what} at {self.pos})")

    def ident(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and (
            self.text[self.pos].isalnum() or self.text[self.pos] in "_-"
        ):
            self.pos += 1
        if start == self.pos:
            raise self.fail("name expected")
        return self.text[start:self.pos]

    def key(self) -> IndexKey:
        if self.pos >= len(self.text) or self.text[self.pos] != "[":
            return None
        self.pos += 1
        value: IndexKey
        if self.text.startswith('"', self.pos):
            value = self.string()
        else:
            start = self.pos
            while self.pos < len(self.text) and self.text[self.pos].isdigit():
                self.pos += 1
            if start == self.pos:
                raise self.fail("key expected")
            value = int(self.text[start:self.pos])
        if not self.text.startswith("]", self.pos):
            raise self.fail("']' expected")
        self.pos += 1
        return value

    def string(self) -> str:
        """An HCL quoted string (the inverse of :func:`hcl_quote`); also reads JSON escapes."""
        text, pos = self.text, self.pos + 1
        out: list[str] = []
        while pos < len(text):
            ch = text[pos]
            if ch == '"':
                self.pos = pos + 1
                return "".join(out)
            if ch in "$%" and text.startswith(ch + "{", pos + 1):
                out.append(ch)  # "$${" is a literal "${"
                pos += 2
                continue
            if ch != "\\":
                out.append(ch)
                pos += 1
                continue
            esc = text[pos + 1:pos + 2]
            simple = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\", "/": "/",
                      "b": "\b", "f": "\f"}
            if esc in simple:
                out.append(simple[esc])
                pos += 2
                continue
            width = {"u": 4, "U": 8}.get(esc)
            digits = text[pos + 2:pos + 2 + width] if width else ""
            if not width or len(digits) != width or not all(
                    c in "0123456789abcdefABCDEF" for c in digits):
                self.pos = pos
                raise self.fail("bad escape in string key")
            code = int(digits, 16)
            pos += 2 + width
            if 0xD800 <= code < 0xDC00 and text.startswith("\\u", pos):  # JSON surrogate pair
                low = text[pos + 2:pos + 6]
                if len(low) == 4 and all(c in "0123456789abcdefABCDEF" for c in low):
                    code = 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
                    pos += 6
            if code > 0x10FFFF:
                self.pos = pos
                raise self.fail("bad escape in string key")
            out.append(chr(code))
        self.pos = pos
        raise self.fail("unterminated string key")

    def dot(self) -> None:
        if not self.text.startswith(".", self.pos):
            raise self.fail("'.' expected")
        self.pos += 1

    def parse(self) -> TfAddress:
        modules: list[ModuleStep] = []
        while self.text.startswith("module.", self.pos):
            self.pos += len("module.")
            name = self.ident()
            modules.append(ModuleStep(name, self.key()))
            self.dot()
        mode: Literal["managed", "data"] = "managed"
        if self.text.startswith("data.", self.pos):
            mode = "data"
            self.pos += len("data.")
        rtype = self.ident()
        self.dot()
        name = self.ident()
        index = self.key()
        if self.pos != len(self.text):
            raise self.fail("unexpected text")
        return TfAddress(rtype, name, index, tuple(modules), mode)
