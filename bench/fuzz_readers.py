"""Every reader of ngupgrade, fuzzed with hypothesis through the command that reads it.

Readers: the Terraform state (v4, and ``terraform show -json``), the plan (``plan --plan``),
the cluster dump as JSON and as YAML (``drain-check --cluster``), the quota file as JSON and
YAML (``preflight --quotas``), the fake cloud's scenario (what ``fake-cloud --scenario`` reads
and builds), and the upgrade journal (``upgrade --apply --resume --journal``, against a fake
cloud that refuses every Update, so nothing a valid journal starts can change it).

Inputs, per reader: the example document (the form its producer writes, from
``terraform/examples``) with one value replaced or one key deleted, the value drawn from
random JSON or from the attacks a reader must bound (nesting 50 to 3,000 deep, integers of
4,000 to 6,000 digits, strings up to 300 KB, lone surrogates), the document cut short, random
bytes, and for YAML readers alias bombs of 2 to 10 levels by 2 to 12 aliases.

Counted per reader, each a bug:
  * exit 70 or a traceback (an exception ngupgrade did not turn into an error of its own);
  * hangs: a read that took more than 5 s of CPU (the reader's thread, so a loaded machine
    does not count), or that had not ended after 60 s of wall time (stopped by an alarm);
  * memory: a read whose peak allocation (tracemalloc) was over 10x the input, beyond a floor
    of 8 MiB that any command allocates on the smallest input.
Prints a table; exits 1 when any count is not 0. Usage:
``python bench/fuzz_readers.py [--examples N] [--reader NAME ...]`` (default 2,000 each),
``make fuzz``; ``make bench`` runs it through ``bench_fuzz_readers.py``.
``tests/test_fuzz_readers.py`` runs a few dozen per reader in the suite.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import signal
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "terraform" / "examples"
STATE = EXAMPLES / "terraform.tfstate"
CLOUD_ID = "b1gexamplecloud000001"
HANG_SECONDS = 5.0
STUCK_SECONDS = 60.0
MEMORY_RATIO = 10
MEMORY_FLOOR = 8 << 20

SENTINEL = "\x00fuzz-attack\x00"


# ---- inputs ---------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**12) | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                               max_size=3),
    max_leaves=8,
)


@st.composite
def attack_text(draw: st.DrawFn) -> str:
    """A value as JSON text (also YAML flow text) that a reader must bound."""
    kind = draw(st.sampled_from(["deep-list", "deep-object", "bigint", "long-string",
                                 "surrogate", "big-float"]))
    if kind == "deep-list":
        depth = draw(st.integers(50, 3000))
        return "[" * depth + "]" * depth
    if kind == "deep-object":
        depth = draw(st.integers(50, 3000))
        return '{"a":' * depth + "1" + "}" * depth
    if kind == "bigint":
        return "1" + "0" * draw(st.integers(4000, 6000))
    if kind == "long-string":
        return '"' + "x" * draw(st.integers(10_000, 300_000)) + '"'
    if kind == "surrogate":
        return f'"a\\u{draw(st.integers(0xD800, 0xDFFF)):04x}b"'
    return "1e" + str(draw(st.integers(300, 100_000)))


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


def _replaced(doc: Any, path: tuple[Any, ...], value: Any, delete: bool) -> Any:
    """``doc`` with the value at ``path`` replaced (or its key deleted); only the containers
    on the path are copied."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(doc, dict):
        out = dict(doc)
        if delete and not rest:
            out.pop(head, None)
        else:
            out[head] = _replaced(doc[head], rest, value, delete)
        return out
    out_list = list(doc)
    out_list[head] = _replaced(doc[head], rest, value, delete)
    return out_list


def _dump(doc: Any, form: str) -> str:
    if form == "yaml":
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        return yaml.dump(doc, Dumper=dumper, allow_unicode=True, sort_keys=False,
                         width=1 << 30)
    return json.dumps(doc, ensure_ascii=False)


def mutants(base: Any, form: str = "json") -> st.SearchStrategy[bytes]:
    """``base`` with one value replaced by random JSON or an attack, or one key deleted."""
    paths = [p for p in _paths(base) if p]

    @st.composite
    def one(draw: st.DrawFn) -> bytes:
        path = draw(st.sampled_from(paths))
        attack = draw(st.booleans())
        value = SENTINEL if attack else draw(json_values)
        doc = _replaced(base, path, value, delete=draw(st.booleans()) and not attack)
        text = _dump(doc, form)
        if attack:
            quoted = [q for q in (json.dumps(SENTINEL), json.dumps(SENTINEL, ensure_ascii=False),
                                  '"\\0fuzz-attack\\0"') if q in text]
            text = text.replace(quoted[0], draw(attack_text()), 1) if quoted else text
        return text.encode("utf-8", "surrogatepass")

    return one()


