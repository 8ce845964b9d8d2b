"""The Python package's modules import one another without a circle (issue 44): the
ExecuTorch door is layered one way, ``_executorch_fold`` below ``_executorch_inplace``,
below ``_executorch_specs``,
below ``_executorch_algorithm``, below ``_executorch_pass``, below ``_executorch_banks``, below
the façade ``executorch``. The edges are read from the sources (``import``/``from``
statements anywhere in a module, relative or absolute), so a lazy import inside a
function counts too. (The Rust crates' modules: ``crates/memplan/tests/import_graph.rs``.)"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "memplan"


def _module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _edges():
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    edges = {m: set() for m in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            for t in targets:
                if t in modules and t != name:
                    edges[name].add(t)
    return edges


def _cycle(edges):
    """A circle of imports, or None."""
    state = {}
    stack = []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for n in sorted(edges[m]):
            if state.get(n) == "open":
                return stack[stack.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        state[m] = "done"
        stack.pop()
        return None

    for m in sorted(edges):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_the_package_imports_without_a_circle():
    edges = _edges()
    assert "memplan.executorch" in edges and "memplan._executorch_algorithm" in edges
    assert _cycle(edges) is None, " -> ".join(_cycle(edges))


def test_the_executorch_door_is_layered_one_way():
    edges = _edges()
    layers = ["memplan._executorch_fold", "memplan._executorch_inplace", "memplan._executorch_specs", "memplan._executorch_algorithm",
              "memplan._executorch_pass", "memplan._executorch_banks", "memplan.executorch"]
    for k, low in enumerate(layers):
        for high in layers[k + 1:]:
            assert high not in edges[low], f"{low} imports {high}, a layer above it"
    assert {"memplan._executorch_algorithm", "memplan._executorch_pass",
            "memplan._executorch_banks"} <= edges["memplan.executorch"]


def test_the_cycle_finder_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
