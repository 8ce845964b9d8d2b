"""A small harness around TensorFlow Lite Micro's Python interpreter (the `tflite-micro`
wheel), for the tests of `memplan tflite` and for scripts/tflite/table.py.

    run(model_bytes, inputs, arena_size)  -> list of output arrays
    run_stream(model_bytes, input_seq, arena_size) -> the outputs of each invoke, in turn,
                                          on one interpreter (stateful models)
    head_bytes(model_bytes)               -> TFLM's non-persistent ("head") arena bytes
    tail_bytes(model_bytes)               -> TFLM's persistent ("tail") arena bytes
    smallest_arena(model_bytes)           -> the smallest arena_size that works, exact to 1 byte
    random_inputs(model_bytes, seed)      -> inputs matching the model's input dtypes/shapes
    write_offline_plan(model_bytes, offsets) -> the model with an OfflineMemoryAllocation
                                               (the tests' negative controls only)
    offline_plan(model_bytes)             -> the model's OfflineMemoryAllocation, or None
    tensor_table(model_bytes)             -> per tensor: subgraph, index, name, bytes, lifetime
    operators(model_bytes)                -> per operator: subgraph, index, name, inputs, outputs

The interpreter is TFLM's `runtime.Interpreter` with its default configuration, which
allocates through TFLM's RecordingMicroAllocator and plans with the GreedyMemoryPlanner
(or takes a model's offline plan and plans only the rest, the kernels' scratch buffers,
around it). All memory is allocated when the interpreter is constructed
(AllocateTensors); `invoke` allocates nothing. A too-small arena makes the constructor
raise RuntimeError("TFLM failed to allocate tensors"), or sometimes crashes the process
(see _Prober, which smallest_arena uses for that reason); TFLM prints the reason
("Failed to resize buffer. Requested: ..., available ..., missing: ...") with
vfprintf(stderr, ...) (TFLM's DebugLog), which this module silences or captures (fd 2).

Import with the directory of this file on sys.path (the tests do), or run
`python scripts/tflite/tflm.py MODEL.tflite` for a one-line summary of a model.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np

from tflite_micro.python.tflite_micro import runtime
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema_fb

OFFLINE_METADATA = "OfflineMemoryAllocation"
ONLINE = -1  # kOnlinePlannedBuffer: "plan this tensor online"

# TFLM's TensorType -> numpy dtype, for the types these models use.
_NP_TYPES = {
    schema_fb.TensorType.FLOAT32: np.float32,
    schema_fb.TensorType.FLOAT16: np.float16,
    schema_fb.TensorType.INT32: np.int32,
    schema_fb.TensorType.UINT8: np.uint8,
    schema_fb.TensorType.INT64: np.int64,
    schema_fb.TensorType.BOOL: np.bool_,
    schema_fb.TensorType.INT16: np.int16,
    schema_fb.TensorType.INT8: np.int8,
    schema_fb.TensorType.FLOAT64: np.float64,
    schema_fb.TensorType.UINT32: np.uint32,
    schema_fb.TensorType.UINT16: np.uint16,
}

_libc = ctypes.CDLL(None)


@contextlib.contextmanager
def _fd2_to(path_or_devnull):
    """Points the process's fd 2 (TFLM's DebugLog is vfprintf(stderr, ...)) at a file for
    the duration, then flushes the C library's buffers and restores fd 2."""
    sys.stderr.flush()
    _libc.fflush(None)
    saved = os.dup(2)
    target = os.open(path_or_devnull, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.dup2(target, 2)
        yield
    finally:
        _libc.fflush(None)
        os.dup2(saved, 2)
        os.close(saved)
        os.close(target)


def _quiet():
    return _fd2_to(os.devnull)


def _interpreter(model_bytes, arena_size):
    """Constructs TFLM's interpreter (allocating the whole arena plan), silencing TFLM's
    printf. Raises RuntimeError if the arena is too small or the model is rejected."""
    with _quiet():
        return runtime.Interpreter.from_bytes(bytes(model_bytes), arena_size=int(arena_size))


def _model(model_bytes):
    return schema_fb.ModelT.InitFromObj(schema_fb.Model.GetRootAsModel(bytearray(model_bytes), 0))


def _io(model_bytes):
    """(inputs, outputs) of subgraph 0, each a list of (shape, numpy dtype)."""
    m = _model(model_bytes)
    sg = m.subgraphs[0]

    def spec(i):
        t = sg.tensors[i]
        shape = tuple(int(d) for d in (t.shape if t.shape is not None else []))
        return shape, _NP_TYPES[t.type]

    return [spec(i) for i in sg.inputs], [spec(i) for i in sg.outputs]


def random_inputs(model_bytes, seed=0):
    """One random array per input of subgraph 0, with the input's shape and dtype:
    float inputs standard normal, integer inputs uniform over the type's range (int8:
    -128..127), bool inputs fair coins. Deterministic in `seed`."""
    rng = np.random.default_rng(seed)
    out = []
    for shape, dt in _io(model_bytes)[0]:
        if np.issubdtype(dt, np.floating):
            a = rng.standard_normal(shape).astype(dt)
        elif dt is np.bool_:
            a = rng.integers(0, 2, size=shape).astype(np.bool_)
        else:
            info = np.iinfo(dt)
            lo, hi = max(info.min, -(2**15)), min(info.max, 2**15 - 1)
            a = rng.integers(lo, hi, size=shape, endpoint=True).astype(dt)
        out.append(np.ascontiguousarray(a))
    return out


def run(model_bytes, inputs, arena_size, *, with_head=False):
    """Runs one inference on TFLM with an arena of `arena_size` bytes and returns the
    outputs (copies, in the order of subgraph 0's outputs). With with_head=True, returns
    (outputs, head bytes, tail bytes) as TFLM's RecordingMicroAllocator reports them."""
    it = _interpreter(model_bytes, arena_size)
    n_out = len(_io(model_bytes)[1])
    for i, a in enumerate(inputs):
        it.set_input(np.ascontiguousarray(a), i)
    with _quiet():
        it.invoke()
    outs = [np.array(it.get_output(i), copy=True) for i in range(n_out)]
    if not with_head:
        return outs
    head, tail = _allocations(it)
    return outs, head, tail


def run_stream(model_bytes, input_seq, arena_size):
    """Invokes one interpreter once per element of `input_seq` (each a list of input
    arrays), in turn, and returns the outputs of every invoke (copies): a stateful model
    (variables, resource variables) carries its state from one invoke to the next."""
    it = _interpreter(model_bytes, arena_size)
    n_out = len(_io(model_bytes)[1])
    out = []
    for inputs in input_seq:
        for i, a in enumerate(inputs):
            it.set_input(np.ascontiguousarray(a), i)
        with _quiet():
            it.invoke()
        out.append([np.array(it.get_output(i), copy=True) for i in range(n_out)])
    return out


def _allocations(it):
    """(head, tail) bytes from the interpreter's print_allocations()."""
    fd, path = tempfile.mkstemp(prefix="tflm-alloc-")
    os.close(fd)
    try:
        with _fd2_to(path):
            it.print_allocations()
        with open(path) as f:
            text = f.read()
    finally:
        os.unlink(path)
    head = re.search(r"Arena allocation head (\d+) bytes", text)
    tail = re.search(r"Arena allocation tail (\d+) bytes", text)
    if not head or not tail:
        raise RuntimeError(f"could not parse TFLM's print_allocations output:\n{text}")
    return int(head.group(1)), int(tail.group(1))


def generous_arena(model_bytes):
    """An arena size that fits every model here: 64 MiB."""
    return 64 << 20


def allocations(model_bytes, arena_size=None):
    """(head, tail) bytes with an ample arena, as print_allocations() reports them after
    construction (invoking changes neither)."""
    it = _interpreter(model_bytes, arena_size or generous_arena(model_bytes))
    return _allocations(it)


def head_bytes(model_bytes, arena_size=None):
    """TFLM's non-persistent arena use ("Arena allocation head N bytes"): the memory
    plan's peak, i.e. max(offset + size) over the planned tensors (sizes rounded up to
    16) and the kernels' scratch buffers, planned online around them."""
    return allocations(model_bytes, arena_size)[0]


def tail_bytes(model_bytes, arena_size=None):
    """TFLM's persistent arena use ("Arena allocation tail N bytes")."""
    return allocations(model_bytes, arena_size)[1]


def _outputs_digest(outs):
    h = hashlib.sha256()
    for a in outs:
        h.update(str(a.dtype).encode() + str(a.shape).encode() + a.tobytes())
    return h.hexdigest()


class _Prober:
    """Tries arena sizes in a child process (`python tflm.py --probe MODEL INPUTS`): with
    a too-small arena, TFLM's constructor usually raises, but some kernels' Prepare do not
    check a failed persistent allocation and crash the process (e.g. FULLY_CONNECTED int8:
    SIGSEGV in CalculateOpDataFullyConnected). A child that dies is restarted, and the
    size it died on counts as not working."""

    def __init__(self, model_bytes, inputs):
        self.dir = tempfile.mkdtemp(prefix="tflm-probe-")
        self.model = os.path.join(self.dir, "model.tflite")
        self.inputs = os.path.join(self.dir, "inputs.npz")
        with open(self.model, "wb") as f:
            f.write(bytes(model_bytes))
        np.savez(self.inputs, *inputs)
        self.proc = None
        self.crashes = 0
        self.trials = 0

    def _start(self):
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--probe", self.model, self.inputs],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )

    def __call__(self, arena_size):
        """The outputs' digest if the interpreter constructs and invokes with this arena,
        else None."""
        self.trials += 1
        if self.proc is None:
            self._start()
        try:
            self.proc.stdin.write(f"{int(arena_size)}\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:  # the child died on this size
            self.proc.wait()
            self.proc = None
            self.crashes += 1
            return None
        word = line.split()
        return word[1] if word[0] == "ok" else None

    def close(self):
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait()
        for name in (self.model, self.inputs):
            os.unlink(name)
        os.rmdir(self.dir)


def _probe_main(model_path, inputs_path):
    with open(model_path, "rb") as f:
        model_bytes = f.read()
    with np.load(inputs_path) as z:
        inputs = [z[f"arr_{i}"] for i in range(len(z.files))]
    for line in sys.stdin:
        try:
            outs = run(model_bytes, inputs, int(line))
            print("ok", _outputs_digest(outs), flush=True)
        except (RuntimeError, ValueError):
            print("fail", flush=True)


def smallest_arena(model_bytes, inputs=None, expected=None, stats=None):
    """The smallest arena_size (bytes, exact to 1 byte) with which TFLM's interpreter
    constructs and invokes this model (on `inputs`, default random_inputs(seed=0)).

    Starts from head + tail as reported with an ample arena, steps down in doubling steps
    to a size that fails, then bisects to 1 byte; every trial constructs and invokes, in a
    child process (see _Prober). Every working trial must reproduce the outputs of an
    ample arena (or `expected`, if given) bit for bit. Assumes that working is monotone in
    the arena size (every size above the result works), as TFLM's allocator makes it: the
    plan's offsets do not depend on the arena size. `stats`, a dict, receives the number
    of trials and of child crashes."""
    if inputs is None:
        inputs = random_inputs(model_bytes, 0)
    if expected is None:
        expected = run(model_bytes, inputs, generous_arena(model_bytes))
    want = _outputs_digest(expected)
    head, tail = allocations(model_bytes)
    probe = _Prober(model_bytes, inputs)
    try:

        def works(n):
            d = probe(n)
            if d is not None and d != want:
                raise AssertionError(f"outputs with arena_size={n} differ from an ample arena's")
            return d is not None

        hi = head + tail + 64  # + the arena's alignment slack
        while not works(hi):
            hi *= 2
        step = 64
        lo = hi - step
        while lo > 0 and works(lo):
            hi = lo
            step *= 2
            lo = max(0, hi - step)
        while hi - lo > 1:  # lo fails (or is 0), hi works
            mid = (lo + hi) // 2
            if works(mid):
                hi = mid
            else:
                lo = mid
    finally:
        probe.close()
    if stats is not None:
        stats.update(trials=probe.trials, crashes=probe.crashes)
    return hi


# ---------------------------------------------------------------------------------------
# The model's flatbuffer: tensors, lifetimes, offline plans.


def tensor_table(model_bytes):
    """One dict per tensor of every subgraph, in the order of the offline plan (subgraph
    0's tensors, then subgraph 1's, ...): subgraph, index, name, type (TensorType code),
    bytes (unrounded),
    planned (whether TFLM's planner places it: its data still null after the kernels'
    Prepare -- no constant buffer data, not an output of VAR_HANDLE, whose Prepare
    points it at the resource id in persistent memory --, not a variable, non-zero
    size; micro_allocation_info.cc), and TFLM's lifetime [first, last] (inclusive allocation scopes, as
    AllocationInfoBuilder::MarkAllocationLifetimes numbers them, control-flow subgraphs
    included) or None where TFLM marks none."""
    m = _model(model_bytes)
    rows = []
    base = []
    for si, sg in enumerate(m.subgraphs):
        base.append(len(rows))
        handles = set()
        for op in sg.operators if sg.operators is not None else []:
            oc = m.operatorCodes[op.opcodeIndex]
            if max(oc.builtinCode, oc.deprecatedBuiltinCode) == schema_fb.BuiltinOperator.VAR_HANDLE:
                handles.update(int(i) for i in op.outputs)
        for ti, t in enumerate(sg.tensors):
            shape = [int(d) for d in (t.shape if t.shape is not None else [])]
            n = int(np.prod(shape)) if shape else 1
            dt = _NP_TYPES.get(t.type)
            if t.type == schema_fb.TensorType.RESOURCE:
                nbytes = 4 * n  # TfLiteTypeSizeOf: sizeof(int32_t), the resource id
            else:
                nbytes = n * (np.dtype(dt).itemsize if dt is not None else 0)
            buf = m.buffers[t.buffer] if t.buffer < len(m.buffers) else None
            const = buf is not None and (
                (buf.data is not None and len(buf.data) > 0) or (buf.size or 0) > 0
            )
            rows.append(
                dict(
                    subgraph=si,
                    index=ti,
                    name=(t.name.decode() if isinstance(t.name, bytes) else t.name),
                    type=int(t.type),
                    bytes=nbytes,
                    handle=ti in handles,
                    planned=(not const)
                    and ti not in handles
                    and (not t.isVariable)
                    and nbytes != 0,
                    first=None,
                    last=None,
                )
            )
    scope = [0]

    def created(r):
        if r["first"] is None:
            r["first"] = scope[0]

    def used(r):
        r["last"] = scope[0]

    code_of = {}
    for k, v in schema_fb.BuiltinOperator.__dict__.items():
        if not k.startswith("_"):
            code_of[v] = k

    def mark(si):
        sg = m.subgraphs[si]
        rowsg = rows[base[si] : base[si] + len(sg.tensors)]
        for i in sg.inputs if sg.inputs is not None else []:
            created(rowsg[i])
            used(rowsg[i])
        for op in sg.operators if sg.operators is not None else []:
            scope[0] += 1
            for i in op.outputs if op.outputs is not None else []:
                created(rowsg[i])
            oc = m.operatorCodes[op.opcodeIndex]
            name = code_of.get(max(oc.builtinCode, oc.deprecatedBuiltinCode))
            subs = []
            if name == "IF":
                subs = [op.builtinOptions.thenSubgraphIndex, op.builtinOptions.elseSubgraphIndex]
            elif name == "WHILE":
                subs = [op.builtinOptions.condSubgraphIndex, op.builtinOptions.bodySubgraphIndex]
            elif name == "CALL_ONCE":
                subs = [op.builtinOptions.initSubgraphIndex]
            for s in subs:
                scope[0] += 1
                mark(s)
            for i in op.inputs if op.inputs is not None else []:
                if i >= 0:
                    used(rowsg[i])
            for i in op.outputs if op.outputs is not None else []:
                used(rowsg[i])
        for i in sg.outputs if sg.outputs is not None else []:
            created(rowsg[i])
            used(rowsg[i])

    mark(0)
    return rows


def operators(model_bytes):
    """One dict per operator of every subgraph, in TFLM's order within each subgraph:
    subgraph, index (within the subgraph), name (the builtin's, e.g. "CONV_2D"), inputs
    and outputs (tensor indices within the subgraph; -1 is an omitted input)."""
    m = _model(model_bytes)
    names = {v: k for k, v in schema_fb.BuiltinOperator.__dict__.items() if not k.startswith("_")}
    out = []
    for si, sg in enumerate(m.subgraphs):
        for k, op in enumerate(sg.operators if sg.operators is not None else []):
            oc = m.operatorCodes[op.opcodeIndex]
            out.append(
                dict(
                    subgraph=si,
                    index=k,
                    name=names.get(max(oc.builtinCode, oc.deprecatedBuiltinCode), "?"),
                    inputs=[int(i) for i in (op.inputs if op.inputs is not None else [])],
                    outputs=[int(i) for i in (op.outputs if op.outputs is not None else [])],
                )
            )
    return out


def subgraph_io(model_bytes):
    """Per subgraph, the set of its input and output tensor indices."""
    m = _model(model_bytes)
    return [
        set(int(i) for i in (sg.inputs if sg.inputs is not None else []))
        | set(int(i) for i in (sg.outputs if sg.outputs is not None else []))
        for sg in m.subgraphs
    ]


def max_load(model_bytes, align=16):
    """The largest total size (rounded up to `align`) of planned tensors live at one
    allocation scope, with TFLM's inclusive lifetimes; kernels' scratch buffers are not
    counted (they are not in the model)."""
    rows = [r for r in tensor_table(model_bytes) if r["planned"] and r["first"] is not None]
    if not rows:
        return 0
    T = max(r["last"] for r in rows) + 2
    load = np.zeros(T, dtype=np.int64)
    for r in rows:
        load[r["first"]] += -(-r["bytes"] // align) * align
        load[r["last"] + 1] -= -(-r["bytes"] // align) * align
    return int(np.cumsum(load).max())


def offline_plan(model_bytes):
    """The model's OfflineMemoryAllocation metadata as a list of int32 ([1, subgraphs,
    n, offset_0, ..., offset_{n-1}]), or None."""
    m = _model(model_bytes)
    for md in m.metadata or []:
        name = md.name.decode() if isinstance(md.name, bytes) else md.name
        if name == OFFLINE_METADATA:
            data = bytes(bytearray(m.buffers[md.buffer].data))
            return list(struct.unpack(f"<{len(data) // 4}i", data))
    return None


def write_offline_plan(model_bytes, offsets):
    """The model with TFLM's OfflineMemoryAllocation metadata set to `offsets` (one int
    per tensor over all subgraphs, in subgraph order; -1 = plan online), replacing any
    existing one: the int32 array [1, number of subgraphs, n, offset_0 .. offset_{n-1}]
    in a new buffer. Unpacks and repacks the whole model with the flatbuffers object API
    of tflite_micro's schema_py_generated (the code tensorflow.lite.tools.flatbuffer_utils
    uses, without importing TensorFlow). For the tests' negative controls only: memplan
    writes its own plans."""
    import flatbuffers

    model = _model(model_bytes)
    n = sum(len(sg.tensors) for sg in model.subgraphs)
    if len(offsets) != n:
        raise ValueError(f"{len(offsets)} offsets for {n} tensors")
    payload = struct.pack(f"<{3 + n}i", 1, len(model.subgraphs), n, *[int(o) for o in offsets])
    buf = schema_fb.BufferT()
    buf.data = np.frombuffer(payload, dtype=np.uint8).copy()
    metadata = [
        md
        for md in (model.metadata or [])
        if (md.name.decode() if isinstance(md.name, bytes) else md.name) != OFFLINE_METADATA
    ]
    md = schema_fb.MetadataT()
    md.name = OFFLINE_METADATA
    md.buffer = len(model.buffers)
    model.buffers.append(buf)
    metadata.append(md)
    model.metadata = metadata
    builder = flatbuffers.Builder(len(model_bytes) + 4 * n + 1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def main(argv):
    for path in argv[1:]:
        with open(path, "rb") as f:
            b = f.read()
        head, tail = allocations(b)
        rows = tensor_table(b)
        planned = sum(r["planned"] for r in rows)
        print(
            f"{os.path.basename(path)}: {len(b)} bytes, {len(rows)} tensors ({planned} planned), "
            f"head {head}, tail {tail}, max load {max_load(b)}, "
            f"offline plan {'yes' if offline_plan(b) else 'no'}"
        )


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--probe":
        _probe_main(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv)