def truncations(data: bytes) -> st.SearchStrategy[bytes]:
    return st.integers(0, len(data)).map(lambda cut: data[:cut])


@st.composite
def alias_bombs(draw: st.DrawFn) -> bytes:
    """Nested anchors, each level a list of aliases of the one before (2..10 by 2..12)."""
    levels, width = draw(st.integers(2, 10)), draw(st.integers(2, 12))
    lines = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]")
    if draw(st.booleans()):
        lines.append(f"cycle: &c [*c, {draw(st.integers(0, 9))}]")
    return ("\n".join(lines) + "\n").encode()


def inputs(base_bytes: bytes, base: Any, form: str = "json") -> st.SearchStrategy[bytes]:
    """The mixture every reader gets: mutants mostly, then cuts, bytes, and for YAML bombs."""
    parts = [mutants(base, form), mutants(base, form), mutants(base, form),
             truncations(base_bytes), st.binary(max_size=256)]
    if form == "yaml":
        parts.append(alias_bombs())
    return st.one_of(parts)


# ---- readers --------------------------------------------------------------------------------

def run_cli(args: list[str], timing: Any = None) -> tuple[int, str]:
    """``ngupgrade ARGS`` in process through the real entry point: (exit code, stderr)."""
    from ngupgrade.cli import main

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(args, timing=timing)
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else 1
    err.flush()
    err.seek(0)
    return code, err.read()


@dataclass
class Reader:
    """One reader: its inputs, the file name it reads and how it is run (-> exit, stderr)."""

    name: str
    inputs: st.SearchStrategy[bytes]
    filename: str
    run: Callable[[Path], tuple[int, str]]
    base: bytes = b""
    """The example document as its producer writes it: run first, to warm the imports and
    to measure the memory any input of this reader may take (the floor)."""


def _json_of(path: Path) -> tuple[bytes, Any]:
    data = path.read_bytes()
    return data, json.loads(data)


def _yaml_of(path: Path) -> tuple[bytes, Any]:
    data = path.read_bytes()
    return data, yaml.safe_load(data)


def _state_reader(name: str, path: Path) -> Reader:
    data, doc = _json_of(path)
    return Reader(name, inputs(data, doc), "state.tfstate",
                  lambda f: run_cli(["groups", "--state", str(f), "-o", "json"]), data)


def _cluster_reader(name: str, form: str) -> Reader:
    _data, whole = _json_of(EXAMPLES / "cluster.json")
    kinds: dict[str, int] = {}
    items = []
    for item in whole["items"]:  # two objects of each kind: every decoder, a small input
        if kinds.setdefault(item.get("kind"), 0) < 2:
            kinds[item.get("kind")] += 1
            items.append(item)
    doc = dict(whole, items=items)
    data = _dump(doc, form).encode()
    return Reader(name, inputs(data, doc, form), f"cluster.{form}",
                  lambda f: run_cli(["drain-check", "--state", str(STATE), "-g", "workers",
                                     "--cluster", str(f)]), data)


def _quota_reader(name: str, form: str) -> Reader:
    data, doc = _yaml_of(EXAMPLES / "quotas.yaml")
    if form == "json":
        data = _dump(doc, "json").encode()
    return Reader(name, inputs(data, doc, form), f"quotas.{form}",
                  lambda f: run_cli(["preflight", "--state", str(STATE), "--quotas", str(f),
                                     "--cloud-id", CLOUD_ID, "-o", "json"]), data)


def _scenario_reader() -> Reader:
    data, doc = _yaml_of(EXAMPLES / "scenario.yaml")

    def run(f: Path) -> tuple[int, str]:
        from ngupgrade.adapters.state.parse import parse_state
        from ngupgrade.core.errors import NgUpgradeError
        from ngupgrade.testing import FakeCloud, Scenario

        try:  # what `fake-cloud --scenario` does before it serves (forever)
            groups = parse_state(STATE.read_bytes(), str(STATE)).groups
            FakeCloud(groups, Scenario.load(str(f)))
        except NgUpgradeError as err:
            return err.exit_code, f"error: {err}"
        return 0, ""

    return Reader("scenario", inputs(data, doc, "yaml"), "scenario.yaml", run, data)


