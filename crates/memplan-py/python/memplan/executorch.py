"""memplan as an ExecuTorch memory-planning algorithm.

ExecuTorch's ``MemoryPlanningPass`` gives every tensor of a program an arena (``mem_id``)
and a byte offset in it. Its default algorithm is a shared-object greedy by size. This
module puts memplan's planners in its place::

    from executorch.exir import ExecutorchBackendConfig, to_edge
    import memplan.executorch

    config = ExecutorchBackendConfig(
        memory_planning_pass=memplan.executorch.memory_planning_pass()
    )
    program = to_edge(torch.export.export(model, inputs)).to_executorch(config)

or, beside ExecuTorch's own greedy (the suite keeps the smaller result)::

    from executorch.exir.memory_planning import MemoryPlanningAlgorithmSuite, greedy
    suite = MemoryPlanningAlgorithmSuite(algo_list=[greedy, memplan.executorch.Algorithm()])

The model, and how each of ExecuTorch's rules maps onto memplan's:

- **Lifetimes.** ``spec.lifetime`` is ``[first, last]``, inclusive, over node indices, so a
  buffer lives over memplan's half-open ``[first, last + 1)``. Both must be non-negative
  integers with ``first <= last``.
- **Sizes.** ``spec.realign(alignment)`` (as the greedy does) sets the spec's alignment and
  returns ``allocated_memory``, the size rounded up to it; offsets are multiples of the
  spec's alignment.
- **Arenas.** ``mem_id`` (``None`` means 1) names the arena; each arena is planned on its
  own. Index 0 of ``bufsizes`` is reserved for constants, so ``mem_id`` must be >= 1.
- **Reserved space.** ``graph_module.input_mem_buffer_sizes[mem_id]`` bytes at the bottom
  of an arena belong to control-flow submodules; the plan starts above them (rounded up
  to the buffers' alignment, which the greedy does not do), and
  ``extra_padding`` is added to the arena's size, as the greedy does::

      address
        ^   arena size = reserved + height + extra_padding
        |   .................................  extra_padding
        |   +---------+      +------+
        |   |  act 2  |      | act 5|         memplan's plan of the arena,
        |   +---------+--+---+------+         height = max(offset + size)
        |   |   act 1    |  act 3   |
        |   +------------+----------+  <- reserved (input_mem_buffer_sizes[mem_id])
        |   ///// submodule memory /////
        +----------------------------------> node index

- **Aliases.** A spec with a ``storage_base`` is not planned: it lives at its base's offset
  plus ``storage_base_offset`` (summed along a chain of bases), inside the base's bytes,
  and its root's lifetime is stretched to cover it.
- **Empty tensors.** Zero-size specs (batch-norm outputs of shape ``(0,)``) never reach the
  planner: they sit at the bottom of their arena and overlap nothing.
- **Object ids.** ``mem_obj_id`` is the same for specs whose bytes overlap (one id per
  connected run of addresses in an arena) and distinct otherwise, which is what
  ExecuTorch's ``Verifier`` requires.

- **Small fast memory.** With ``Algorithm(fast_capacity=C)``, arena 1 (the default
  ``mem_id``) must fit in ``C`` bytes, its reserved space and ``extra_padding``
  included. One call of ``memplan.plan`` with two memories (the fast one of the capacity
  left above the reserved space and the padding, an unbounded slow one; every tensor
  accessed once) chooses the tensors to *spill* at the least total size, and the
  spilled ones get an arena of their own, the slow one: ``mem_id`` one
  above the largest the specs use (2 when the program has only arena 1; 3 with
  ``share_mutable_buffers=True``, whose buffers take 2). A
  control-flow submodule (``torch.cond``) gets the same slow arena as its parent, and
  its bytes there are reserved at the bottom of the parent's, as in arena 1, so no arena
  is left empty. Every capacity that holds arena 1's reserved space and
  ``extra_padding`` works, 0 included (everything spills). Aliases follow their root;
  the report of the slow arena has ``slow=True``.

- **Shared mutable buffers.** With ``share_mutable_buffers=True`` (a pass option), the
  mutable buffers (KV caches) are left out of each method's plan and placed after every
  method is planned: in arena 2, each buffer at one offset, the same in every method,
  because ExecuTorch's C++ ``Module(share_memory_arenas=true)`` shares only ``mem_id`` 1
  and 2 between methods (a bank at 2 is refused). So the other arenas may be laid out
  in any way (ExecuTorch's own pass needs them all in arena 1), and a method reads what
  another wrote. The reports count that arena too (``ArenaReport.shared``).
- **In place** (``in_place=True``, off by default). A tensor may take the storage of an
  input that dies at its op, or live inside a KV cache it updates
  (``memplan/_executorch_inplace.py`` finds these *shares*: pointwise ops, batch norm,
  ``index_put``/``index_copy`` of a mutable buffer and the write-back outputs). Each
  arena is one call of ``memplan.plan`` with the shares declared (the shares it may
  take: an in-place one only where memplan's in-place rule,
  ``_memplan._in_place_breach``, holds); memplan's driver also plans without them and
  keeps the lower plan. The shares the plan took are linked as ``storage_base`` once ExecuTorch has applied
  it (memplan's pass does this), so its ``Verifier`` accepts them. For an in-place
  share the output starts at its op, not at its ``alloc`` node (nothing writes it
  before). Off by default: a user's own kernels may not read each element before they
  write it. The reports count the shares and the bytes they save on the arena where the
  bytes fall (``ArenaReport.shares``/``saved``: the arena's size without in place less
  its size with it), and every ``ArenaReport.peak`` names the tensors live at the
  arena's peak.
- **Constants folded** (``fold_constants``, on by default with ``in_place=True``). The
  pass folds each method's constants with ExecuTorch's ``constant_prop_pass`` before
  planning it, so that a weight transposed at run time does not hold the peak
  (``memplan/_executorch_fold.py``); ``GraphReport.folded_bytes`` gives the constant
  bytes it added, and with folding off ``GraphReport.hint`` says when such a copy holds
  a peak.
- **Several banks.** ``banked_memory_planning_pass(target)`` takes ExecuTorch's
  ``TargetMemoryMap`` and plans across its banks, keeping the most traffic in the
  fastest (``memplan/_executorch_banks.py`` has its model).

Every plan is checked before ExecuTorch sees it: memplan's independent checker verifies
the arena's tensors (with the reserved space as a fixed buffer, and the shares the plan
took, ``in_place=True``, as the only overlaps allowed), and each alias is checked
to lie inside its base in bytes and in time. A failure raises ``memplan.CheckError``; bad
specs raise ``memplan.InputError`` naming the spec. With ``verify=True``,
``memory_planning_pass`` also runs ExecuTorch's own ``Verifier.verify_storage_reuse``,
which ExecuTorch runs only for its algorithm named "greedy".

**The budget.** By default each arena is planned within memplan's default work limit
(``memplan.DEFAULT_WORK_LIMIT`` work units) and no clock, so the same model gives the same
``.pte``, byte for byte, whatever the machine's load and ``threads``. ``work_limit`` sets
another work limit per arena (an int, or ``math.inf``). ``time_limit`` is a wall-clock
limit instead, in seconds for one call of the algorithm (one graph: a method, or a
control-flow submodule), shared by its arenas; a run that the clock cuts short may keep a
different (never invalid) plan than a faster run. ``time_limit=math.inf`` alone sets no
limit: the default planner, ``auto``, then runs until its plan is proven optimal, which
can take long on a hard graph.

**Arguments** are checked when the pass (or the ``Algorithm``) is built, and a bad one
raises ``memplan.InputError`` (a ``ValueError``) naming it; so do the two common slips,
``memory_planning_pass`` given uncalled, and an ``Algorithm()`` given where ExecuTorch
expects a pass.
"""

from __future__ import annotations

# The façade: the modules below import nothing from it (lowest first: _executorch_fold,
# _executorch_inplace, _executorch_specs, _executorch_algorithm, _executorch_pass, _executorch_banks).
from memplan._executorch_algorithm import Algorithm, ArenaReport, GraphReport, PeakTensor
from memplan._executorch_banks import (
    BankedAlgorithm,
    BankInfeasibleError,
    BankNoPlanFoundError,
    BankPlacementError,
    banked_memory_planning_pass,
)
from memplan._executorch_pass import memory_planning_pass

__all__ = [
    "Algorithm",
    "ArenaReport",
    "PeakTensor",
    "BankInfeasibleError",
    "BankNoPlanFoundError",
    "BankPlacementError",
    "BankedAlgorithm",
    "GraphReport",
    "banked_memory_planning_pass",
    "memory_planning_pass",
]
