"""memplan.tflite without TensorFlow: plans the committed test models and checks what the
door returns and writes. The runs on TFLM's interpreter are in test_tflite_micro.py."""

import subprocess
import sys
from pathlib import Path

import pytest

import memplan
import memplan.tflite

ROOT = Path(__file__).resolve().parents[3]
MODELS = ROOT / "tests" / "tflite" / "models"
BAD = ROOT / "tests" / "bad_inputs"


def models():
    found = sorted(MODELS.glob("*.tflite"))
    assert len(found) >= 8, f"the test models are committed under {MODELS}"
    return found


def test_plan_model_writes_a_planned_copy_and_names_tensors(tmp_path):
    for src in models():
        dst = tmp_path / src.name
        plan = memplan.tflite.plan_model(src, dst, time_limit=1.0)
        assert isinstance(plan, memplan.Plan)
        assert len(plan.ids) == len(plan.offsets) > 0
        assert len(set(plan.ids)) == len(plan.ids)
        scratch = [i for i in plan.ids if i.startswith("scratch:")]
        assert plan.ids[len(plan.ids) - len(scratch):] == scratch
        assert all(o % 16 == 0 for o in plan.offsets)
        assert plan.height >= plan.max_load > 0
        assert plan.optimal == (plan.height == plan.lower_bound)
        # The original bytes are the planned file's tail, after a 16-byte-aligned head.
        original, planned = src.read_bytes(), dst.read_bytes()
        assert planned.endswith(original)
        assert (len(planned) - len(original)) % 16 == 0
        assert b"OfflineMemoryAllocation" in planned[: len(planned) - len(original)]


