"""The documented Python signatures are the real ones (issue 27: the README's ``plan()``
left out ``verify=True``).

Two checks:

- ``SIGNATURES`` holds, for every public callable, the one line the docs show for it,
  and each must equal the signature Python reports (``inspect.signature``, which reads a
  compiled function's ``__text_signature__``). Changing a function's parameters therefore
  fails here until this table, and the docs, say the same.
- Every inline code span of README.md and docs/*.md that looks like one of these
  signatures (a name from the table, then arguments that are all ``name`` or
  ``name=literal``) must be that line, or, when it lists no defaults (a call such as
  ``render(problem, plan)``), must name exactly the required parameters.
"""

import importlib
import inspect
import json
import re
from pathlib import Path

import pytest

import memplan

ROOT = Path(__file__).resolve().parents[3]

#: The text the docs carry for each public callable, keyed by its dotted name.
SIGNATURES = {
    "memplan.Problem": "Problem(buffers, capacity=None, lifetimes=None, shares=None)",
    "memplan.Problem.from_arrays":
        "Problem.from_arrays(starts, ends, sizes, alignments=None, ids=None, capacity=None, "
        "lifetimes=None)",
    "memplan.Problem.from_csv": "Problem.from_csv(path, capacity=None, lifetimes=None)",
    "memplan.Problem.from_csv_text": "Problem.from_csv_text(text, capacity=None, lifetimes=None)",
    "memplan.Problem.from_json": "Problem.from_json(path, capacity=None, lifetimes=None)",
    "memplan.Problem.from_json_text": "Problem.from_json_text(text, capacity=None, lifetimes=None)",
    "memplan.Problem.from_file": "Problem.from_file(path, memories=None, spill=None, lifetimes=None)",
    "memplan.plan":
        'plan(problem, planner="auto", capacity=None, time_limit=None, work_limit=None, seed=None, '
        "threads=0, verify=True, memories=None, allowed=None, accesses=None)",
    "memplan.Memory": "Memory(name, capacity=None, alignment=1, cost=None)",
    "memplan.check": "check(problem, plan, capacity=None)",
    "memplan.share": 'share(problem, strategy="auto")',
    "memplan.planners": "planners()",
    "memplan.render": 'render(problem, plan, name="plan", width=1200, height=800)',
    "memplan.plan_spill":
        "plan_spill(problem, capacity, costs=None, memory=None, time_limit=None, work_limit=None, "
        "threads=0, seed=0, verify=True)",
    "memplan.tflite.plan_model":
        'plan_model(src, dst, time_limit=None, *, work_limit=None, planner="auto", capacity=None, '
        "force=False, threads=0, reference_scratch=True, scratch=(), version_note=True, in_place=False)",
    "memplan.executorch.memory_planning_pass":
        'memory_planning_pass(time_limit=None, planner="auto", threads=0, seed=None, '
        "verify=False, fast_capacity=None, work_limit=None, in_place=False, fold_constants=None, "
        "**pass_options)",
    "memplan.executorch.Algorithm":
        'Algorithm(time_limit=None, planner="auto", threads=0, seed=None, fast_capacity=None, '
        "work_limit=None, in_place=False)",
    "memplan.executorch.banked_memory_planning_pass":
        "banked_memory_planning_pass(target, alignment=16, allow_overlapping_allocations=True, "
        "time_limit=None, threads=0, seed=None, verify=False, traffic=True, work_limit=None, "
        "in_place=False, fold_constants=None, **pass_options)",
    "memplan.executorch.BankedAlgorithm":
        "BankedAlgorithm(target, time_limit=None, threads=0, seed=None, traffic=True, "
        "work_limit=None, in_place=False)",
    "memplan.torch.problem_from_program": "problem_from_program(exported_program, alignment=16)",
    "memplan.torch.weight_copies": "weight_copies(exported_program)",
    "memplan.torch.weight_copies_at_peak": "weight_copies_at_peak(exported_program, alignment=16)",
}



def _resolve(dotted):
    """The object named ``memplan.a.b``; skips when its optional extra is missing."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        module_name = ".".join(parts[:k])
        try:
            obj = importlib.import_module(module_name)
        except ImportError as e:
            if module_name in ("memplan.torch", "memplan.executorch"):
                pytest.skip(f"{module_name} needs its extra: {e}")
            continue
        for attr in parts[k:]:
            obj = getattr(obj, attr)
        return obj
    raise LookupError(dotted)


def _literal(value):
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def _render(short_name, obj):
    """``name(a, b=1, *, c=None, **rest)`` as the docs write it: strings in double quotes."""
    params = []
    star_done = False
    for p in inspect.signature(obj).parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            params.append(f"*{p.name}")
            star_done = True
            continue
        if p.kind is p.VAR_KEYWORD:
            params.append(f"**{p.name}")
            continue
        if p.kind is p.KEYWORD_ONLY and not star_done:
            params.append("*")
            star_done = True
        if p.default is p.empty:
            params.append(p.name)
        else:
            params.append(f"{p.name}={_literal(p.default)}")
    return f"{short_name}({', '.join(params)})"


def _short(dotted):
    """The name the docs use: ``Problem.from_csv`` for methods, the last part otherwise."""
    parts = dotted.split(".")
    return ".".join(parts[-2:]) if parts[-2] == "Problem" else parts[-1]


@pytest.mark.parametrize("dotted", sorted(SIGNATURES))
def test_the_table_is_the_real_api(dotted):
    obj = _resolve(dotted)
    assert _render(_short(dotted), obj) == SIGNATURES[dotted]


_SPAN = re.compile(r"`((?:memplan\.)?[A-Za-z_][\w.]*)\(([^()`]*)\)`")
_ARG = re.compile(
    r"^(\*{0,2}[A-Za-z_]\w*)"
    r"(?:=(None|True|False|-?\d[\d_]*(?:\.\d+)?(?:e-?\d+)?|\(\)|\"[^\"]*\"|'[^']*'))?$"
)


def _doc_spans():
    """``(page, text, dotted name, args)`` for every inline span naming a table entry."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    by_short = {}
    for dotted in SIGNATURES:
        by_short[_short(dotted)] = dotted
        by_short[dotted] = dotted
        by_short[dotted.removeprefix("memplan.")] = dotted
    for page in pages:
        for m in _SPAN.finditer(page.read_text()):
            name, args = m.group(1), " ".join(m.group(2).split())
            dotted = by_short.get(name)
            if dotted is None or not args:
                continue  # not ours, or a mention such as `plan()`
            parts = [a.strip() for a in args.split(",")] if args else []
            if not all(_ARG.match(a) for a in parts):
                continue  # a call with values (`Algorithm(fast_capacity=...)`), not a signature
            yield page.name, f"{name}({args})", dotted, parts


def test_every_documented_signature_is_the_real_one():
    spans = list(_doc_spans())
    assert any(d == "memplan.plan" for _, _, d, _ in spans), "the docs show plan()'s signature"
    wrong = []
    for page, text, dotted, parts in spans:
        expected = SIGNATURES[dotted]
        real_args = expected[expected.index("(") + 1:-1]
        real = [a.strip() for a in real_args.split(",")] if real_args else []
        if any("=" in a for a in parts):
            ok = parts == real
        else:  # a call: exactly the required parameters
            ok = parts == [a for a in real if "=" not in a and not a.startswith("*")]
        if not ok:
            wrong.append(f"{page}: `{text}` should be `{expected}`")
    assert not wrong, "\n".join(wrong)
