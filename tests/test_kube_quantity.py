"""Kubernetes quantities -> scheduler units, against the rules of apimachinery's quantity.go
(grammar in its doc comment; Value()/MilliValue() round up, away from zero)."""

from __future__ import annotations

import pytest

from ngupgrade.adapters.kube.quantity import INT64_MAX, QuantityError, cpu_millicores, to_int


@pytest.mark.parametrize(("text", "millicores"), [
    ("100m", 100), ("2", 2000), ("0.1", 100), ("1.5", 1500), ("250m", 250), ("3920m", 3920),
    (".5", 500), ("5.", 5000), ("+1", 1000), ("0", 0), ("1k", 1_000_000),
    ("1e3", 1_000_000), ("1E-3", 1), ("1e-3", 1),
    ("1.5m", 2),      # 1.5 millicores round up to 2 (MilliValue rounds up)
    ("0.1m", 1),      # 100 microcores -> 1 millicore
    ("500u", 1),      # micro, as the API writes small values
    ("12345678n", 13),  # 12.345678m -> 13 (metrics-server style)
    (2, 2000), (0.5, 500),  # numbers in hand-written files
])
def test_cpu_in_millicores(text: object, millicores: int) -> None:
    assert cpu_millicores(text) == millicores


@pytest.mark.parametrize(("text", "value"), [
    ("1.5Gi", 1610612736),           # 1.5 * 2^30
    ("500Mi", 524288000),            # 500 * 2^20
    ("123Mi", 128974848),
    ("128974848", 128974848),
    ("129e6", 129_000_000),
    ("1e3", 1000), ("1E3", 1000),    # E followed by digits is an exponent...
    ("1E", 10**18),                  # ...alone it is exa
    ("1Ki", 1024), ("1k", 1000), ("1M", 1_000_000), ("1G", 10**9), ("1Ei", 2**60),
    ("13948518Ki", 14283282432),     # a 4 vCPU/16 GB node's allocatable memory
    ("110", 110),                    # pods
    ("1m", 1),                       # 0.001 byte rounds up to 1
    ("0.5", 1),
    ("10E", INT64_MAX),              # beyond int64: saturated
    ("-1", -1),                      # the grammar has a sign; callers refuse negatives
    ("-1.5", -2),                    # away from zero
])
def test_other_resources_as_integers(text: str, value: int) -> None:
    assert to_int(text) == value


@pytest.mark.parametrize("text", [
    "1x", "", " 1", "1 ", "1Mi1", "1.1.1", "Mi", "1K", "1mi", "e3", "1e", "1e3.5", "1.5.Gi",
    "--1", "1i", "0x10", "1_000", "inf", "NaN", "1e999999999", True, None, [], {},
])
def test_not_a_quantity(text: object) -> None:
    with pytest.raises(QuantityError, match="not a quantity"):
        to_int(text)
    with pytest.raises(QuantityError, match="not a quantity"):
        cpu_millicores(text)


@pytest.mark.parametrize("text", ["1" * 101, "0." + "0" * 5000 + "1", "9" * 5000 + "Gi"])
def test_a_number_of_hundreds_of_digits_is_a_quantity_fault(text: str) -> None:
    # Python's own int() would raise a bare ValueError past 4300 digits: the dump reader
    # only turns QuantityError into a named fault.
    for read in (to_int, cpu_millicores):
        with pytest.raises(QuantityError, match=r"not a quantity: .*digits; a quantity has "
                                                r"at most 100\)"):
            read(text)


def test_a_long_but_plausible_number_still_reads() -> None:
    assert to_int("1" * 19) == 1111111111111111111
    assert to_int("0." + "0" * 90 + "1") == 1  # rounded up, as Quantity.Value()


def test_error_message_quotes_the_text() -> None:
    with pytest.raises(QuantityError) as info:
        cpu_millicores("1x")
    assert str(info.value) == "not a quantity: '1x'"


def test_repeated_values_agree() -> None:  # the cache must not mix cpu and byte readings
    assert cpu_millicores("2") == 2000
    assert to_int("2") == 2
    assert cpu_millicores("2") == 2000
