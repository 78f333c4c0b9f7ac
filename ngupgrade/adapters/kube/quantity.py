"""Kubernetes resource quantities ("100m", "1.5Gi", "2", "1e3") -> integers in scheduler units.

Written here instead of ``kubernetes.utils.parse_quantity`` because that one imports the whole
client package (seconds of start-up for every command that reads a dump) and builds a
``Decimal`` per value; a dump of 150,000 pods holds about a million quantities, nearly all
repeats, so a small exact parser behind a cache is both lighter and faster
(``bench/bench_kube_dump.py``).

Grammar (``k8s.io/apimachinery/pkg/api/resource/quantity.go``)::

    <quantity>        ::= <signedNumber><suffix>
    <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
    <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
    <decimalSI>       ::= m | "" | k | M | G | T | P | E
    <decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber>
    <number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits>

"1E3" is an exponent (1000), "1E" alone is exa. The parser (``suffix.go``) also takes "n" and
"u" (nano, micro), which the API itself writes (metrics: "12345678n"). Rounding follows
``Quantity.Value()`` and ``MilliValue()``: up, away from zero, so "1.5m" cpu is 2 millicores
and "1m" of memory is 1 byte.
"""

from __future__ import annotations

import re
from fractions import Fraction

__all__ = ["INT64_MAX", "QuantityError", "cpu_millicores", "to_int"]

INT64_MAX = (1 << 63) - 1
"""Kubernetes keeps quantities as int64 when read as integers; larger values saturate."""

_QUANTITY = re.compile(
    r"(?P<sign>[+-]?)(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?:(?P<binary>[KMGTPE]i)|[eE](?P<exp>[+-]?[0-9]+)|(?P<decimal>[numkMGTPE]?))"
)
_BINARY = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50,
           "Ei": 1 << 60}
_DECIMAL_EXP = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_MAX_EXP = 64
"""Exponents beyond this only make int64-saturated or zero values; refusing them keeps a hostile
"1e999999999" from building a huge integer."""
_MAX_DIGITS = 100
"""Longer numbers are no real quantity (the API server canonicalizes to at most 19 significant
digits), and Python refuses int strings over 4300 digits with a bare ValueError: name it as
a quantity fault instead."""


class QuantityError(ValueError):
    """The text is not a Kubernetes quantity (message: ``not a quantity: '1x'``)."""


def _exact(text: str) -> Fraction:
    match = _QUANTITY.fullmatch(text)
    if match is None:
        raise QuantityError(f"not a quantity: {text!r}")
    if len(match["number"]) > _MAX_DIGITS:
        raise QuantityError(f"not a quantity: {text[:40]!r}... ({len(match['number'])} digits; "
                            f"a quantity has at most {_MAX_DIGITS})")
    value = Fraction(match["number"])
    if match["binary"]:
        value *= _BINARY[match["binary"]]
    else:
        exp = int(match["exp"]) if match["exp"] is not None else _DECIMAL_EXP[match["decimal"]]
        if abs(exp) > _MAX_EXP:
            raise QuantityError(f"not a quantity: {text!r} (exponent out of range)")
        value *= Fraction(10) ** exp
    return -value if match["sign"] == "-" else value


def _round_up(value: Fraction) -> int:
    """Away from zero, as ``Quantity.Value()``; saturated at int64 like the API server."""
    if value >= 0:
        whole = -(-value.numerator // value.denominator)  # ceiling
    else:
        whole = value.numerator // value.denominator  # floor: away from zero
    return max(-INT64_MAX - 1, min(INT64_MAX, whole))


_VALUE_CACHE: dict[str, int] = {}
_MILLI_CACHE: dict[str, int] = {}
_CACHE_LIMIT = 65536  # distinct quantities in a real cluster number in the hundreds


def _text(value: object) -> str:
    # The API always writes quantities as strings; hand-written dumps sometimes hold numbers.
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise QuantityError(f"not a quantity: {value!r}")
    return value if isinstance(value, str) else repr(value)


def to_int(value: object) -> int:
    """A quantity as an integer rounded up (``Quantity.Value()``): bytes for memory and
    ephemeral-storage, a count for pods and extended resources.

    Raises:
        QuantityError: not a quantity.
    """
    if type(value) is not str:
        return _round_up(_exact(_text(value)))
    cached = _VALUE_CACHE.get(value)
    if cached is not None:
        return cached
    result = _round_up(_exact(_text(value)))
    if len(_VALUE_CACHE) < _CACHE_LIMIT:
        _VALUE_CACHE[value] = result
    return result


def cpu_millicores(value: object) -> int:
    """A cpu quantity in millicores rounded up (``Quantity.MilliValue()``): "2" -> 2000,
    "100m" -> 100, "0.1" -> 100, "1.5m" -> 2.

    Raises:
        QuantityError: not a quantity.
    """
    if type(value) is not str:
        return _round_up(_exact(_text(value)) * 1000)
    cached = _MILLI_CACHE.get(value)
    if cached is not None:
        return cached
    result = _round_up(_exact(_text(value)) * 1000)
    if len(_MILLI_CACHE) < _CACHE_LIMIT:
        _MILLI_CACHE[value] = result
    return result
