"""Command-line entry point: the one place where errors become exit codes and text is printed.

Commands live one per module in this package and are imported only when invoked, so that
``ngupgrade groups`` never pays for the cloud SDK or boto3 (bench/).

Exit codes: the one table is :data:`ngupgrade.core.errors.EXIT_CODES` (the root ``--help``
epilog and README's table are checked against it).
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import io
import json
import os
import sys
from gettext import gettext
from typing import TYPE_CHECKING, Any

import click

from ngupgrade import __version__
from ngupgrade.cli._common import JUNIT_COMMANDS, Invocation, common_options, json_text
from ngupgrade.cli.render.errors import error_code, error_json
from ngupgrade.core.errors import EXIT_BUG, EXIT_INTERRUPTED, EXIT_IO, NgUpgradeError
from ngupgrade.core.redact import redact_urls

if TYPE_CHECKING:
    from ngupgrade.app.settings import Settings
    from ngupgrade.app.timing import Timing

_WRITE_FAULTS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG, errno.EROFS})
_CLOUD_CHANGING = frozenset({"upgrade", "set-policy", "wait"})
"""Commands whose interruption leaves a cloud operation running (the hint says how to attach)."""
_NDJSON_STREAMS = frozenset({"upgrade"})
"""Commands whose ``--output json`` is a stream of events: a failure is its last event."""

# name -> "module:attribute"; the order is the order of `ngupgrade --help`.
COMMANDS: dict[str, str] = {
    "groups": "ngupgrade.cli.groups:groups",
    "plan": "ngupgrade.cli.plan:plan",
    "preflight": "ngupgrade.cli.preflight:preflight",
    "drain-check": "ngupgrade.cli.drain_check:drain_check",
    "advise": "ngupgrade.cli.advise:advise",
    "set-policy": "ngupgrade.cli.set_policy:set_policy",
    "upgrade": "ngupgrade.cli.upgrade:upgrade",
    "wait": "ngupgrade.cli.wait:wait",
    "fake-cloud": "ngupgrade.cli.fake_cloud:fake_cloud",
}

SUMMARIES: dict[str, str] = {
    "groups": "List node groups in the Terraform state: deploy policy, scale policy, node shape.",
    "plan": "Show what an upgrade will do: surge, peak, nodes down, cycles, duration, warnings.",
    "preflight": "Check the surge of an upgrade against the cloud's quotas (a CI gate; "
                 "read-only).",
    "drain-check": "Show what each wave of the upgrade does to the pods on the nodes it drains.",
    "advise": "Find the fastest safe deploy policy of each node group, and a schedule.",
    "set-policy": "Show, and with --apply make, a deploy-policy change of one node group.",
    "upgrade": "Upgrade node groups the runbook way: gate, policy, version, progress, verdict.",
    "wait": "Wait for a cloud operation and the node group's reconcile; never cancels anything.",
    "fake-cloud": "Serve a fake Yandex Cloud on 127.0.0.1 until interrupted (Ctrl-C).",
}
"""The first paragraph of each command's help, which ``ngupgrade --help`` shortens to fit as
click does, so that listing the commands imports none of them (tests compare it with each
command's own help)."""


class LazyGroup(click.Group):
    """A click group that imports a command's module only when that command runs or shows
    its own help (click's lazy-loading pattern, "Advanced Groups and Context" in click's
    documentation); the root help lists the commands from :data:`SUMMARIES`."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        command = getattr(importlib.import_module(module_name), attr)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The Commands section of the root help, as click writes it from the commands
        (``click.Group.format_commands``: the same width limit and shortening), from the
        summaries alone."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, click.Command(name, help=SUMMARIES[name]).get_short_help_str(limit))
                for name in COMMANDS]
        with formatter.section(gettext("Commands")):  # click's own (translated) title
            formatter.write_dl(rows)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        rest = super().parse_args(ctx, args)
        if ctx.meta.get(_VERSION_ASKED):
            # click 8 keeps the command name apart (click 9 will leave it in ctx.args).
            words = [*getattr(ctx, "_protected_args", []), *ctx.args]
            if words:
                # `ngupgrade --version 1.30 upgrade ...` would print our version and exit 0:
                # a silent pass in CI. The root --version takes nothing after it.
                ctx.fail(f"--version before a command prints ngupgrade's own version and takes "
                         f"nothing after it (got: {' '.join(words)}); for a Kubernetes version, "
                         f"put it after the command: ngupgrade upgrade -g GROUP --version 1.30")
            click.echo(f"ngupgrade, version {__version__}")
            ctx.exit(0)
        return rest

    # click's main turns EPIPE into exit 1 ("a check failed"); main() decides instead, for
    # the root's own output (--help, --version) and for every command's.
    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except BrokenPipeError as err:
            raise _ReaderGone from err

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        typed = args[0] if args else ""
        if typed and typed not in COMMANDS and not typed.startswith("-") \
                and not ctx.resilient_parsing:
            # click says "No such command" alone; options get click's "(Did you mean ...?)"
            # from difflib, and so do commands here, in the same words
            import difflib  # here: the root's --help imports nothing it does not use

            close = difflib.get_close_matches(typed, list(COMMANDS), n=3, cutoff=0.6)
            if close:
                which = (repr(close[0]) if len(close) == 1
                         else "one of: " + ", ".join(repr(c) for c in close))
                ctx.fail(f"No such command {typed!r}. (Did you mean {which}?)")
        name, command, rest = super().resolve_command(ctx, args)
        if isinstance(ctx.obj, Invocation):
            ctx.obj.command = name  # main() shapes a failure by the command (NDJSON or not)
        return name, command, rest

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as err:
            raise _ReaderGone from err


class _ReaderGone(Exception):
    """stdout's reader went away (``ngupgrade groups -o json | head -c 100``)."""


_VERSION_ASKED = "ngupgrade.version_asked"


def _ask_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """Record a root ``--version``; LazyGroup.parse_args answers it once it sees what follows."""
    if value:
        ctx.meta[_VERSION_ASKED] = True


HELP = """Plan, preflight and run Yandex Managed Kubernetes node-group upgrades safely,
next to Terraform.

\b
Typical flow:
  ngupgrade groups    --state terraform.tfstate     what node groups the state holds
  ngupgrade plan      --group workers               cycles, surge, nodes down, duration
  ngupgrade preflight --quotas quotas.json          will the surge fit in the quotas?
  ngupgrade advise    --quotas quotas.json          the fastest safe deploy policy
  ngupgrade upgrade   --group workers --version 1.31 --apply

\b
The state comes from --state (or NGUPGRADE_STATE): a file path, '-' for stdin,
'tf:DIR' for `terraform state pull` in DIR, or 's3://BUCKET/KEY'. Without it,
./terraform.tfstate is read when present. Nothing ever writes to a state, and nothing
changes in a cloud without --apply.

\b
Cloud access (preflight without --quotas, plan and advise with --endpoint, set-policy,
wait and upgrade), the first that is set: YC_IAM_TOKEN, YC_TOKEN (OAuth),
YC_SERVICE_ACCOUNT_KEY_FILE (JSON key); else, inside Yandex Cloud, the VM's service
account (docs/cloud.md). API: --endpoint (default: the public one).

\b
Exit codes: 0 ok; 1 a check failed (quota short, policy invalid); 2 usage error;
3 bad input (state or quota file); 4 cloud API error; 5 a cloud operation failed;
6 timed out or stalled while the operation still runs (resume it); 70 a bug; 74 the output
could not be written (disk full); 130 interrupted.
"""


@click.group(cls=LazyGroup, help=HELP, context_settings={"help_option_names": ["-h", "--help"],
                                                          "max_content_width": 100})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_ask_version,
              help="Show ngupgrade's version and exit (alone: not before a command).")