JOURNAL = {
    "format": 1, "group_id": "cat1ng0fixed0000abcd",
    "address": "yandex_kubernetes_node_group.workers", "name": "workers", "target": "1.30",
    "latest_revision": False,
    "start": {"version": "1.29", "nodes": 3, "node_ids": ["n1", "n2", "n3"],
              "policy": {"max_expansion": 1, "max_unavailable": 0},
              "terraform_policy": {"max_expansion": 1, "max_unavailable": 0}},
    "override": None, "override_source": "override", "restore_policy": False,
    "steps": {"version_update": {"status": "started", "operation_id": "op-1",
                                 "known_operations": [], "started_at": "2024-01-01T00:00:00Z",
                                 "finished_at": None}},
    "outcome": None, "updated_at": "2024-01-01T00:00:00Z",
}
"""A journal as ``Journal.to_json`` writes it: an upgrade of workers stopped in its Update."""


@dataclass
class JournalReader:
    """The journal, through ``upgrade --resume`` against a fake cloud refusing every Update."""

    fake: Any = None
    stack: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)

    def reader(self) -> Reader:
        data = json.dumps(JOURNAL, indent=2).encode()
        return Reader("journal", inputs(data, JOURNAL), "journal.json", self.run, data)

    def start(self) -> None:
        """Start the fake cloud (once, before any input is timed)."""
        if self.fake is None:
            self.fake = self.stack.enter_context(_refusing_cloud())

    def run(self, f: Path) -> tuple[int, str]:
        self.start()
        from ngupgrade.app.timing import Timing
        from ngupgrade.testing.proto import EPOCH

        fake = self.fake
        timing = Timing(fake.now, fake.sleep, wall=lambda: EPOCH + fake.now())
        return run_cli(["upgrade", "--state", str(STATE), "--endpoint", fake.endpoint,
                        "--insecure", "-g", "workers", "--version", "1.30", "--apply",
                        "--resume", "--journal", str(f), "--timeout", "600"], timing)


@contextlib.contextmanager
def _refusing_cloud() -> Iterator[Any]:
    from ngupgrade.testing import FakeCloud, Scenario

    raw = yaml.safe_load((EXAMPLES / "scenario.yaml").read_text())
    raw["faults"] = [{"kind": "permission_denied", "method": "NodeGroupService.Update",
                      "times": None}]
    os.environ.pop("YC_IAM_TOKEN", None)
    with FakeCloud.from_state(str(STATE), Scenario.from_mapping(raw)).start() as fake:
        yield fake


def readers(journal: JournalReader) -> list[Reader]:
    """Every reader, in the order they are reported."""
    plan_data, plan = _json_of(EXAMPLES / "plan-roll.json")
    return [
        _state_reader("state-v4", STATE),
        _state_reader("show-json", EXAMPLES / "show.json"),
        Reader("plan", inputs(plan_data, plan), "plan.json",
               lambda f: run_cli(["plan", "--plan", str(f), "-o", "json"]), plan_data),
        _cluster_reader("cluster-json", "json"),
        _cluster_reader("cluster-yaml", "yaml"),
        _quota_reader("quotas-json", "json"),
        _quota_reader("quotas-yaml", "yaml"),
        _scenario_reader(),
        journal.reader(),
    ]


# ---- the measure ----------------------------------------------------------------------------

class Hang(BaseException):
    """The alarm of STUCK_SECONDS went off (BaseException: no reader may catch it)."""


@dataclass
class Tally:
    """Counts of one reader."""

    inputs: int = 0
    exits: dict[int, int] = field(default_factory=dict)
    bugs: int = 0
    hangs: int = 0
    memory: int = 0
    floor: int = MEMORY_FLOOR
    """Peak bytes any input may take: the larger of MEMORY_FLOOR and twice the base's."""
    peak: int = 0
    keep: bool = True
    """Save each finding's input under $FUZZ_KEEP (not for the warm-up runs)."""
    slowest: float = 0.0
    examples: list[str] = field(default_factory=list)

    def note(self, what: str, data: bytes, detail: str) -> None:
        if len(self.examples) < 3:
            self.examples.append(f"{what}: {data[:120]!r}... {detail[:300]}")
        keep = os.environ.get("FUZZ_KEEP")
        if keep and self.keep:  # every finding's input, to run again by hand
            Path(keep).mkdir(parents=True, exist_ok=True)
            (Path(keep) / f"{what.replace(' ', '')}-{len(os.listdir(keep))}").write_bytes(data)


def _alarm(_signum: int, _frame: Any) -> None:
    raise Hang


