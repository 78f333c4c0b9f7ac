"""Options shared by every command, and the small helpers commands use to print.

Every shared option is accepted before or after the command name
(``ngupgrade --output json groups`` and ``ngupgrade groups --output json`` are the same) and
reads an environment variable, as README.md asks.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ngupgrade.app.settings import Settings
from ngupgrade.core.errors import UsageError

if TYPE_CHECKING:
    # Types only: every command and `--help` import this module, and the model and the
    # waiter behind Timing cost start-up time that only the commands using them pay.
    from ngupgrade.app.timing import Timing
    from ngupgrade.core.advise.judge import MinAvailable
    from ngupgrade.core.model import NodeGroup

F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class Invocation:
    """One run as ``cli.main`` sees it, kept to be read after the command ends or fails.

    ``command`` is the subcommand's name; ``report`` the JSON document the command emitted
    (``emit_json``), which main() writes with an ``error`` key added when the command fails,
    so that a script always reads exactly one JSON object.
    """

    settings: Settings = field(default_factory=Settings)
    command: str | None = None
    report: Any = None
    timing: Timing | None = None
    """Time for the cloud use cases when the caller brings its own (tests: the fake cloud's
    virtual clock); None: real time."""
    params: dict[str, Any] = field(default_factory=dict)
    """The command's own options as it read them (for the report's ``ngupgrade.inputs``)."""
    junit_written: bool = False
    """The command wrote its JUnit document (``emit_junit``): a failure after it adds none."""

    def header(self) -> dict[str, Any]:
        """The ``ngupgrade`` key of this run's JSON reports (``cli/render/header.py``)."""
        from ngupgrade import __version__
        from ngupgrade.cli.render.header import report_header

        s = self.settings
        return report_header(__version__, self.command, state=s.state, plan=s.plan,
                             endpoint=s.endpoint, options=self.params)


def invocation_of(ctx: click.Context) -> Invocation | None:
    """The Invocation main() passed in, or None (a command run without main())."""
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Invocation) else None


def timing_of(ctx: click.Context, time_scale: float = 1.0) -> Timing:
    """The one Timing of this invocation: the one main() was given, else real time
    (``time_scale`` virtual seconds per real second: ``upgrade --time-scale`` drills)."""
    run = invocation_of(ctx)
    if run is not None and run.timing is not None:
        return run.timing
    from ngupgrade.app.timing import real_time

    return real_time(time_scale)


def settings_of(ctx: click.Context) -> Settings:
    """The one Settings object of this invocation (created on first use)."""
    root = ctx.find_root()
    if isinstance(root.obj, Invocation):  # main() passes one in, to read it after an error
        settings = root.obj.settings
        if ctx is not root:  # the command's own context: its options, for the report header
            root.obj.params = dict(ctx.params)
    else:
        found = root.meta.get("ngupgrade.settings")
        settings = found if isinstance(found, Settings) else Settings()
        root.meta["ngupgrade.settings"] = settings
    _check_output(ctx, settings)
    return settings


JUNIT_COMMANDS = frozenset({"preflight", "drain-check"})
"""Commands whose verdict is a list of checks, so ``--output junit`` means something."""


def _check_output(ctx: click.Context, settings: Settings) -> None:
    """``--output junit`` on a command that has no checks to report is a usage error, never
    silently a table."""
    if settings.output == "junit" and not isinstance(ctx.command, click.Group) \
            and ctx.command.name not in JUNIT_COMMANDS:
        raise UsageError(f"--output junit is for {' and '.join(sorted(JUNIT_COMMANDS))}; "
                         f"{ctx.command.name} prints table or json")