@common_options
def cli() -> None:
    """Root group; options given here apply to the command that follows."""


def main(argv: list[str] | None = None, *, timing: Timing | None = None) -> None:
    """Run the CLI and exit with the documented code; never shows a traceback for known faults.

    With ``--output json`` a failure also prints one JSON object on stdout: the command's
    report with an ``error`` key, or ``{"error": {...}}`` (``cli/render/errors.py``); the
    ``upgrade`` NDJSON stream ends with an ``{"event": "error", ...}`` line instead.

    ``timing`` replaces real time for the cloud use cases (tests pass the fake cloud's
    virtual clock; :func:`ngupgrade.cli._common.timing_of`).

    A reader that stops early (``| head``) is not a failed check: exit 0, silently. (Whether
    the pipe breaks before or after a verdict depends only on how much was buffered, so the
    verdict cannot stand consistently; the reader chose to stop reading it.)
    """
    words = sys.argv[1:] if argv is None else list(argv)
    run = Invocation(timing=timing)
    try:
        code = _run(words, run)
        sys.stdout.flush()  # here, not at interpreter exit, where EPIPE would print and exit 120
    except (BrokenPipeError, _ReaderGone):
        _silence_stdout()
        code = 0
    except OSError as err:
        if err.errno not in _WRITE_FAULTS:
            raise
        code = _cannot_write(err, run)
    sys.exit(code)


