"""Issue 50, items 3, 4 and 6 of ExecuTorch's in-place planning: every arena's saving
counted where the bytes fall (against the two programs, in place off and on, in every
combination the pass supports), constants folded by the pass (on by default with
``in_place=True``), and the frictions a user met (a bare ``Algorithm`` in ExecuTorch's
pass, ``index_copy``, XNNPACK).

Needs the `executorch` extra (executorch==1.5.1, torch==2.14.1, torchvision==0.29.2);
skipped without it. Models run at small inputs; the three CNNs of the folding figures
are planned at full size only.
"""

import copy

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("executorch")
pytest.importorskip("torchvision")

from executorch.exir import ExecutorchBackendConfig, to_edge  # noqa: E402
from executorch.exir.banked_memory_planning import Bank, TargetMemoryMap  # noqa: E402

import memplan  # noqa: E402
import memplan.executorch  # noqa: E402
from memplan import _executorch_inplace as inplace  # noqa: E402

# The in-place tests' helpers (same folder, on the path under pytest).
from test_executorch_inplace import (  # noqa: E402
    KB, _decoder, _fold, _lower, _model, _run, _shared_ops, _sizes, _small,
)

# --- Issue 50: every arena's saving, counted where the bytes fall --------------------


def _sram_at_3():
    return TargetMemoryMap([Bank("tcm", 64 * KB, 1), Bank("sram", 8 << 20, 3)])


#: Every combination the pass supports: (model, options of the pass). The decoder's
#: two methods share their caches where the option says so.
SAVINGS = {
    "one arena": ("squeezenet1_1", dict()),
    "fast_capacity": ("squeezenet1_1", dict(fast_capacity=256 * KB)),
    "banked": ("squeezenet1_1", dict(target=_sram_at_3)),
    "decoder": ("decoder", dict()),
    "decoder, share_mutable_buffers": ("decoder", dict(share_mutable_buffers=True)),
    "decoder, share_mutable_buffers, fast_capacity": (
        "decoder", dict(share_mutable_buffers=True, fast_capacity=32 * KB)),
    "decoder, share_mutable_buffers, banked": (
        "decoder", dict(share_mutable_buffers=True, target=_sram_at_3)),
}


def _programs(name, options):
    """The program and reports of ``name`` lowered with in_place off and on."""
    if name == "decoder":
        _, methods = _decoder()
        edge = to_edge(copy.deepcopy(methods))
    else:
        edge = _small(name, 64)[0]
    out = {}
    for in_place in (False, True):
        # Folded on both sides, so that the difference is the shares' alone.
        opts = dict(options, fold_constants=True)
        target = opts.pop("target", None)
        if target is None:
            pass_ = memplan.executorch.memory_planning_pass(in_place=in_place, **opts)
        else:
            pass_ = memplan.executorch.banked_memory_planning_pass(
                target(), in_place=in_place, **opts)
        program = copy.deepcopy(edge).to_executorch(ExecutorchBackendConfig(memory_planning_pass=pass_))
        plans = {p.name: list(p.non_const_buffer_sizes) for p in program.executorch_program.execution_plan}
        out[in_place] = (plans, {r.method: r for r in pass_.reports if not r.submodule})
    return out


@pytest.mark.parametrize("case", list(SAVINGS))
def test_issue_50_each_arenas_saving_is_the_difference_of_the_two_programs(case):
    """In every combination the pass supports, each arena's ``saved`` is its size in
    the program without in_place less its size with it (a share that lets more into
    a full fast level saves its bytes in the slow one), and a cache update placed
    inside a shared cache counts on the method's arena it leaves, not on the shared
    arena (whose size does not change)."""
    name, options = SAVINGS[case]
    programs = _programs(name, options)
    (before, _), (after, reports) = programs[False], programs[True]
    assert set(reports) == set(after)
    for method, report in reports.items():
        old, new = before[method], after[method]
        assert list(report.sizes) == new and len(old) == len(new), (method, old, new)
        assert report.shares > 0, report
        for arena in report.arenas:
            assert arena.saved == max(0, old[arena.mem_id] - new[arena.mem_id]), (
                method, arena.mem_id, arena.saved, old, new)
            if arena.shared:
                assert arena.shares == arena.saved == 0 and old[arena.mem_id] == new[arena.mem_id]
        assert sum(new) < sum(old), (method, old, new)
        if all(n <= o for o, n in zip(old, new)):
            assert sum(new) + report.saved == sum(old), (method, old, new)