def measure(reader: Reader, data: bytes, scratch: Path, tally: Tally) -> None:
    """Run ``reader`` on ``data`` once and add what it did to ``tally``."""
    path = scratch / f"{tally.inputs}-{reader.filename}"
    path.write_bytes(data)
    tally.inputs += 1
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    started = time.thread_time()
    signal.setitimer(signal.ITIMER_REAL, STUCK_SECONDS)
    try:
        code, err = reader.run(path)
    except Hang:
        tally.hangs += 1
        tally.note("hang", data, "")
        return
    except Exception as exc:  # counted, not handled: main() lets none escape, so each is a bug
        code, err = 70, f"{type(exc).__name__}: {exc}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        seconds = time.thread_time() - started
        with contextlib.suppress(OSError):
            path.unlink()
    peak = tracemalloc.get_traced_memory()[1] - before
    tally.slowest = max(tally.slowest, seconds)
    tally.peak = max(tally.peak, peak)
    tally.exits[code] = tally.exits.get(code, 0) + 1
    if code == 70 or "Traceback" in err:
        tally.bugs += 1
        tally.note("exit 70", data, err)
    if seconds > HANG_SECONDS:
        tally.hangs += 1
        tally.note("slow", data, f"{seconds:.1f} s of CPU")
    if peak > max(MEMORY_RATIO * len(data), tally.floor):
        tally.memory += 1
        tally.note("memory", data, f"peak {peak} bytes for {len(data)}")


def fuzz(reader: Reader, examples: int, scratch: Path) -> Tally:
    """Run ``examples`` inputs of ``reader``; never raises for what it finds (it counts)."""
    tally = Tally()
    measure(reader, reader.base, scratch, Tally(keep=False))  # warm caches, not counted
    warm = Tally(keep=False)
    measure(reader, reader.base, scratch, warm)
    tally.floor = max(MEMORY_FLOOR, 2 * warm.peak)

    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(data=reader.inputs)
    def one(data: bytes) -> None:
        measure(reader, data, scratch, tally)

    one()
    return tally


def import_everything() -> None:
    """Import every module of ngupgrade and the libraries its commands load lazily, so that
    no input is charged with a first import (seconds on a loaded machine)."""
    import importlib
    import pkgutil

    import ngupgrade

    for mod in pkgutil.walk_packages(ngupgrade.__path__, "ngupgrade."):
        if not mod.name.endswith("__main__"):  # that one runs the CLI
            importlib.import_module(mod.name)
    for lib in ("grpc", "yandexcloud", "kubernetes.client", "kubernetes.config", "rich.console",
                "cryptography.hazmat.primitives.serialization", "boto3"):
        with contextlib.suppress(ImportError):
            importlib.import_module(lib)


def run_all(names: list[str] | None, examples: int) -> dict[str, Tally]:
    """Fuzz the named readers (all when None); the tallies by reader."""
    import_everything()
    signal.signal(signal.SIGALRM, _alarm)
    tracemalloc.start()
    journal = JournalReader()
    results: dict[str, Tally] = {}
    with journal.stack, tempfile.TemporaryDirectory(prefix="ngupgrade-fuzz-") as tmp:
        for reader in readers(journal):
            if names and reader.name not in names:
                continue
            if reader.name == "journal":
                journal.start()
            started = time.perf_counter()
            results[reader.name] = tally = fuzz(reader, examples, Path(tmp))
            print(_row(reader.name, tally, time.perf_counter() - started), flush=True)
    tracemalloc.stop()
    return results


HEADER = (f"{'reader':<13} {'inputs':>6} {'exit70/tb':>9} {'hang>5s':>7} {'mem>10x':>7} "
          f"{'cpu max':>8} {'peak':>8} {'wall':>6}  exits")


def _row(name: str, t: Tally, seconds: float) -> str:
    exits = " ".join(f"{code}:{n}" for code, n in sorted(t.exits.items()))
    return (f"{name:<13} {t.inputs:>6} {t.bugs:>9} {t.hangs:>7} {t.memory:>7} "
            f"{t.slowest:>7.2f}s {t.peak / (1 << 20):>5.1f}MiB {seconds:>5.0f}s  {exits}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--reader", action="append", help="only this reader (repeatable)")
    args = parser.parse_args(argv)
    os.environ.setdefault("NGUPGRADE_JOURNAL_DIR", tempfile.mkdtemp(prefix="ngupgrade-fuzz-j-"))
    print(f"{args.examples} inputs per reader; memory counted over {MEMORY_RATIO}x the input "
          f"beyond a floor (the larger of {MEMORY_FLOOR >> 20} MiB and twice the reader's "
          f"peak on its valid example); hangs over {HANG_SECONDS:g} s of CPU or "
          f"{STUCK_SECONDS:g} s of wall time")
    print(HEADER, flush=True)
    results = run_all(args.reader, args.examples)
    failed = False
    for name, tally in results.items():
        for example in tally.examples:
            print(f"  {name}: {example}")
        failed = failed or bool(tally.bugs or tally.hangs or tally.memory)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