def _cannot_write(err: OSError, run: Invocation) -> int:
    """A write that the disk refused (``ngupgrade groups > /dev/full``): say so on stderr, name
    the file when it is not stdout, and exit :data:`EXIT_IO`. stdout is pointed at /dev/null
    first, so that the buffered rest cannot fail again at exit."""
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    target = err.filename if err.filename else "the output (stdout)"
    _say(f"error: cannot write {target}: {err.strerror or err}")
    hint = "free space on that disk or write the output elsewhere"
    if run.command in _CLOUD_CHANGING:
        hint += ("; a cloud operation already started goes on: run the same command with "
                 "--resume (or `ngupgrade wait`) to attach again")
    _say(f"hint: {hint}")
    return EXIT_IO


def _run(words: list[str], run: Invocation) -> int:
    """Run one command; return its exit code (the mapping of README.md)."""
    settings = run.settings
    failure = _Failure(run, _wants_json(settings, words), _wants_junit(settings, words))
    try:
        cli.main(args=words, prog_name="ngupgrade", standalone_mode=False, obj=run)
    except click.exceptions.Abort:
        _say("interrupted")
        return failure.report("interrupted", EXIT_INTERRUPTED, "interrupted")
    except click.ClickException as err:
        click_hint: str | None = getattr(err, "hint", None)
        if isinstance(err, click.BadParameter):
            err = _name_the_environment_variable(err)
        err.show()
        if click_hint:
            _say(f"hint: {click_hint}")
        return failure.report("usage", err.exit_code, err.format_message(), click_hint)
    except click.exceptions.Exit as err:
        return err.exit_code
    except NgUpgradeError as err:
        _say(f"error: {err.message}")
        hint = err.hint or ""
        names_a_command = "ngupgrade " in hint or "--resume" in hint
        if names_a_command and settings.endpoint:
            # Hints name commands to run again; they must reach the same cloud.
            flags = f"--endpoint {settings.endpoint}" + (" --insecure" if settings.insecure
                                                          else "")
            hint += f" (with the connection flags of this run: {flags})"
        if hint:
            _say(f"hint: {hint}")
        return failure.report(error_code(err), err.exit_code, err.message, hint or None, err)
    except KeyboardInterrupt:
        if set(words) & _CLOUD_CHANGING:
            _say("interrupted: nothing in the cloud was cancelled; run the same command with "
                 "--resume (or `ngupgrade wait`) to attach again")
        else:
            _say("interrupted")
        return failure.report("interrupted", EXIT_INTERRUPTED, "interrupted")
    except (BrokenPipeError, _ReaderGone):
        raise  # main(): the reader went away; that is not our failure
    except Exception as err:  # the pre-commit pattern: an unexpected error is a bug
        if os.environ.get("NGUPGRADE_DEBUG") or (isinstance(err, OSError)
                                                 and err.errno in _WRITE_FAULTS):
            raise  # main(): a refused write is not our bug
        first, *more = str(err).strip().splitlines() or [""]
        message = f"internal error (a bug in ngupgrade): {type(err).__name__}: {first}"
        _say(message + (" [...]" if more else ""))
        hint = "rerun with NGUPGRADE_DEBUG=1 for the traceback, and report it"
        _say(f"hint: {hint}")
        return failure.report("internal", EXIT_BUG, message, hint)
    if isinstance(run.report, dict):
        sys.stdout.write(json_text({**run.report, "ngupgrade": run.header()}))
    return 0


