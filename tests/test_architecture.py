"""The import rules of Kifu's floors (docs/architecture.md), read from the code's own imports.

Every ``import`` and ``from … import`` of Kifu's packages counts, lazy ones inside functions too.
The rules:

- a module imports only its own floor and the floors below it (:data:`FLOORS`, lowest first);
  two packages on one floor do not import each other;
- the modules import each other in no circle;
- the game-independent core (the ingest core, the parallel machinery, the store's SQL layer, the
  rules' own core) imports no game module;
- one game's rules never import another game's.

A failure names the file, the module it imports and the rule; ``test_*_can_fail`` prove each check
catches what it is there for.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

from tests.conftest import REPO

#: Kifu's packages floor by floor, lowest first. A name stands for the package and everything in it
#: unless a longer name on another floor takes a part of it (``loaders.core`` out of ``loaders``).
FLOORS: list[tuple[str, ...]] = [
    ("common",),                 # the version, settings, text safety, JSON as contest programs write it
    ("rules",),                  # the pure rules of every game: read logs, replay, judge
    ("referee", "queries"),      # playing matches (kifu play); the database: schema, SQL, packing, sharing
    ("loaders.core",),           # sources, match identity, the store
    ("loaders.parallel",),       # worker processes: rounds and whole files side by side
    ("loaders.games",),          # one loader per game
    ("loaders",),                # the rest of loaders: the pipeline, one ingest run through the games
    ("loaders.live",),           # ingest while others read: watch, swap, upload
    ("app",),                    # the dashboard
    ("kifu",),                   # the command line
]  # fmt: skip
PACKAGES = ("common", "rules", "referee", "queries", "loaders", "app", "kifu")
GAMES = ("uno", "kakomimasu", "chaser")
#: Game modules: a game's rules, a game's loader.
GAME_MODULES = tuple(f"rules.{g}" for g in GAMES) + ("loaders.games",)
#: What must know no game.
GAME_FREE = ("common", "rules.core", "loaders.core", "loaders.parallel", "queries.rawlines", "queries.sharing",
             "queries.lake")  # fmt: skip


def module_name(path: Path, root: Path = REPO) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules(root: Path = REPO) -> dict[str, Path]:
    """Every module of Kifu's packages, by dotted name."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            found[module_name(path, root)] = path
    return found


def imports_of(path: Path, name: str, known: Iterable[str]) -> set[str]:
    """The project modules ``path`` (the module ``name``) imports, lazy imports included: ``from a.b import c``
    counts as ``a.b.c`` when that is a module, else as ``a.b``."""
    known = set(known)
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")[: len(name.split(".")) - (0 if is_package else 1) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            targets = [f"{base}.{a.name}" for a in node.names]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def import_graph(root: Path = REPO) -> dict[str, set[str]]:
    modules = project_modules(root)
    return {name: imports_of(path, name, modules) for name, path in modules.items()}


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def floor_of(module: str) -> tuple[int, str]:
    """The floor of a module and the name on :data:`FLOORS` that places it (the longest that contains it)."""
    best: tuple[int, str] | None = None
    for level, names in enumerate(FLOORS):
        for n in names:
            if _within(module, n) and (best is None or len(n) > len(best[1])):
                best = (level, n)
    if best is None:
        raise AssertionError(f"{module} stands on no floor: add its package to FLOORS and docs/architecture.md")
    return best


def floor_breaks(graph: dict[str, set[str]]) -> list[str]:
    out = []
    for a, targets in sorted(graph.items()):
        fa, na = floor_of(a)
        for b in sorted(targets):
            fb, nb = floor_of(b)
            if fb > fa:
                out.append(f"{a} imports {b}: up from floor {fa} ({na}) to floor {fb} ({nb})")
            elif fb == fa and na != nb:
                out.append(f"{a} imports {b}: {na} and {nb} share floor {fa} and do not import each other")
    return out


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def game_breaks(graph: dict[str, set[str]]) -> list[str]:
    out = []
    for a, targets in sorted(graph.items()):
        for b in sorted(targets):
            if any(_within(a, p) for p in GAME_FREE) and any(_within(b, g) for g in GAME_MODULES):
                out.append(f"{a} imports the game module {b}: the game-independent core knows no game")
            ga = next((g for g in GAMES if _within(a, f"rules.{g}")), None)
            gb = next((g for g in GAMES if _within(b, f"rules.{g}")), None)
            if ga and gb and ga != gb:
                out.append(f"{a} imports {b}: one game's rules never import another's")
    return out


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    g = import_graph()
    assert len(g) > 100 and sum(map(len, g.values())) > 300, "the import graph was not read"
    return g


def test_every_module_stands_on_a_floor(graph: dict[str, set[str]]) -> None:
    for module in graph:
        floor_of(module)


def test_imports_run_down_the_floors(graph: dict[str, set[str]]) -> None:
    assert floor_breaks(graph) == []


def test_no_import_circle(graph: dict[str, set[str]]) -> None:
    assert circles(graph) == []


def test_the_core_knows_no_game(graph: dict[str, set[str]]) -> None:
    assert game_breaks(graph) == []


def test_the_dashboard_reads_through_the_sql_layer(graph: dict[str, set[str]]) -> None:
    """Pages and their helpers never reach into the loaders: what they show comes from ``queries``."""
    assert [f"{a} imports {b}" for a, t in sorted(graph.items()) if _within(a, "app")
            for b in sorted(t) if _within(b, "loaders")] == []  # fmt: skip


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for package in PACKAGES:
        (tmp_path / package).mkdir(exist_ok=True)
        (tmp_path / package / "__init__.py").touch()
    return tmp_path


def test_the_floor_check_can_fail(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"queries/boards.py": "def f():\n    from loaders.core.store import Store\n",
                            "loaders/core/__init__.py": "", "loaders/core/store.py": "import queries\n",
                            "referee/play.py": "from queries import sql\n"})  # fmt: skip
    breaks = floor_breaks(import_graph(root))
    assert any(b.startswith("queries.boards imports loaders.core.store: up") for b in breaks), breaks
    assert any(b.startswith("referee.play imports queries: referee and queries share floor") for b in breaks), breaks
    assert not any(b.startswith("loaders.core.store") for b in breaks)


def test_the_circle_check_can_fail(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"app/ui.py": "from app import frames\n", "app/frames.py": "def f():\n    from . import ui\n",
                            "app/charts.py": "from app.ui import x\n"})  # fmt: skip
    assert circles(import_graph(root)) == [["app.frames", "app.ui"]]


def test_the_game_check_can_fail(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"loaders/core/__init__.py": "", "loaders/core/sources.py": "from rules.chaser.log import x\n",
                            "rules/uno/__init__.py": "", "rules/uno/model.py": "import rules.kakomimasu.game\n",
                            "rules/chaser/__init__.py": "", "rules/chaser/log.py": "",
                            "rules/kakomimasu/__init__.py": "", "rules/kakomimasu/game.py": ""})  # fmt: skip
    assert game_breaks(import_graph(root)) == [
        "loaders.core.sources imports the game module rules.chaser.log: the game-independent core knows no game",
        "rules.uno.model imports rules.kakomimasu.game: one game's rules never import another's",
    ]