def test_ids_are_the_tensor_names_the_cli_reports(tmp_path):
    src = models()[0]
    plan = memplan.tflite.plan_model(src, None)
    table = subprocess.run(
        [str(ROOT / "target" / "debug" / "memplan"), "tflite", str(src), "--report", "-q"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    rows = [line.split(None, 6) for line in table[1:] if not line.startswith("#")]
    # Tensors, then the scratch requests room was left for.
    assert [r[6].split(" (room left")[0] for r in rows] == plan.ids
    assert [int(r[4]) for r in rows] == plan.offsets


def test_an_existing_plan_needs_force(tmp_path):
    src = models()[0]
    once = tmp_path / "once.tflite"
    memplan.tflite.plan_model(src, once)
    with pytest.raises(memplan.InputError, match="already has an offline plan.*force=True"):
        memplan.tflite.plan_model(once, tmp_path / "twice.tflite")
    again = memplan.tflite.plan_model(once, tmp_path / "twice.tflite", force=True)
    assert again.height == memplan.tflite.plan_model(src, None).height


def test_force_replaces_the_plan_in_place(tmp_path):
    """Five re-plans with force=True keep the size of the first planned file."""
    src = models()[0]
    first = tmp_path / "p0.tflite"
    memplan.tflite.plan_model(src, first, planner="greedy")
    for i in range(1, 6):
        memplan.tflite.plan_model(tmp_path / f"p{i - 1}.tflite", tmp_path / f"p{i}.tflite",
                                  planner="greedy", force=True)
        assert (tmp_path / f"p{i}.tflite").stat().st_size == first.stat().st_size
    assert (tmp_path / "p5.tflite").read_bytes() == first.read_bytes()


def test_plan_model_takes_bytes(tmp_path):
    """The bytes TFLiteConverter.convert() returns plan as the file does."""
    src = models()[0]
    from_path = memplan.tflite.plan_model(src, tmp_path / "a.tflite", planner="greedy")
    for data in (src.read_bytes(), bytearray(src.read_bytes()), memoryview(src.read_bytes())):
        from_bytes = memplan.tflite.plan_model(data, tmp_path / "b.tflite", planner="greedy")
        assert from_bytes.offsets == from_path.offsets
        assert (tmp_path / "b.tflite").read_bytes() == (tmp_path / "a.tflite").read_bytes()
    with pytest.raises(memplan.InputError, match="^<bytes>: not a TFLite model"):
        memplan.tflite.plan_model(b"not a model", None)


def test_bad_scratch_requests_raise_input_error():
    src = models()[0]
    for bad, says in [
        ([(0, 0, -1)], "bytes between 1 and 2\\*\\*31 - 1"),
        ([(0, -1, 64)], "must be >= 0"),
        ([(0, 0, 2**64)], "bytes between"),
        ([(0, 0)], "expected \\(subgraph, operator, bytes\\)"),
        ([(0, 0, "64")], "three integers"),
        ([(0, 9999, 64)], "scratch request 0:9999:64: subgraph 0 has .* operators"),
        ([(5, 0, 64)], "the model has 1 subgraph \\(number 0\\)"),
    ]:
        with pytest.raises(memplan.InputError, match=says) as e:
            memplan.tflite.plan_model(src, None, scratch=bad)
        assert isinstance(e.value, ValueError)


def test_several_subgraphs_warn_once_about_the_tflm_version():
    """A model of several subgraphs gets a TFLMVersionWarning naming the TFLM commit it
    needs, once (Python's default filter: the same text from the same caller), and none
    with version_note=False or for a model of one subgraph."""
    def run(*calls):
        code = "import memplan.tflite\nfor src, note in %r:\n" % (calls,)
        code += "    memplan.tflite.plan_model(src, None, planner='greedy', version_note=note)\n"
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return r.stderr
    several = [str(MODELS / f"{m}.tflite") for m in ("streaming_kws_int8", "cond_if_int8")]
    err = run(*[(m, True) for m in several * 2])
    assert err.count("TFLMVersionWarning") == 1, err
    assert "tflite-micro e60e8ca (2023-03-29)" in err
    assert run(*[(m, False) for m in several]) == ""
    one = str(MODELS / "kws_ds_cnn_int8.tflite")
    assert run((one, True)) == ""


def test_bad_models_raise_the_package_errors(tmp_path):
    with pytest.raises(memplan.InputError, match="not a TFLite model"):
        memplan.tflite.plan_model(BAD / "tflite_not_a_model.tflite", None)
    with pytest.raises(memplan.InputError, match="tensor index 99 out of range"):
        memplan.tflite.plan_model(BAD / "tflite_tensor_index_past_end.tflite", None)
    with pytest.raises(FileNotFoundError):
        memplan.tflite.plan_model(tmp_path / "missing.tflite", None)
    with pytest.raises(IsADirectoryError):
        memplan.tflite.plan_model(tmp_path, None)
    cut = tmp_path / "cut.tflite"
    whole = models()[0].read_bytes()
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(memplan.InputError, match=f"truncated.*it has {len(whole) // 2} bytes"):
        memplan.tflite.plan_model(cut, None)
    with pytest.raises(memplan.InfeasibleError, match="max load"):
        memplan.tflite.plan_model(models()[0], None, capacity=16)
    with pytest.raises(ValueError, match="time_limit"):
        memplan.tflite.plan_model(models()[0], None, time_limit=-1)
    assert not (tmp_path / "missing.tflite").exists()


def test_planning_imports_no_tensorflow():
    code = (
        "import sys, memplan.tflite; "
        f"memplan.tflite.plan_model({str(models()[0])!r}, None); "
        "assert 'tensorflow' not in sys.modules and 'tflite_micro' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_guides_python_example_runs(tmp_path, monkeypatch):
    """The ```python block of docs/tflite-micro.md, run as written from a directory that
    sees the repository's tests/ (so that it writes into a scratch directory)."""
    text = (ROOT / "docs" / "tflite-micro.md").read_text()
    blocks = text.split("```python\n")[1:]
    assert len(blocks) == 1
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    monkeypatch.chdir(tmp_path)
    exec(compile(blocks[0].split("```")[0], "docs/tflite-micro.md", "exec"), {})
    assert (tmp_path / "kws.planned.tflite").exists()
    # What it writes is in .gitignore, as the README's examples are.
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    for p in tmp_path.iterdir():
        assert p.name == "tests" or f"/{p.name}" in ignored, p.name
