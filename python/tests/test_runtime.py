"""Ctrl-C, the GIL, and the module's surface: docstrings, examples, stubs."""

import ast
import doctest
import inspect
import os
import pathlib
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import chompute

PUBLIC = [name for name in chompute.__all__ if name != "__version__"]

INTERRUPT = textwrap.dedent(
    """
    import glob, os, signal, sys, threading, time
    import chompute

    def workers():
        # chompute's worker threads, by the name the module gives them (Linux).
        names = []
        for comm in glob.glob(f"/proc/{{os.getpid()}}/task/*/comm"):
            try:
                names.append(open(comm).read().strip())
            except OSError:
                pass
        return names.count("chompute")

    threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    start = time.perf_counter()
    try:
        {call}
    except KeyboardInterrupt:
        interrupted = time.perf_counter() - start
        # The library call under the worker was cancelled too: its thread ends at the next
        # chunk of work (milliseconds), long before the work itself would (30 s or more).
        while workers() and time.perf_counter() - start < 15:
            time.sleep(0.05)
        left = workers()
        print(f"interrupted after {{interrupted:.2f}} s; {{left}} worker threads left after {{time.perf_counter() - start:.2f}} s")
        sys.exit(3 if left else 0)
    print("finished without an interrupt")
    sys.exit(1)
    """
)


