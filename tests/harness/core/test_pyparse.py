"""pyparse: every parse in the harness runs one thread at a time (CPython 3.11's AST constructor shares its
recursion-depth counter across threads and can raise a spurious SystemError)."""

import threading
import time

from harness.core import pyparse


def test_parses_run_one_at_a_time(monkeypatch):
    inside, peak, lock = [0], [0], threading.Lock()
    real_parse = pyparse.ast.parse

    def slow_parse(source, filename="<unknown>"):
        with lock:
            inside[0] += 1
            peak[0] = max(peak[0], inside[0])
        time.sleep(0.02)
        with lock:
            inside[0] -= 1
        return real_parse(source, filename=filename)

    monkeypatch.setattr(pyparse.ast, "parse", slow_parse)
    threads = [threading.Thread(target=pyparse.parse, args=("x = 1\n",)) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak[0] == 1


def test_many_threads_parsing_nested_code_all_succeed():
    nested = "".join(f"{'    ' * (i + 1)}if a > {i}:\n" for i in range(30))
    source = "def f(a):\n" + nested + "    " * 31 + "return [a]\n"
    errors = []

    def work():
        try:
            for _ in range(100):
                assert pyparse.parse(source).body[0].name == "f"
        except Exception as exc:  # noqa: BLE001 - the test collects whatever a thread raises
            errors.append(repr(exc))

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
