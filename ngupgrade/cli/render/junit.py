"""JUnit XML for CI systems: every check of ``preflight`` (and its drain check) as a test case.

Pure text building through the ``junit-xml`` package (imported here only). One suite per cloud
with a case per quota (a failure when short, or unknown under ``--strict``), one for the
suggested deploy policies, one for the warnings (a failure only where the warning fails the
run: ``--strict`` and an unknown quota or a drain-blocking PDB), one suite for a
Terraform plan's changes (a failure per blocking change), and the drain check's suites
(:func:`ngupgrade.cli.render.drain.drain_suites`). A command that fails before it has a report
(bad input, a usage error) still gives a document: :func:`error_junit`, one errored case.
Every document is written by :func:`document`, the one place that makes its text XML.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ngupgrade.cli.render.drain import drain_suites
from ngupgrade.core.change import PlanVerdict
from ngupgrade.core.drain.check import DrainReport
from ngupgrade.core.quota.preflight import Preflight, nothing_checked_message
from ngupgrade.core.text import printable_path
from ngupgrade.core.units import human_quota

# XML 1.0 has no place for C0 controls but tab and newlines, for surrogates, nor for U+FFFE and
# U+FFFF; junit_xml cleans only some fields, and a pod or file name from a dump can hold any.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """``text`` as XML 1.0 can carry it: a lone surrogate written as ``\\udXXX`` (as every
    other output writes an undecodable file name), any other character XML forbids as
    U+FFFD, the replacement character."""
    if not _NOT_XML.search(text):
        return text
    return _NOT_XML.sub("\ufffd", printable_path(text))


def _clean(value: Any) -> Any:
    return xml_text(value) if isinstance(value, str) else value


def document(suites: Sequence[Any]) -> str:
    """The JUnit XML document (UTF-8 text, no declaration of another encoding) of
    ``junit_xml.TestSuite`` objects: every name and text made XML first (:func:`xml_text`).
    The one writer: ``preflight``, ``drain-check`` and the error document all end here."""
    from junit_xml import to_xml_report_string

    for suite in suites:
        suite.name = _clean(suite.name)
        for case in suite.test_cases:
            for attr in ("name", "classname", "stdout", "stderr"):
                setattr(case, attr, _clean(getattr(case, attr)))
            for entries in (case.failures, case.errors, case.skipped):
                for entry in entries:
                    for key in entry:
                        entry[key] = _clean(entry[key])
    return str(to_xml_report_string(list(suites), encoding="utf-8"))


def preflight_suites(result: Preflight) -> list[Any]:
    """One suite per cloud: a case per quota, failures for short (and, strict, unknown)
    quotas; PodDisruptionBudgets from ``--pdbs`` that allow 0 disruptions as cases too; the
    suggested policies (:func:`suggestions_suite`) and the warnings (:func:`warnings_suite`)."""
    from junit_xml import TestCase, TestSuite

    suites = []
    for cloud in result.clouds:
        cases = []
        for q in cloud.quotas:
            text = (f"demand {human_quota(q.quota_id, q.demand)}, headroom "
                    f"{human_quota(q.quota_id, q.headroom)}")
            name = q.name
            case = TestCase(name, classname=f"preflight.{cloud.cloud_id}", stdout=text)
            if q.status == "short":
                case.add_failure_info(message=f"{name}: {text}", failure_type="short")
            elif q.status == "unknown":
                if result.checked_nothing:
                    case.add_failure_info(message=f"{q.quota_id}: limit unknown; "
                                          f"{nothing_checked_message(result)}",
                                          failure_type="unknown")
                elif result.strict:
                    case.add_failure_info(message=f"{q.quota_id}: limit unknown",
                                          failure_type="unknown")
                else:
                    case.add_skipped_info(message="limit unknown (fails with --strict)")
            cases.append(case)
        suites.append(TestSuite(f"preflight {cloud.cloud_id}", cases))
    if result.drain_blockers:
        cases = []
        for pdb in result.drain_blockers:
            case = TestCase(pdb.ref, classname="preflight.pdbs",
                            stdout="allows 0 disruptions")
            if result.strict:
                case.add_failure_info(message=f"PodDisruptionBudget {pdb.ref} allows 0 "
                                              "disruptions", failure_type="drain-blocker")
            cases.append(case)
        suites.append(TestSuite("preflight pdbs", cases))
    if result.suggestions:
        suites.append(suggestions_suite(result))
    if result.warnings:
        suites.append(warnings_suite(result))
    return suites


STRICT_FAILS = ("quota-unknown", "pdb-blocks-drain")
"""Warning codes that fail ``preflight --strict`` (:attr:`Preflight.ok`); the others
(``policy-assumed``, ``current-size-assumed``, ``auto-upgrade-window``...) never change its
exit code, so their cases are never failures."""


def suggestions_suite(result: Preflight) -> Any:
    """``preflight suggestions``: a case per suggested deploy policy, its text the line the
    table prints (policy, cost, ``WHOLE GROUP DOWN``, the quotas it fixes). A suggestion is
    advice, not a check: the short quota's own case is the failure."""
    from junit_xml import TestCase, TestSuite

    from ngupgrade.cli.render.quota import suggestion_text

    cases = [TestCase(f"{s.address} {s.max_expansion}/{s.max_unavailable}",
                      classname=f"preflight.suggestions.{s.cloud_id}",
                      stdout=suggestion_text(s)) for s in result.suggestions]
    return TestSuite("preflight suggestions", cases)


