"""Values the agent under test controls that reach the harness: none of them may crash a run or
enter a result as a forged figure (a lone surrogate in its text, a connection flood through the
model relay, absurd usage in a CLI's log)."""

from __future__ import annotations

import json
import socket
import threading
import time

from harness.agents.cli_base import MAX_RELAY_CONNECTIONS, Endpoint, HostRelay, count, dollars
from harness.core.results import append_sample, read_samples
from harness.models import Report, SampleResult, TokenUsage, Verdict
from harness.running.runner import _writable


def _sample(**over) -> SampleResult:
    base = dict(sample_id="a/control/case_01/0", agent="a", condition="control", case_id="case_01", epoch=0,
                status="completed", transcript="t.jsonl", transcript_sha256="0" * 64, diff="d.patch",
                started_at="2026-01-01T00:00:00+00:00", duration_s=1.0, usage=TokenUsage())
    return SampleResult(**{**base, **over})


def test_a_lone_surrogate_in_agent_text_is_scrubbed_and_the_sample_is_written(tmp_path):
    poisoned = json.loads('{"optimizer": "SGD\\ud800", "values": ["\\udfff", 1.5]}')  # what json gives for it
    verdict = Verdict(criterion="fix_verified", status="fail", grader="verifier", details={"measured": poisoned},
                      reason="x\ud800")
    sample = _sample(report=Report(root_cause="cause\ud800", location="model.py:17", fix="f", evidence="e"),
                     verdicts={"fix_verified": verdict})
    append_sample(tmp_path, sample)
    (back,) = read_samples(tmp_path)
    assert back.report.root_cause == "cause?"
    assert back.verdicts["fix_verified"].details["measured"] == {"optimizer": "SGD?", "values": ["?", 1.5]}


def test_a_result_that_still_cannot_be_written_becomes_an_unscored_infra_error():
    sample = _sample(report=Report(root_cause="r", location="a.py:1", fix="f", evidence="e"))
    object.__setattr__(sample.report, "root_cause", "\ud800")  # past validation, as a bug would
    safe = _writable(sample)
    assert safe.status == "infra_error" and "could not be written" in safe.error
    assert all(v.status == "unscored" for v in safe.verdicts.values())
    safe.model_dump_json()


def _echo_server():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(256)

    def serve():
        while True:
            try:
                c, _ = srv.accept()
            except OSError:
                return
            threading.Thread(target=lambda c=c: (c.sendall(c.recv(100)), c.close()), daemon=True).start()
    threading.Thread(target=serve, daemon=True).start()
    return srv


def test_the_relay_caps_open_connections_and_keeps_serving_after_a_flood():
    upstream = _echo_server()
    relay = HostRelay(Endpoint.parse(f"http://127.0.0.1:{upstream.getsockname()[1]}"))
    try:
        flood = []
        for _ in range(MAX_RELAY_CONNECTIONS * 4):
            s = socket.create_connection(("127.0.0.1", relay.port))
            flood.append(s)
        deadline = time.monotonic() + 5
        while relay.refused < MAX_RELAY_CONNECTIONS and time.monotonic() < deadline:
            time.sleep(0.05)
        assert relay.connections == MAX_RELAY_CONNECTIONS and relay.refused >= MAX_RELAY_CONNECTIONS
        for s in flood:
            s.close()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # slots come back once the flood's connections close
            with socket.create_connection(("127.0.0.1", relay.port)) as s:
                s.sendall(b"ping")
                s.settimeout(2)
                try:
                    if s.recv(100) == b"ping":
                        break
                except OSError:
                    pass
            time.sleep(0.1)
        else:
            raise AssertionError("the relay did not serve again after the flood closed")
    finally:
        relay.close()
        upstream.close()


def test_forged_usage_in_a_cli_log_counts_as_nothing():
    assert [count(v) for v in (12, "7", -5, 1e308, float("inf"), "abc", None, [1])] == [12, 7, 0, 0, 0, 0, 0, 0]
    assert [dollars(v) for v in (0.25, -1e308, float("nan"), 1e300, "3", True)] == [0.25, None, None, None, None, None]