class _Failure:
    """Writes the JSON object of a failed run (only with ``--output json``), or its JUnit
    document when the command wrote none (only with ``--output junit``); returns the code."""

    def __init__(self, run: Invocation, wants_json: bool, wants_junit: bool = False) -> None:
        self.run = run
        self.wants_json = wants_json
        self.wants_junit = wants_junit

    def report(self, code: str, exit_code: int, message: str, hint: str | None = None,
               err: BaseException | None = None) -> int:
        message = redact_urls(message)
        hint = None if hint is None else redact_urls(hint)
        if self._junit(code, exit_code, message, hint):
            return exit_code
        if not (self.wants_json or self.run.settings.output == "json"):
            return exit_code
        error = error_json(code, exit_code, message, hint, err)
        if self.run.command in _NDJSON_STREAMS:
            # The stream's last event; its top-level keys predate "error" and stay.
            line = {"event": "error", "exit_code": exit_code, "message": message,
                    "hint": hint, "operation_id": error["operation_id"], "error": error,
                    "ngupgrade": self.run.header()}
            sys.stdout.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
            return exit_code
        report = self.run.report if isinstance(self.run.report, dict) else {}
        sys.stdout.write(json_text({**report, "error": error, "ngupgrade": self.run.header()}))
        return exit_code

    def _junit(self, code: str, exit_code: int, message: str, hint: str | None) -> bool:
        """With ``--output junit`` on a command that writes JUnit and has not written its
        document (it failed before: bad input, a usage error), write one whose only test
        case is the error, so a CI reading the file sees the failure, not an empty file.
        True when the output is JUnit (written now or before)."""
        run = self.run
        if not (self.wants_junit or run.settings.output == "junit") \
                or run.command not in JUNIT_COMMANDS:
            return False
        if not run.junit_written:
            from ngupgrade.cli.render.junit import error_junit

            sys.stdout.write(error_junit(run.command, code, exit_code, message, hint) + "\n")
            run.junit_written = True
        return True


def _wants_junit(settings: Settings, words: list[str]) -> bool:
    """``--output junit`` asked for, even when parsing stopped before the option was read
    (as :func:`_wants_json`)."""
    return _wants(settings, words, "junit")


def _wants_json(settings: Settings, words: list[str]) -> bool:
    """``--output json`` asked for, even when parsing stopped before the option was read.

    A usage error (an unknown flag) can stop click before ``-o json`` reaches Settings; the
    script still expects JSON, so the words and NGUPGRADE_OUTPUT are read here as well.
    """
    return _wants(settings, words, "json")


def _wants(settings: Settings, words: list[str], output: str) -> bool:
    if settings.output == output:
        return True
    for i, word in enumerate(words):
        if word == "--":
            break
        if word in ("-o", "--output") and words[i + 1:i + 2] == [output]:
            return True
        if word in (f"-o{output}", f"--output={output}"):
            return True
    return os.environ.get("NGUPGRADE_OUTPUT") == output


def _name_the_environment_variable(err: click.BadParameter) -> click.BadParameter:
    """Say which variable a bad value came from: the user never typed ``--output``."""
    param, ctx = err.param, err.ctx
    if param is None or ctx is None or param.name is None or not isinstance(param, click.Option):
        return err
    if ctx.get_parameter_source(param.name) != click.core.ParameterSource.ENVIRONMENT:
        return err
    if not isinstance(param.envvar, str):
        return err
    return click.BadParameter(f"{err.message} (from the environment variable {param.envvar})",
                              ctx=ctx, param=param)


def _say(text: str) -> None:
    """An ``error:`` or ``hint:`` line on stderr, wrapped as the reports are when a width is
    known (:func:`ngupgrade.cli._common.echo_report`)."""
    from ngupgrade.cli._common import echo_report

    echo_report(redact_urls(text), err=True)


def _silence_stdout() -> None:
    """Point stdout and stderr at /dev/null, so that flushing at exit cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        # not a real file (a test's capture): nothing will flush to a pipe
        with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
            os.dup2(devnull, stream.fileno())
