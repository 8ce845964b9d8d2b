"""memplan.torch: exported PyTorch programs as memplan problems, and its command line.
Needs torch (the `torch` or `executorch` extra); skipped without it."""

import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

import memplan  # noqa: E402
import memplan.torch  # noqa: E402


class Small(torch.nn.Module):
    """x -> conv -> relu_ (in place) -> flatten (a view) -> linear; a two-output op."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.fc = torch.nn.Linear(4 * 8 * 8, 10)

    def forward(self, x):
        y = torch.relu_(self.conv(x))
        flat = y.view(1, -1)
        values, indices = torch.max(flat, dim=1)
        return self.fc(flat) + values.unsqueeze(1), indices


def _exported():
    torch.manual_seed(0)
    return torch.export.export(Small().eval(), (torch.randn(1, 3, 8, 8),))


def _lifetimes(problem):
    return {b["id"]: (b["start"], b["end"], b["size"]) for b in problem.buffers}


def test_views_and_in_place_ops_fold_into_their_storage():
    ep = _exported()
    problem, nodes = memplan.torch.problem_from_program(ep, alignment=1)
    life = _lifetimes(problem)
    # Steps: every placeholder is 0, then one step per node.
    others = [n for n in ep.graph.nodes if n.op != "placeholder"]
    index = {n.name: k + 1 for k, n in enumerate(others)}
    # The user input is live from 0; parameters are not planned.
    assert life["x"][0] == 0 and life["x"][2] == 3 * 8 * 8 * 4
    assert not any("weight" in i or "bias" in i for i in life)
    conv = next(i for i in life if i.startswith("conv"))
    names = [n.name for n in nodes[conv]]
    # relu_ and view write into / look at the conv's storage: one buffer, live through
    # the last use of the view (the linear and the max).
    assert any(n.startswith("relu") for n in names) and any(n.startswith("view") for n in names)
    last_use = max(index[u.name] for n in nodes[conv] for u in n.users)
    assert life[conv] == (index[conv], last_use + 1, 4 * 8 * 8 * 4)
    # torch.max(dim) has two outputs: two storages, picked by getitem.
    outputs = sorted(i for i in life if i.startswith("max"))
    assert [o[-3:] for o in outputs] == ["[0]", "[1]"] and outputs[0][:-3] == outputs[1][:-3]
    assert life[outputs[1]][2] == 8  # one int64 index
    # What the graph returns stays live through the output node.
    assert life[outputs[1]][1] == len(others) + 1
    # Alignment rounds sizes up and is every buffer's alignment.
    aligned, _ = memplan.torch.problem_from_program(ep, alignment=16)
    assert all(b["size"] % 16 == 0 and b["alignment"] == 16 for b in aligned.buffers)
    p = memplan.plan(aligned)
    assert memplan.check(aligned, p) == p.height >= p.max_load == aligned.max_load()


def test_bad_arguments():
    with pytest.raises(TypeError, match="torch.export.export"):
        memplan.torch.problem_from_program(Small())
    with pytest.raises(ValueError, match="alignment"):
        memplan.torch.problem_from_program(_exported(), alignment=0)


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "memplan.torch", *map(str, args)],
        capture_output=True, text=True, timeout=600,
    )


def test_issue_49_14_the_command_line_budget_is_work_as_in_every_door(tmp_path, capsys):
    # In this process (`python -m memplan.torch` runs this `main`; the tests below run
    # the module itself): each subprocess would import torch again.
    with pytest.raises(SystemExit) as done:
        memplan.torch.main(["--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--work-limit" in text and f"{memplan.DEFAULT_WORK_LIMIT:,}" in text, text
    assert "(default 1)" not in text and "default: no clock" in text, text
    # The same plan whatever the load: the work limit, not a clock, ends the search.
    model = tmp_path / "small.pt2"
    torch.export.save(_exported(), str(model))
    outs = []
    for _ in range(2):
        assert memplan.torch.main([str(model), "--work-limit", "1000"]) == 0
        outs.append(capsys.readouterr().out)
    strip = lambda out: out.split("time ")[0]  # noqa: E731 (the figures before the timings)
    assert "max load" in outs[0] and strip(outs[0]) == strip(outs[1]), outs


def test_the_command_line_plans_and_renders_a_saved_program(tmp_path):
    model = tmp_path / "small.pt2"
    torch.export.save(_exported(), str(model))
    svg, csv = tmp_path / "plan.svg", tmp_path / "problem.csv"
    done = _cli(model, "--render", svg, "--csv", csv)
    assert done.returncode == 0, done.stderr
    assert "max load" in done.stdout and "height" in done.stdout and "planner" in done.stdout
    text = svg.read_text()
    assert text.startswith("<svg") and text.count("<rect") >= 5 and "small.pt2" in text
    problem = memplan.Problem.from_csv(str(csv))
    assert problem.max_load() == memplan.torch.problem_from_program(_exported())[0].max_load()


def test_the_command_line_rejects_bad_input_in_one_line(tmp_path):
    missing = _cli(tmp_path / "nope.pt2")
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1, missing.stderr
    junk = tmp_path / "junk.pt2"
    junk.write_bytes(b"not a zip file\x00")
    bad = _cli(junk)
    assert bad.returncode == 3 and bad.stderr.startswith("error:"), bad.stderr
    assert bad.stderr.count("\n") == 1


class _Dyn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.fc(x)) * 2


def _dynamic():
    """A program exported with a dynamic batch, ``Dim('batch', 1..64)``, at batch 4."""
    torch.manual_seed(0)
    batch = torch.export.Dim("batch", min=1, max=64)
    return torch.export.export(
        _Dyn().eval(), (torch.randn(4, 8),), dynamic_shapes={"x": {0: batch}}
    )


def _shape_state(ep):
    x = next(n for n in ep.graph.nodes if n.name == "x").meta["val"].shape[0]
    env = x.node.shape_env
    return dict(ep.range_constraints), dict(env.var_to_range), dict(env.replacements)


def test_issue_27_a_dynamic_program_is_planned_at_its_upper_bound_and_left_unchanged():
    """Issue 27 §5: the front end called ``int()`` on the batch dimension, which
    specialised the caller's program to batch 4 (its shape environment then held
    ``s = 4``) and planned batch 4's sizes. Now a symbolic dimension is planned at its
    upper bound (64), as ExecuTorch does, and the program is left as it was."""
    ep = _dynamic()
    before = _shape_state(ep)
    problem, _ = memplan.torch.problem_from_program(ep)
    assert _shape_state(ep) == before
    sizes = {b["id"]: b["size"] for b in problem.buffers}
    assert sizes["x"] == 64 * 8 * 4, sizes  # batch 64 of 8 floats


def test_issue_27_an_unbounded_dimension_is_an_input_error():
    batch = torch.export.Dim("batch", min=1)
    ep = torch.export.export(_Dyn().eval(), (torch.randn(4, 8),), dynamic_shapes={"x": {0: batch}})
    before = _shape_state(ep)
    with pytest.raises(memplan.InputError, match="no upper bound"):
        memplan.torch.problem_from_program(ep)
    assert _shape_state(ep) == before


def test_issue_27_the_summary_names_the_weights_lowering_copies(tmp_path):
    """Issue 27 §5: the front end's max load and the lowered program's arena differed
    (efficientnet_v2_s: 1,769,472 against 5,129,120) because the edge dialect copies the
    classifier's weight with permute_copy. The summary now names such weights."""
    assert memplan.torch.weight_copies(_exported()) == [("linear", "fc.weight", 10 * 256 * 4)]
    model = tmp_path / "small.pt2"
    torch.export.save(_exported(), str(model))
    done = _cli(model)
    assert done.returncode == 0, done.stderr
    note = done.stdout.splitlines()[-1]
    assert note.startswith("note: lowered to ExecuTorch, 1 weight(s) become short-lived"), note
    assert "permute_copy" in note and "fc.weight (10,240 B, linear)" in note, note