def warnings_suite(result: Preflight) -> Any:
    """``preflight warnings``: a case per warning, named ``CODE GROUP`` (the group its message
    starts with, when one does), as the drain check names its findings. A warning that fails
    the run (``--strict`` and a code of :data:`STRICT_FAILS`) is a failure; any other is
    skipped with its message (``--strict`` says when it would fail), so the document fails
    exactly when the exit code does."""
    from junit_xml import TestCase, TestSuite

    addresses = sorted((gd.address for gd in result.groups), key=len, reverse=True)
    cases = []
    for w in result.warnings:
        subject = w.group or next((a for a in addresses if w.message.startswith(f"{a}:")), "")
        case = TestCase(f"{w.code} {subject}".strip(), classname="preflight.warnings",
                        stdout=w.message)
        if w.code in STRICT_FAILS and result.strict:
            case.add_failure_info(message=w.message, failure_type=w.code)
        elif w.code in STRICT_FAILS:
            case.add_skipped_info(message=f"warning (fails with --strict): {w.message}")
        else:
            case.add_skipped_info(message=f"warning: {w.message}")
        cases.append(case)
    return TestSuite("preflight warnings", cases)


def changes_suite(verdict: PlanVerdict) -> Any:
    """A Terraform plan's group changes: a case per group, failures for blocking ones; each
    case's output says what the change table says of the group (the change, its cause, the
    nodes, the policy of a roll) and its findings (a roll that runs together with another
    group's, a policy that changes with the roll)."""
    from junit_xml import TestCase, TestSuite

    from ngupgrade.cli.render.tfplan import CHANGE_COLUMNS, change_cells, finding_line
    from ngupgrade.core.change import CHANGING_KINDS, ROLLS_TOGETHER

    together = [f for f in verdict.findings if f.code == ROLLS_TOGETHER]
    cases = []
    for change in verdict.changes:
        said = [f"{name}: {cell}" for name, cell in zip(CHANGE_COLUMNS, change_cells(change),
                                                        strict=True)]
        notes = [*change.findings, *(together if change.kind in CHANGING_KINDS else ())]
        stdout = "\n".join([*said, *(finding_line(f) for f in notes)])
        case = TestCase(str(change.address), classname="plan", stdout=stdout)
        for finding in change.findings:
            if finding.severity == "blocking":
                case.add_failure_info(message=finding.message, failure_type=change.kind)
        cases.append(case)
    return TestSuite("plan changes", cases)


def junit_xml(*, preflight: Preflight | None = None, changes: PlanVerdict | None = None,
              drain: DrainReport | None = None, accepted: frozenset[str] = frozenset(),
              strict: bool = False) -> str:
    """The whole JUnit document of one ``preflight`` run."""
    suites: list[Any] = []
    if changes is not None:
        suites.append(changes_suite(changes))
    if preflight is not None:
        suites += preflight_suites(preflight)
    if drain is not None:
        suites += drain_suites(drain, accepted=accepted, strict=strict)
    return document(suites)


def drain_junit(report: DrainReport, *, accepted: frozenset[str] = frozenset(),
                strict: bool = False) -> str:
    """JUnit XML of the drain check's suites (``drain-check --output junit``)."""
    return document(drain_suites(report, accepted=accepted, strict=strict))


def error_junit(command: str, code: str, exit_code: int, message: str,
                hint: str | None = None) -> str:
    """The JUnit document of a run that failed before its report (``-o junit`` with bad
    input, a usage error, a Kubernetes API error...): one suite named after ``command`` with
    one test case in error, ``type`` the JSON error ``code`` (``bad-input``), ``message`` the
    error's message, the exit code and hint as its text. Lone surrogates (a file name that
    is not UTF-8) are written as ``\\udXXX``, so the document is always UTF-8."""
    from junit_xml import TestCase, TestSuite

    text = f"exit code {exit_code}: {message}" + (f"\nhint: {hint}" if hint else "")
    case = TestCase(command, classname=command)
    case.add_error_info(message=message, output=text, error_type=code)
    return document([TestSuite(command, [case])])