def _store(attr: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value is None or value == ():
            return value
        settings = settings_of(ctx)
        from_command_line = (
            param.name is not None
            and ctx.get_parameter_source(param.name) == click.core.ParameterSource.COMMANDLINE
        )
        # A flag typed anywhere beats the environment, wherever the environment is read.
        if from_command_line or attr not in settings.explicit:
            setattr(settings, attr, value)
        if from_command_line:
            settings.explicit.add(attr)
        return value

    return callback


_SHARED: list[tuple[tuple[str, ...], dict[str, Any]]] = [
    (("--state", "state"), {
        "envvar": "NGUPGRADE_STATE", "metavar": "SOURCE",
        "help": "Terraform state: a file, '-' (stdin), 'tf:DIR' (terraform state pull in DIR) "
                "or 's3://BUCKET/KEY'. Default: ./terraform.tfstate. [env NGUPGRADE_STATE]"}),
    (("--output", "-o", "output"), {
        "type": click.Choice(["table", "json", "junit"]), "envvar": "NGUPGRADE_OUTPUT",
        "help": "table for people (default), json for scripts (stable keys), junit for CI "
                "test reports (preflight and drain-check only)."}),
    (("--terraform-bin", "terraform_bin"), {
        "envvar": "NGUPGRADE_TERRAFORM_BIN", "metavar": "PATH",
        "help": "Terraform CLI used for 'tf:DIR' states and plans; 'tofu' works too. Default: "
                "terraform. Stopped after 300 s (NGUPGRADE_TERRAFORM_TIMEOUT=SECONDS, 1..3600)."}),
    (("--workspace", "workspace"), {
        "envvar": "TF_WORKSPACE", "metavar": "NAME",
        "help": "Workspace of an s3:// state (keys under env:/NAME/) or of a tf:DIR "
                "state (TF_WORKSPACE). Default: default."}),
    (("--workspace-key-prefix", "workspace_key_prefix"), {
        "metavar": "PREFIX", "help": "S3 backend workspace_key_prefix. Default: env:"}),
    (("--s3-endpoint", "s3_endpoint"), {
        "envvar": "NGUPGRADE_S3_ENDPOINT", "metavar": "URL",
        "help": "Object Storage endpoint. Default: https://storage.yandexcloud.net"}),
    (("--s3-region", "s3_region"), {
        "metavar": "REGION", "help": "Object Storage region. Default: ru-central1"}),
    (("--endpoint", "endpoint"), {
        "envvar": "YC_ENDPOINT", "metavar": "HOST:PORT",
        "help": "Yandex Cloud API endpoint (e.g. the fake cloud's). [env YC_ENDPOINT]"}),
    (("--insecure", "insecure"), {
        "is_flag": True, "default": None,
        "help": "Plain-text gRPC; allowed only for a loopback --endpoint."}),
    (("--ca-file", "ca_file"), {
        "metavar": "PATH", "help": "CA bundle for a --endpoint with a custom certificate."}),
    (("--platform", "platform"), {
        "type": click.Choice(["yandex", "selectel"]), "envvar": "NGUPGRADE_PLATFORM",
        "help": "Whose upgrade rules apply. Default: from each node group's resource type "
                "(yandex_kubernetes_node_group, selectel_mks_nodegroup_v1)."}),
]


def common_options(func: F) -> F:
    """Add the shared options to a command or to the root group."""
    for decls, kwargs in reversed(_SHARED):
        *names, attr = decls
        opts = dict(kwargs)
        opts.setdefault("default", None)
        func = click.option(
            *names, attr, expose_value=False, is_eager=True, callback=_store(attr), **opts
        )(func)
    return func


def plan_option(func: F) -> F:
    """``--plan SOURCE`` (``NGUPGRADE_PLAN``): judge what a saved Terraform plan does.

    Opt-in per command (``plan``, ``preflight``, and any command that plans a roll): the value
    lands in ``Settings.plan``; :func:`ngupgrade.app.tfplan.load_plan` reads it.
    """
    return click.option(
        "--plan", "plan", envvar="NGUPGRADE_PLAN", metavar="SOURCE", default=None,
        expose_value=False, is_eager=True, callback=_store("plan"),
        help="Judge what `terraform apply` of a saved plan does to each node group, instead of "
             "an upgrade: the JSON of `terraform show -json PLANFILE` ('-' reads stdin), or "
             "'tf:DIR' / 'tf:DIR/PLANFILE' to run it in DIR (default PLANFILE: tfplan). The "
             "state comes from the plan. See docs/plan-gate.md. [env NGUPGRADE_PLAN]",
    )(func)


def group_option(func: F) -> F:
    """``--group`` (repeatable): a Terraform address, a node-group name or id."""
    return click.option(
        "--group", "-g", "groups", multiple=True, metavar="ADDRESS|NAME|ID",
        help="Node group to work on, by Terraform address, name or id; repeatable. A name "
             "that several node groups share is refused (exit 2): give the address or id. "
             "Default: every node group in the state.",
    )(func)


class HintedBadParameter(click.BadParameter):
    """``click.BadParameter`` with a hint (shown after the message, and the JSON ``hint``)."""

    def __init__(self, message: str, hint: str, ctx: click.Context | None = None,
                 param: click.Parameter | None = None) -> None:
        super().__init__(message, ctx=ctx, param=param)
        self.hint = hint


class PolicyValue(click.ParamType):
    """``--max-expansion`` / ``--max-unavailable``: a count of nodes, 0 or more. A value no
    platform takes (``-1``, ``abc``) is a usage error (exit 2) naming the range and with the
    hint of :func:`ngupgrade.core.policy.override_range_hint`; a value above the platform's
    fixed bound (Yandex 100) is refused once the platform is known
    (``core.policy.check_overrides``, the one rule); a group's own bound (Selectel's node
    count) and 0/0 are the policy check's (exit 1, naming the group)."""

    name = "integer"

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> int:
        from ngupgrade.core.policy import POLICY_MIN, override_range_hint

        if isinstance(value, int) and not isinstance(value, bool):
            number: int | None = value
        else:
            try:
                number = int(str(value).strip())
            except ValueError:
                number = None
        if number is None or number < POLICY_MIN:
            raise HintedBadParameter(
                f"{value!r} is not a node count: 0..100 on Yandex, 0..the node count on "
                "Selectel", hint=override_range_hint(), ctx=ctx, param=param)
        return number


POLICY_VALUE = PolicyValue()
"""The type of ``--max-expansion`` / ``--max-unavailable`` (:class:`PolicyValue`)."""


class FiniteFloatRange(click.FloatRange):
    """``click.FloatRange`` that also refuses ``nan`` and ``inf`` (a usage error, exit 2).

    ``float("nan")`` passes every range comparison, so a plain FloatRange lets it through.
    """

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> Any:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):  # before the range, which would call inf "too large"
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return super().convert(number, param, ctx)