class _TwoLinears(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(256, 256)
        self.fc2 = torch.nn.Linear(256, 256)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def test_issue_39_the_note_gives_what_weight_copies_add_at_the_peak(tmp_path):
    """Issue 39: the note summed the copies (two 262,144 B weights here: 524,288 B), but a
    linear's copy lives only at its own step, so at the peak only one of them is live:
    they add 262,144 B to the max load, not 524,288."""
    torch.manual_seed(0)
    ep = torch.export.export(_TwoLinears().eval(), (torch.randn(1, 256),))
    weight = 256 * 256 * 4
    assert [n for _, _, n in memplan.torch.weight_copies(ep)] == [weight, weight]
    before, after = memplan.torch.weight_copies_at_peak(ep)
    problem, _ = memplan.torch.problem_from_program(ep)
    assert before == problem.max_load() < weight
    # At fc1's step: its input, its output and one copy; never both copies.
    assert after - before == weight, (before, after)
    model = tmp_path / "two.pt2"
    torch.export.save(ep, str(model))
    done = _cli(model)
    assert done.returncode == 0, done.stderr
    note = done.stdout.splitlines()[-1]
    assert f"at the peak they add {weight:,} B to the max load" in note, note
    assert f"({before:,} -> {after:,} B; {2 * weight:,} B summed over their uses)" in note, note