@pytest.mark.parametrize(
    "call",
    [
        # pieces of rows generated on the CPU: hours of work if not stopped
        "chompute.count(2**20 - 1, method='cpu')",
        "chompute.automaton(30000)",
        # one library call run on a worker thread, cancelled when Ctrl-C is raised: each is
        # 30 s to minutes of work if not stopped (measured on two cores)
        "chompute.nimpass_p_positions(4, 800)",
        "chompute.gp_table(30000)",
        "chompute.chomp_ordinals('0,1,2', '16x16')",
        # a 3-row box streamed first row by first row: minutes for 3x10000
        "chompute.chomp_ordinal_histogram('0,1,2', '3x10000')",
        "chompute.theorems(8192)",
        # thousands of rule groups a position: the cancel token is read by work done
        "chompute.chomp_classes(8, '12x12')",
    ],
)
def test_ctrl_c_raises_keyboard_interrupt(call):
    done = subprocess.run([sys.executable, "-c", INTERRUPT.format(call=call)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    seconds = float(done.stdout.split()[2])
    assert seconds < 20, done.stdout


def test_long_work_releases_the_gil():
    ticks = 0
    finished = threading.Event()

    def work():
        chompute.count(2**14 + 1, method="cpu")
        chompute.gp_table(2500)
        finished.set()

    worker = threading.Thread(target=work)
    worker.start()
    while not finished.is_set():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    # The main thread kept running Python code while the worker was inside chompute.
    assert ticks > 20


@pytest.mark.parametrize("name", PUBLIC)
def test_every_function_has_a_docstring(name):
    doc = getattr(chompute, name).__doc__
    assert doc and len(doc.strip()) > 60, name


def test_help_of_count_shows_signature_and_methods():
    text = inspect.signature(chompute.count)
    assert str(text) == "(m, n=None, *, window=None, method='auto')"
    for word in ["recurrence", "histogram", "digits", "window=(row, col, height, width)", "CheckFailed"]:
        assert word in chompute.count.__doc__


def test_docstring_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    objects = [chompute] + [getattr(chompute, n) for n in PUBLIC]
    examples = 0
    for obj in objects:
        for test in finder.find(obj, obj.__name__, globs={"chompute": chompute}):
            examples += len(test.examples)
            runner.run(test)
    assert runner.failures == 0
    assert examples >= 15


def test_stubs_match_the_module():
    package = pathlib.Path(chompute.__file__).parent
    assert (package / "py.typed").exists()
    stub = ast.parse((package / "__init__.pyi").read_text())
    defs = {node.name: node for node in stub.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    for name in PUBLIC:
        assert name in defs, name
        obj = getattr(chompute, name)
        if isinstance(defs[name], ast.FunctionDef):
            args = defs[name].args
            stubbed = [a.arg for a in args.args] + [a.arg for a in args.kwonlyargs]
            assert stubbed == list(inspect.signature(obj).parameters), name
    methods = {n.name for n in defs["ChompOrdinals"].body if isinstance(n, ast.FunctionDef)}
    assert {"histogram", "rule", "players", "box", "ordinal", "sol", "chain", "positions"} <= methods
    # Every class's public methods and properties, no more and no fewer, each method with its
    # parameters (an exception class's own attributes besides).
    for name in PUBLIC:
        if not isinstance(defs[name], ast.ClassDef):
            continue
        cls = getattr(chompute, name)
        stubbed = {n.name: n for n in defs[name].body if isinstance(n, ast.FunctionDef)}
        inherited = set(dir(Exception)) if issubclass(cls, Exception) else set()
        real = {m for m in dir(cls) if not m.startswith("_") and m not in inherited}
        assert real == {m for m in stubbed if not m.startswith("_")}, name
        for method, node in stubbed.items():
            member = inspect.getattr_static(cls, method)
            if method.startswith("_") or not callable(member):
                continue
            args = node.args
            stubbed_args = [a.arg for a in args.args] + [a.arg for a in args.kwonlyargs]
            assert stubbed_args == list(inspect.signature(getattr(cls, method)).parameters), (name, method)


def test_guide_session(tmp_path, monkeypatch):
    """The session of docs/guide/python.md, run as written (where matplotlib is installed)."""
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    guide = pathlib.Path(__file__).resolve().parents[2] / "docs" / "guide" / "python.md"
    if not guide.exists():
        pytest.skip("docs/guide/python.md is not beside the tests")
    text = guide.read_text()
    start = text.index("```python\n") + len("```python\n")
    session = text[start : text.index("```\n", start)]
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(session, {}, "docs/guide/python.md", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.failures == 0 and len(test.examples) >= 8
    assert (tmp_path / "python-session.png").exists()


def test_progress_reports_to_a_callable_and_to_a_tqdm_bar():
    seen = []
    chompute.gp_table(300, progress=lambda done, total, phase: seen.append((phase, done, total)))
    assert seen[0] == ("rows", 0, 300) and seen[-1] == ("rows", 300, 300)

    class Bar:  # what chompute uses of a tqdm bar
        def __init__(self):
            self.total, self.n = None, 0

        def update(self, k):
            self.n += k

    bar = Bar()
    chompute.chomp_ordinals("0,1,2", "6x7", progress=bar)
    assert bar.total == bar.n == len(chompute.chomp_ordinals("0,1,2", "6x7"))
    # A square keeps one entry for each transposed pair: the bar counts the entries decided,
    # fewer than the positions, and ends full.
    square = Bar()
    chompute.chomp_ordinals("0,1,2", "6x6", progress=square)
    assert square.total == square.n < len(chompute.chomp_ordinals("0,1,2", "6x6"))
    with pytest.raises(TypeError, match="progress must be"):
        chompute.gp_table(10, progress=3)


def test_theorems_and_cb_grundy_report_their_steps():
    seen = []
    chompute.theorems(16, claims=["g-odd", "sum-odd"], progress=lambda done, total, phase: seen.append((phase, done, total)))
    assert seen[0] == ("claims", 0, 2) and seen[-1] == ("claims", 2, 2)
    planes = []
    chompute.cb_grundy("floor(z/2)", 5, 4, pass_=True, progress=lambda done, total, phase: planes.append((phase, done, total)))
    phases = [p for p, _, _ in planes]
    assert phases[0] == "planes" and phases[-1] == "planes (with the pass)"
    assert ("planes", 6, 6) in planes and planes[-1] == ("planes (with the pass)", 6, 6)


def test_an_exception_in_progress_stops_the_work():
    calls = []

    def stop(done, total, phase):
        calls.append(done)
        if done > 0:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        chompute.nimpass_p_positions(3, 2000, progress=stop)
    assert calls[-1] > 0