# --- Issue 50: constants folded by the pass -----------------------------------------

#: The issue's figures: what folding by hand reached with in_place=True at 224x224.
FOLDED = {"mobilenet_v3_small": 1_605_632, "shufflenet_v2_x1_0": 2_107_392, "mnasnet1_0": 3_211_264}


@pytest.mark.parametrize("name", list(FOLDED))
def test_issue_50_in_place_folds_constants_without_a_manual_step(name):
    """With in_place=True and no folding by hand, the pass folds the constants itself
    (fold_constants defaults to in_place): the three CNNs whose peak was a weight
    transposed at run time reach the hand-folded figures at full size. Small inputs
    run: the program is bitwise equal to the one folded by hand (in place off), and the
    report gives the bytes folding added."""
    x = torch.randn(1, 3, 224, 224)
    with torch.no_grad():
        edge = to_edge(torch.export.export(_model(name), (x,)))
    program, pass_ = _lower(edge, in_place=True)
    (report,) = pass_.reports
    assert sum(_sizes(program)) == report.total <= FOLDED[name], (name, _sizes(program))
    assert report.folded_bytes is not None and report.hint == ""
    assert not report.constant_copies
    # Folding off: the weight's run-time transpose holds the peak, and the report says so.
    unfolded, off = _lower(edge, in_place=True, fold_constants=False)
    (r,) = off.reports
    assert r.folded_bytes is None and r.constant_copies[0].op == "aten::permute_copy"
    assert "fold_constants=True" in r.hint
    # The unfolded arena holds the copy; the folded one is smaller than the copy alone.
    assert sum(_sizes(unfolded)) >= r.constant_copies[0].bytes > report.total
    edge, x, _ = _small(name, 64)
    by_hand, _ = _lower(_fold(edge))
    folded, _ = _lower(edge, in_place=True, verify=True)
    assert torch.equal(_run(folded, [x])[0], _run(by_hand, [x])[0])


def test_issue_50_folding_is_an_option_checked_when_built():
    with pytest.raises(memplan.InputError, match="fold_constants must be True, False or None"):
        memplan.executorch.memory_planning_pass(fold_constants="yes")
    with pytest.raises(memplan.InputError, match="fold_constants must be True, False or None"):
        memplan.executorch.banked_memory_planning_pass(_sram_at_3(), fold_constants=1)
    assert memplan.executorch.memory_planning_pass(in_place=True).fold_constants
    assert not memplan.executorch.memory_planning_pass().fold_constants
    assert memplan.executorch.memory_planning_pass(fold_constants=True).fold_constants


def test_issue_50_folding_without_in_place_and_in_the_banked_pass():
    """fold_constants=True alone folds (the classifier's transpose leaves the plan), and
    so does the banked pass with in_place; each program runs as the hand-folded one."""
    edge, x, _ = _small("mobilenet_v3_small", 64)
    expected = _run(_lower(_fold(edge))[0], [x])[0]
    for lower in (
        lambda e: _lower(e, fold_constants=True),
        lambda e: _banked(e, in_place=True),
    ):
        program, pass_ = lower(edge)
        (report,) = pass_.reports
        assert report.folded_bytes is not None
        assert all(not t.constant for a in report.arenas for t in a.peak)
        assert torch.equal(_run(program, [x])[0], expected)