CYCLE_MINUTES = FiniteFloatRange(min=0, min_open=True, max=24 * 60)
"""``--cycle-minutes``: above 0, at most a day (no cycle of the service takes longer; a larger
value only makes every estimate and the suggested Terraform timeout nonsense)."""

TIME_SCALE = FiniteFloatRange(min=0, min_open=True, max=100_000)
"""``--speed`` / ``--time-scale``: virtual seconds per real second, up to a day in ~1 s."""


def only_one(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> str | None:
    """Callback of a ``multiple=True`` option that must be given at most once.

    Click keeps the last of a repeated single-value option silently; for an option that picks
    what a command changes or waits for (``set-policy --group``), that would act on a group
    the user did not mean. Returns the one value, or None.
    """
    if len(values) > 1:
        shown = ", ".join(repr(v) for v in values)
        raise click.BadParameter(f"given {len(values)} times ({shown}); this command takes "
                                 "one: run it once per value", ctx=ctx, param=param)
    return values[0] if values else None


def parse_min_available(ctx: click.Context, param: click.Parameter, value: str | None
                        ) -> MinAvailable | None:
    """Callback of ``--min-available N|P%`` (``advise``, ``upgrade --schedule advised``): the
    floor as :meth:`ngupgrade.core.advise.judge.MinAvailable.parse` reads it, or None when the
    option is not given.

    Raises:
        click.BadParameter: the value is not a count or a percentage (exit 2).
    """
    if value is None:
        return None
    from ngupgrade.core.advise.judge import MinAvailable  # here: the advisor loads on use only

    try:
        return MinAvailable.parse(value)
    except UsageError as err:
        raise click.BadParameter(err.message, ctx=ctx, param=param) from err


def stdin_once(settings: Settings, **inputs: str | Sequence[str] | None) -> None:
    """Refuse two inputs that both read ``-`` (stdin): the first would take all of it and
    the second would read nothing, then fail as bad input of the wrong kind. ``inputs``:
    flag name (``cluster``, ``pdbs``) -> its value or values; ``--state`` and ``--plan`` come
    from ``settings``.

    Raises:
        UsageError: two inputs read stdin (exit 2).
    """
    readers = [flag for flag, value in (("--state", settings.state), ("--plan", settings.plan))
               if value == "-"]
    for name, value in inputs.items():
        values = [value] if isinstance(value, str) else list(value or ())
        readers += [f"--{name}"] * values.count("-")
    if len(readers) > 1:
        named = " and ".join(dict.fromkeys(readers))
        raise UsageError(f"stdin can be given only once: {named} read '-'",
                         hint="save all but one input to a file")


def emit_json(payload: dict[str, Any]) -> None:
    """Print a command's one JSON document to stdout (stable keys, UTF-8).

    Under main() the document is written when the command ends: as it is, or with an
    ``error`` key (``cli/render/errors.py``) when the command then fails (a short quota), so
    a script reads one JSON object whatever happens.

    Strict JSON only: a NaN or an infinity (which ``json.dumps`` would print as the bare words
    ``NaN``/``Infinity`` that no JSON parser but Python's accepts) raises ValueError here, before
    anything is written, so scripts get valid JSON or nothing (and exit 70, a bug to report).
    """
    ctx = click.get_current_context(silent=True)
    invocation = None if ctx is None else invocation_of(ctx)
    if invocation is not None:
        _check_strict(payload)
        invocation.report = payload
        return
    sys.stdout.write(json_text(payload))


def _check_strict(payload: Any) -> None:
    """Raise ValueError now if ``payload`` holds a NaN or an infinity, as :func:`json_text`
    would when main() writes it. Checked with the compact encoder, which is C code: the
    indented one is pure Python and costs as much as the write itself on a large report."""
    try:
        json.dumps(payload, ensure_ascii=False, default=str, allow_nan=False)
    except ValueError:
        json_text(payload)  # the indented encoder's message, which names the value
        raise


def state_notes(groups: Iterable[NodeGroup | None], document: dict[str, Any] | None = None
                ) -> None:
    """The state's notes of ``groups`` (:mod:`ngupgrade.cli.render.notes`): into
    ``document["state_notes"]`` for a JSON report, else one ``note:`` line each on stderr."""
    from ngupgrade.cli.render.notes import group_notes, notes_json, notes_lines

    pairs = group_notes(groups)
    if document is not None:
        document["state_notes"] = notes_json(pairs)
        return
    for line in notes_lines(pairs):
        click.echo(line, err=True)


def emit_junit(text: str) -> None:
    """Print a command's one JUnit XML document to stdout, and note it: when the command then
    fails (a check failed, exit 1), main() writes no second one; when it fails before this
    (bad input, a usage error), main() writes one with the error as its test case."""
    ctx = click.get_current_context(silent=True)
    invocation = None if ctx is None else invocation_of(ctx)
    if invocation is not None:
        invocation.junit_written = True
    click.echo(text)


def json_text(payload: Any) -> str:
    """``payload`` as strict, indented JSON with a final newline (ValueError on NaN/inf)."""
    return json.dumps(payload, indent=2, ensure_ascii=False, default=str,
                      allow_nan=False) + "\n"


def terminal_width() -> int | None:
    """How many columns the tables may take: ``COLUMNS`` when it is a whole number of at
    least 20 (as click, rich and POSIX shells read it), else the width of the terminal that
    stdout is, else None (a pipe or a file: nothing wraps, so scripts read whole lines).
    Read here, not with rich's Console, whose import would cost every command's start-up."""
    import os
    import shutil

    value = os.environ.get("COLUMNS", "").strip()
    if value.isdigit() and int(value) >= 20:
        return int(value)
    if not sys.stdout.isatty():
        return None
    columns = shutil.get_terminal_size(fallback=(0, 0)).columns
    return columns if columns >= 20 else None


def echo_report(text: str, *, nl: bool = True, err: bool = False) -> None:
    """Print a command's report for people (on stderr with ``err``: progress, errors and
    hints), its long lines wrapped to :func:`terminal_width`
    (:func:`ngupgrade.cli.render.table.wrap_prose`: words and command lines whole; in a pipe
    as it is)."""
    width = terminal_width()
    if width is not None:
        from ngupgrade.cli.render.table import wrap_prose

        text = wrap_prose(text, width)
    click.echo(text, nl=nl, err=err)


def print_table(columns: list[str], rows: list[list[str]], title: str | None = None, *,
                whole: Collection[str] = ()) -> None:
    """Print a table: with rich on a terminal (imported here, so JSON output never pays for
    it); in a pipe, where nothing wraps, the same text without rich
    (:func:`ngupgrade.cli.render.table.plain_table`) when the cells allow.

    Columns named in ``whole`` (ids, Terraform addresses: what ``-g`` takes and people copy)
    are never cut or wrapped, even on a narrow terminal: the other columns wrap first, and
    when that is not enough a whole column leaves the grid, each of its cells on a line of
    its own under its row (:func:`ngupgrade.cli.render.table.fit_rows`). The width is
    :func:`terminal_width`'s; in a pipe or a CI log without ``COLUMNS`` nothing wraps at all.
    """
    tty = sys.stdout.isatty()
    text = None
    width = terminal_width()
    if width is not None:
        from ngupgrade.cli.render.table import fitted_table

        text = fitted_table(columns, rows, width,
                            whole=[i for i, name in enumerate(columns) if name in whole])
        if title and text is not None:
            text = f"{title}\n\n{text}"
    elif not tty:
        from ngupgrade.cli.render.table import plain_table

        text = plain_table(columns, rows, title)
    if text is None:
        text = rich_table(columns, rows, title, whole=whole, tty=tty)
    sys.stdout.write(text)


def rich_table(columns: list[str], rows: list[list[str]], title: str | None = None, *,
               whole: Collection[str] = (), tty: bool = False) -> str:
    """The table as rich prints it (``print_table``), trimmed: each line right-stripped, no
    blank line first or last; on a terminal (``tty``) wrapped to its width."""
    from rich import box
    from rich.console import Console
    from rich.measure import Measurement
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(title) if title else None, box=box.SIMPLE_HEAD,
                  header_style="bold", title_justify="left")
    for i, name in enumerate(columns):
        if name in whole:
            longest = max([len(name), *(len(row[i]) for row in rows)])
            table.add_column(name, no_wrap=True, min_width=longest)
        else:
            table.add_column(name, overflow="fold")  # wrapped, never cut with an ellipsis
    for row in rows:
        # Text, not str: rich reads "[...]" in a str as markup, and Terraform addresses,
        # for_each keys, names and labels are full of brackets ('ng["a.b[c]"]').
        table.add_row(*(Text(cell) for cell in row))
    console = Console(no_color=not tty, highlight=False)
    # measured without the console's own bound, which would cap both figures at its width
    needed = Measurement.get(console, console.options.update_width(100_000), table)
    console.width = max(console.width, needed.minimum) if tty else needed.maximum
    with console.capture() as captured:
        console.print(table, crop=False)
    lines = [line.rstrip() for line in captured.get().splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"
