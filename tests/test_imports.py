"""Imports go one way: no cycle among Weft's modules, game -> systems -> components, kernels on
numpy, numba and math alone, and the command line without the benchmarks until asked."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import weft

ROOT = Path(weft.__file__).parent
PACKAGES = ("components", "systems", "game", "levels", "bench")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["weft", *parts])


def weft_modules() -> dict[str, Path]:
    """Every module of the package, by dotted name (tests, docs and examples are not in it)."""
    paths = [ROOT / "__init__.py", ROOT / "__main__.py", *ROOT.glob("*.py")]
    for package in PACKAGES:
        paths += (ROOT / package).rglob("*.py")
    return {module_name(path): path for path in sorted(set(paths))}


def imported(path: Path, name: str) -> set[str]:
    """What the module at ``path`` imports when it runs: at its top and inside its functions alike,
    leaving out what only a type checker reads (``if TYPE_CHECKING:``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for inner in ast.walk(node)
    }
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}  # `from pkg import module`
    return found


def import_graph() -> dict[str, set[str]]:
    """Each Weft module and the Weft modules it imports (a name inside a module counts as the module)."""
    modules = weft_modules()

    def owner(target: str) -> str | None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    graph = {}
    for name, path in modules.items():
        targets = {owner(target) for target in imported(path, name) if target.startswith("weft")}
        graph[name] = {target for target in targets if target and target != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    source = "from weft.game import window\n\ndef f():\n    from weft.game.picker import PickerView\n"
    assert {"weft.game.window", "weft.game.picker.PickerView"} <= imported_from_text(source)


def imported_from_text(source: str) -> set[str]:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "probe.py"
        path.write_text(source, encoding="utf-8")
        return imported(path, "weft.probe")


def test_no_weft_module_is_in_an_import_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 150  # the whole package was read
    found = cycles(graph)
    detail = [
        f"{' <-> '.join(component)}: "
        + "; ".join(f"{a} imports {b}" for a in component for b in sorted(graph[a]) if b in component)
        for component in found
    ]
    assert found == [], "import cycles (move what both sides need to a module of its own):\n" + "\n".join(
        detail
    )


def test_imports_point_one_way_game_systems_components() -> None:
    graph = import_graph()
    wrong = []
    for name, targets in graph.items():
        for target in targets:
            if name.startswith("weft.components.") and target.startswith(("weft.systems", "weft.game")):
                wrong.append(f"{name} -> {target}")
            if name.startswith("weft.systems.") and target.startswith("weft.game"):
                wrong.append(f"{name} -> {target}")
            # the benchmarks time the engine beside pymunk: only `weft bench` reaches them, from inside
            # the command (the next test checks the command line imports none of them on its own)
            engine = name.startswith(("weft.components", "weft.systems", "weft.game"))
            if engine and target.startswith("weft.bench") and name != "weft.game.cli":
                wrong.append(f"{name} -> {target}")
    assert wrong == []


def test_kernels_import_only_numpy_numba_math_and_each_other() -> None:
    # llvmlite is numba's own code generator (a part of numba's install): two_projections writes one
    # intrinsic in its IR, two threads projected in the vector lanes, where numba writes none
    allowed = ("numpy", "numba", "llvmlite", "math", "__future__", "weft.systems.kernels")
    wrong = {}
    for name, path in weft_modules().items():
        if not name.startswith("weft.systems.kernels.") or name.endswith(("kernels", "kernels.jit")):
            continue  # the package's cache folder and jit's builds are machinery, not kernels
        outside = {
            target
            for target in imported(path, name)
            if not target.startswith(allowed) and target.partition(".")[0] not in ("typing", "numpy")
        }
        if outside:
            wrong[name] = sorted(outside)
    assert wrong == {}


def test_the_command_line_imports_no_benchmark_and_no_arcade_until_asked() -> None:
    probe = (
        "import sys, weft.game.cli; "
        "print(sorted({'.'.join(m.split('.')[:2]) for m in sys.modules if m.startswith('weft.')}), "
        "'arcade' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded, arcade = result.stdout.rsplit(" ", 1)
    assert "weft.bench" not in loaded
    assert "weft.game" in loaded
    assert arcade.strip() == "False"