def _banked(edge, **options):
    pass_ = memplan.executorch.banked_memory_planning_pass(_sram_at_3(), **options)
    program = copy.deepcopy(edge).to_executorch(ExecutorchBackendConfig(memory_planning_pass=pass_))
    return program, pass_


# --- Issue 50: frictions ------------------------------------------------------------


def test_issue_50_a_bare_algorithm_in_executorchs_pass_is_refused_saying_what_to_pass():
    """``MemoryPlanningPass(memory_planning_algo=Algorithm(...))`` made ExecuTorch fail with
    "'MemoryAlgoResult' object is not subscriptable"; the message now says what to pass,
    and the suite it names works."""
    from executorch.exir.memory_planning import MemoryPlanningAlgorithmSuite
    from executorch.exir.passes import MemoryPlanningPass

    edge, x, _ = _small("squeezenet1_1", 64)
    bare = MemoryPlanningPass(memory_planning_algo=memplan.executorch.Algorithm(in_place=True))
    with pytest.raises(memplan.InputError, match="takes a suite, not memplan's Algorithm"):
        copy.deepcopy(edge).to_executorch(ExecutorchBackendConfig(memory_planning_pass=bare))
    suite = MemoryPlanningPass(memory_planning_algo=MemoryPlanningAlgorithmSuite(
        algo_list=[memplan.executorch.Algorithm()]))
    program = copy.deepcopy(edge).to_executorch(ExecutorchBackendConfig(memory_planning_pass=suite))
    assert torch.equal(_run(program, [x])[0], _run(_lower(edge)[0], [x])[0])


class _IndexCopyCache(torch.nn.Module):
    """A cache updated with ``index_copy_`` (as some decoders write it)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(16, 64))

    def forward(self, x, pos):
        self.cache.index_copy_(0, pos, torch.relu(x))
        return self.cache.sum(dim=0, keepdim=True) + 0.0


def test_issue_50_index_copy_of_a_cache_lowers_to_index_put_shares_and_runs():
    """The docs said index_copy was "not run: no kernel"; ``to_edge`` turns a buffer's
    ``index_copy_`` into ``index_put``, which shares (the update lives inside the cache)
    and runs bitwise equal to the unshared program."""
    torch.manual_seed(0)
    x, pos = torch.randn(2, 64), torch.tensor([3, 7])
    edge = to_edge(torch.export.export(_IndexCopyCache(), (x, pos)))
    ops = {inplace.op_name(n) for n in edge.exported_program().graph.nodes if n.op == "call_function"}
    assert "aten::index_put" in ops and "aten::index_copy" not in ops, ops
    shared, _ = _lower(edge, in_place=True, verify=True)
    unshared, _ = _lower(edge)
    assert _shared_ops(shared).get("aten::index_put") == 1
    assert torch.equal(_run(shared, [x, pos])[0], _run(unshared, [x, pos])[0])


def test_issue_50_in_place_with_xnnpack_shares_only_outside_the_delegate():
    """With XNNPACK's partitioner, the delegate keeps its own memory: the shares are
    between ops outside it (a softmax, which this XNNPACK does not take here, over its
    input), and the program runs bitwise equal to the unshared one."""
    xnnpack = pytest.importorskip("executorch.backends.xnnpack.partition.xnnpack_partitioner")
    from executorch.exir import to_edge_transform_and_lower

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.Flatten(),
        torch.nn.Linear(8 * 30 * 30, 64), torch.nn.GELU(), torch.nn.Softmax(dim=-1),
    ).eval()
    x = torch.randn(1, 3, 32, 32)
    edge = to_edge_transform_and_lower(
        torch.export.export(model, (x,)), partitioner=[xnnpack.XnnpackPartitioner()])
    shared, _ = _lower(edge, in_place=True, verify=True)
    unshared, _ = _lower(edge)
    ops = _shared_ops(shared)
    assert "executorch_call_delegate" not in ops, ops
    assert torch.equal(_run(shared, [x])[0], _run(unshared, [x])[0])
