"""Two ways of writing a kernel that cost a first start seconds of compiling, read off the source.

A cold cache compiles every kernel, and the compile log (``numba:compile``
events) showed two patterns coming back with new code:

- an int or bool constant passed to another kernel is a numba type of its
  own (``Literal[int](0)``), so a kernel called with ``0`` and with a
  variable compiles twice (1.6 s for the box pairs' helper);
- an array assigned into a slice (``a[i:j] = b[:k]``) compiles numba's
  shape-mismatch error with its string formatting: 4-5 s, once a process.

Kernels inlined at numba's IR level (``inline="always"``) take constants
freely: they are not compiled on their own. A kernel set from a variable
that starts as a constant (``face = 0`` then ``face = k`` in a loop) can
still be a Literal; the compile log catches that, this test does not.
"""

from __future__ import annotations

import ast
from pathlib import Path

KERNELS = Path(__file__).resolve().parents[1] / "systems" / "kernels"


def _decorators(function: ast.FunctionDef) -> str:
    return " ".join(ast.unparse(decorator) for decorator in function.decorator_list)


def _is_kernel(function: ast.FunctionDef) -> bool:
    decorators = _decorators(function)
    return "njit" in decorators or "kernel_with_threads" in decorators


def _inlined(tree: ast.Module) -> set[str]:
    """Names of the kernels a module defines inlined at numba's IR level."""
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and "inline=" in _decorators(node)
    }


def _compiled_apart(tree: ast.Module, inlined: set[str]) -> set[str]:
    """Names of the kernels a module defines or imports that are compiled on their own (not inlined:
    ``inlined``, the names inlined in any kernel module)."""
    defined = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and _is_kernel(node) and "inline=" not in _decorators(node)
    }
    imported = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("weft.systems.kernels")
        for alias in node.names
    }
    return defined | (imported - inlined)


def _findings(folder: Path = KERNELS) -> list[str]:
    found = []
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.py"))}
    inlined = set().union(*map(_inlined, trees.values()))
    for path, tree in trees.items():
        callees = _compiled_apart(tree, inlined)
        kernels = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and _is_kernel(node)]
        for kernel in kernels:
            for node in ast.walk(kernel):
                where = f"{path.name}:{getattr(node, 'lineno', 0)}: {kernel.name}"
                if _passes_a_constant(node, callees):
                    found.append(f"{where} passes {ast.unparse(node)}")
                if _assigns_an_array_into_a_slice(node):
                    found.append(f"{where} assigns {ast.unparse(node)}")
    return found


def _passes_a_constant(node: ast.AST, callees: set[str]) -> bool:
    """A call of a kernel compiled apart with an int or bool constant among its arguments."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in callees):
        return False
    return any(isinstance(arg, ast.Constant) and isinstance(arg.value, int) for arg in node.args)


def _assigns_an_array_into_a_slice(node: ast.AST) -> bool:
    if not isinstance(node, ast.Assign) or _scalar(node.value):
        return False
    return any(
        isinstance(target, ast.Subscript)
        and any(isinstance(part, ast.Slice) for part in ast.walk(target.slice))
        for target in node.targets
    )


def _scalar(value: ast.expr) -> bool:
    """Whether an assigned value is plainly a number (a name or arithmetic on names and numbers, no
    subscript, call or attribute): filling a slice with a number compiles no shape check."""
    return all(not isinstance(node, ast.Subscript | ast.Call | ast.Attribute) for node in ast.walk(value))


def test_no_kernel_passes_a_constant_to_a_kernel_compiled_apart_nor_assigns_an_array_into_a_slice() -> None:
    assert _findings() == []


def test_the_check_sees_both_patterns(tmp_path: Path) -> None:
    source = (
        "import numba\n"
        "@numba.njit(cache=True)\n"
        "def helper(first, last):\n"
        "    return last - first\n"
        "@numba.njit(cache=True, inline='always')\n"
        "def inlined(first):\n"
        "    return first\n"
        "@numba.njit(cache=True)\n"
        "def kernel(a, b, n):\n"
        "    a[:] = 0.0\n"
        "    a[1:n] = n + 1\n"
        "    a[:n] = b[:n]\n"
        "    inlined(0)\n"
        "    return helper(0, n)\n"
    )
    (tmp_path / "example.py").write_text(source, encoding="utf-8")
    assert [line.split(": ", 1)[1] for line in _findings(tmp_path)] == [
        "kernel assigns a[:n] = b[:n]",
        "kernel passes helper(0, n)",
    ]
