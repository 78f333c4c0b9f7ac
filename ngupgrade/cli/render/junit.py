"""JUnit XML for CI systems: every check of ``preflight`` (and its drain check) as a test case.

Pure text building through the ``junit-xml`` package (imported here only). One suite per cloud
with a case per quota (a failure when short, or unknown under ``--strict``), one suite for a
Terraform plan's changes (a failure per blocking change), and the drain check's suites
(:func:`ngupgrade.cli.render.drain.drain_suites`). A command that fails before it has a report
(bad input, a usage error) still gives a document: :func:`error_junit`, one errored case.
"""

from __future__ import annotations

from typing import Any

from ngupgrade.cli.render.drain import drain_suites
from ngupgrade.core.change import PlanVerdict
from ngupgrade.core.drain.check import DrainReport
from ngupgrade.core.quota.preflight import Preflight
from ngupgrade.core.text import printable_path
from ngupgrade.core.units import human_quota


def preflight_suites(result: Preflight) -> list[Any]:
    """One suite per cloud: a case per quota, failures for short (and, strict, unknown)
    quotas; PodDisruptionBudgets from ``--pdbs`` that allow 0 disruptions as cases too."""
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
                if result.strict:
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
    return suites


def changes_suite(verdict: PlanVerdict) -> Any:
    """A Terraform plan's group changes: a case per group, failures for blocking ones."""
    from junit_xml import TestCase, TestSuite

    cases = []
    for change in verdict.changes:
        case = TestCase(str(change.address), classname="plan", stdout=change.kind)
        for finding in change.findings:
            if finding.severity == "blocking":
                case.add_failure_info(message=finding.message, failure_type=change.kind)
        cases.append(case)
    return TestSuite("plan changes", cases)


def junit_xml(*, preflight: Preflight | None = None, changes: PlanVerdict | None = None,
              drain: DrainReport | None = None, accepted: frozenset[str] = frozenset(),
              strict: bool = False) -> str:
    """The whole JUnit document of one ``preflight`` run."""
    from junit_xml import to_xml_report_string

    suites: list[Any] = []
    if changes is not None:
        suites.append(changes_suite(changes))
    if preflight is not None:
        suites += preflight_suites(preflight)
    if drain is not None:
        suites += drain_suites(drain, accepted=accepted, strict=strict)
    return str(to_xml_report_string(suites))


def error_junit(command: str, code: str, exit_code: int, message: str,
                hint: str | None = None) -> str:
    """The JUnit document of a run that failed before its report (``-o junit`` with bad
    input, a usage error, a Kubernetes API error...): one suite named after ``command`` with
    one test case in error, ``type`` the JSON error ``code`` (``bad-input``), ``message`` the
    error's message, the exit code and hint as its text. Lone surrogates (a file name that
    is not UTF-8) are written as ``\\udXXX``, so the document is always UTF-8."""
    from junit_xml import TestCase, TestSuite, to_xml_report_string

    message = printable_path(message)
    text = f"exit code {exit_code}: {message}" + (f"\nhint: {printable_path(hint)}"
                                                  if hint else "")
    case = TestCase(command, classname=command)
    case.add_error_info(message=message, output=text, error_type=code)
    return str(to_xml_report_string([TestSuite(command, [case])]))
