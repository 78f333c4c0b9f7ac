"""A cluster dump that is not UTF-8 text is bad input (exit 3) that says where and what to do;
with ``-o junit`` stdout still holds a JUnit document, whose one test case carries the error.

Before: a byte of another encoding read "not valid JSON: Invalid UTF-8 encoded string" with the
hint "is the file complete? a cut-off download...", a ``\\udc80`` escape "invalid utf-16
surrogate pair", neither named what was wrong where; and ``-o junit`` wrote nothing, so a CI
reading the report saw an empty file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_STATE, ROOT, CliResult
from tests.test_drain_check_cli import calm_cluster

STATE = str(EXAMPLE_STATE)
Run = Callable[..., CliResult]
EXPORT = "kubectl get nodes,pods,pdb,deployments,replicasets,statefulsets,daemonsets,pvc,pv"


def _dump_with(tmp_path: Path, inserted: bytes, name: str = "cluster.json") -> tuple[Path, int]:
    """The calm cluster as kubectl writes it (indented), with ``inserted`` put right after the
    opening quote of the first ``"web-1"``; returns the file and that byte offset."""
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": calm_cluster()},
                      indent=4).encode()
    at = text.index(b'"web-1"') + 1
    path = tmp_path / name
    path.write_bytes(text[:at] + inserted + text[at:])
    return path, at


def _line(path: Path, offset: int) -> int:
    return path.read_bytes()[:offset].count(b"\n") + 1


def _check(run_cli: Run, path: Path, *extra: str) -> CliResult:
    return run_cli("drain-check", "--state", STATE, "-g", "workers", "--cluster", str(path),
                   *extra)


@pytest.mark.parametrize(("inserted", "what"), [
    (b"\xe9", "byte E9 is not UTF-8"),                      # é in Latin-1
    (b"\xcf\xf0", "byte CF is not UTF-8"),                  # "Пр" in Windows-1251
])
def test_a_byte_of_another_encoding_names_file_offset_and_the_fix(
        tmp_path: Path, run_cli: Run, inserted: bytes, what: str) -> None:
    path, at = _dump_with(tmp_path, inserted)
    result = _check(run_cli, path)
    assert result.exit_code == 3
    error, hint = result.stderr.splitlines()[:2]
    assert error.startswith(f"error: {path}: $.items[")
    assert f"not UTF-8 text at byte offset {at} (line {_line(path, at)}): {what}" in error
    assert hint.startswith("hint: kubectl writes UTF-8")
    assert f"iconv -f WINDOWS-1251 -t UTF-8 {path} > {tmp_path}/cluster.utf8.json" in hint
    assert "is the file complete" not in result.stderr
    assert "Traceback" not in result.stderr


def test_a_lone_surrogate_escape_is_named_with_its_offset(tmp_path: Path, run_cli: Run) -> None:
    path, at = _dump_with(tmp_path, b"\\udc80")
    result = _check(run_cli, path)
    assert result.exit_code == 3
    error = result.stderr.splitlines()[0]
    assert error == (f"error: {path}: $: not text at byte offset {at} (line {_line(path, at)}): "
                     "holds a lone UTF-16 surrogate (a \\udXXX escape that is half a "
                     "character): not text: \\udc80")
    assert "edited by hand or damaged" in result.stderr and EXPORT in result.stderr


def test_surrogateescape_text_written_back_is_named_as_a_surrogate(tmp_path: Path,
                                                                   run_cli: Run) -> None:
    # A Latin-1 byte 0x80 read with errors="surrogateescape" becomes '\udc80'; written back
    # with errors="surrogatepass" it is the three bytes ED B2 80, which no UTF-8 decoder takes.
    inserted = "\udc80".encode("utf-8", "surrogatepass")
    assert inserted == b"\xed\xb2\x80"
    path, at = _dump_with(tmp_path, inserted)
    result = _check(run_cli, path, "-o", "json")
    assert result.exit_code == 3
    error = json.loads(result.stdout)["error"]
    assert (error["code"], error["source"]) == ("bad-input", str(path))
    assert error["message"].endswith(f"not UTF-8 text at byte offset {at} (line "
                                     f"{_line(path, at)}): bytes ED B2 80 encode the lone "
                                     "surrogate U+DC80, which is not UTF-8")
    assert "surrogateescape" in error["hint"]


def test_utf16_from_powershell_says_how_to_convert(tmp_path: Path, run_cli: Run) -> None:
    path = tmp_path / "cluster.json"
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": calm_cluster()})
    path.write_bytes(text.encode("utf-16"))  # what PowerShell's `>` writes: BOM FF FE
    result = _check(run_cli, path)
    assert result.exit_code == 3
    assert (f"error: {path}: $: not UTF-8 text at byte offset 0 (line 1): UTF-16 text"
            in result.stderr)
    # beside the dump, never onto it: `> cluster.json` empties the file iconv reads
    assert f"iconv -f UTF-16 -t UTF-8 {path} > {tmp_path}/cluster.utf8.json" in result.stderr


def test_the_fault_is_found_past_the_first_mebibyte() -> None:
    # 1 MiB slices, cut before a continuation byte: a 2-byte character across the first cut
    # is text, and the bad byte after it is found at its own offset.
    from ngupgrade.core.text import encoding_fault

    body = b"x" * ((1 << 20) - 1) + "ё".encode() + b"\xe9"
    fault = encoding_fault(b'"' + body + b'"')
    assert fault is not None and (fault.offset, fault.kind) == ((1 << 20) + 2, "bytes")
    assert encoding_fault(b'"' + b"x" * ((1 << 20) - 1) + "ё".encode() + b'"') is None


# ---- -o junit on a failure before any report -------------------------------------------------

def _only_case(stdout: str) -> ET.Element:
    root = ET.fromstring(stdout)
    (case,) = root.iter("testcase")
    return case


def test_junit_on_bad_input_is_one_errored_test_case(tmp_path: Path, run_cli: Run) -> None:
    path, at = _dump_with(tmp_path, b"\xe9")
    result = _check(run_cli, path, "-o", "junit")
    assert result.exit_code == 3  # as without -o junit
    case = _only_case(result.stdout)
    assert (case.get("classname"), case.get("name")) == ("drain-check", "drain-check")
    error = case.find("error")
    assert error is not None and error.get("type") == "bad-input"
    assert error.get("message", "").startswith(f"{path}: $.items[")
    assert f"not UTF-8 text at byte offset {at}" in error.get("message", "")
    assert "exit code 3" in (error.text or "") and "iconv" in (error.text or "")


def test_junit_on_a_usage_error_is_one_errored_test_case(tmp_path: Path, run_cli: Run) -> None:
    path, _ = _dump_with(tmp_path, b"")
    result = _check(run_cli, path, "-o", "junit", "--accept", "pdb-block-eviction")
    assert result.exit_code == 2
    error = _only_case(result.stdout).find("error")
    assert error is not None and error.get("type") == "usage"
    assert error.get("message") == "--accept pdb-block-eviction: not a drain-check finding code"
    assert "exit code 2" in (error.text or "")
    assert "did you mean pdb-blocks-eviction" in (error.text or "")  # the hint


def test_junit_of_a_failed_check_is_still_one_document(tmp_path: Path, run_cli: Run) -> None:
    from tests.test_drain_check_cli import blocked_cluster, dump

    result = run_cli("drain-check", "--state", STATE, "-g", "workers", "--cluster",
                     dump(tmp_path, blocked_cluster()), "-o", "junit")
    assert result.exit_code == 1
    root = ET.fromstring(result.stdout)  # one document: no error case appended after it
    assert not [c for c in root.iter("testcase") if c.find("error") is not None]


def test_preflight_junit_on_bad_input_too(tmp_path: Path, run_cli: Run) -> None:
    path, _ = _dump_with(tmp_path, b"\xe9")
    result = run_cli("preflight", "--state", STATE, "-g", "workers", "--quotas",
                     str(ROOT / "terraform/examples/quotas.yaml"), "--cluster", str(path),
                     "-o", "junit")
    assert result.exit_code == 3
    case = _only_case(result.stdout)
    assert case.get("classname") == "preflight"
    error = case.find("error")
    assert error is not None and "not UTF-8 text" in error.get("message", "")


def test_junit_names_a_file_whose_name_is_not_utf8(tmp_path: Path) -> None:
    # A file name with byte 0xFF reaches Python as '\udcff' (surrogateescape); the document
    # must still be written, as UTF-8 XML, naming it as \udcff.
    name = os.fsencode(tmp_path) + b"/bad\xffname.json"
    with open(name, "wb") as handle:
        handle.write(b"\xe9")
    done = subprocess.run([sys.executable, "-m", "ngupgrade", "drain-check", "--state", STATE,
                           "-g", "workers", "--cluster", name, "-o", "junit"],
                          capture_output=True, cwd=ROOT, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 3, done.stderr
    assert b"Traceback" not in done.stderr
    error = _only_case(done.stdout.decode("utf-8")).find("error")
    assert error is not None
    assert "bad\\udcffname.json" in error.get("message", "")


@pytest.mark.parametrize(("file", "copy"), [
    ("cluster.json", "cluster.utf8.json"),
    ("/tmp/dumps/state.json", "/tmp/dumps/state.utf8.json"),
    ("dir.v2/dump", "dir.v2/dump.utf8"),
    (".hidden", ".hidden.utf8"),
    ("-", "state.json"),
])
def test_the_converted_copy_is_never_the_file_itself(file: str, copy: str) -> None:
    from ngupgrade.core.text import utf8_copy_name

    assert utf8_copy_name(file, "state.json") == copy
