"""ChatPlayground: a request, the model's tool calls through a scenario's registry, shown.

Recorded live against the loopback chat server, then replayed with the server gone, as a
person offline would; hostile replies come from the same server.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.widgets.conftest import output_html
from workbench.agents.cassette import Cassette
from workbench.errors import ConfigError, ToolCallError
from workbench.frames import calls_frame, ledger_frame

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "agents"))
from chat_server import ChatServer, completion  # noqa: E402

pytestmark = pytest.mark.timeout(60)

ASK = "Read me an omen for the mill."


@pytest.fixture
def server(keyless_chat_server):
    return keyless_chat_server


def grove(config_dir: Path, **kwargs):
    from workbench.widgets import ChatPlayground

    return ChatPlayground.from_config(config_dir, "oracle-grove", "fortune-teller", **kwargs)


@pytest.fixture
def cassette(config_dir: Path, server: ChatServer) -> Path:
    """A cassette of ``ASK``, recorded live through the widget; the server stopped after."""
    path = config_dir / "cassettes" / "playground.jsonl"
    recording = Cassette(path, mode="record", provenance={"model": "Loopback Seer"})
    pg = grove(config_dir, cassette=recording, url=server.url, model="loopback")
    try:
        assert pg.playground.source == f"live: {server.url}, recording to {path}"
        server.script.append(completion("The mill <b>turns</b>.",
                                        [("oracle", {"seed": "mill"})]))
        assert pg.send(ASK).calls[0][2].ok
    finally:
        pg.close()
        recording.close()
    server.stop()
    return path


class TestReplayed:
    def test_the_label_and_the_recorded_requests_come_from_the_cassette(self, config_dir,
                                                                       cassette):
        pg = grove(config_dir, cassette=cassette)
        try:
            assert f"replaying {cassette} (Loopback Seer)" in pg.source_label.value
            assert [value for _, value in pg.recorded.options] == ["", ASK]
            assert pg.recorded.layout.display != "none"
            assert pg.playground.model.model == "loopback"  # the name the requests hold
        finally:
            pg.close()

    def test_send_with_a_recorded_request_shows_the_call_and_its_outcome(self, config_dir,
                                                                        cassette):
        pg = grove(config_dir, cassette=cassette)
        try:
            pg.recorded.value = ASK
            assert pg.request.value == ASK
            pg.send_button.click()
            assert pg.last_error is None
            shown = output_html(pg.output)
            assert "Call 1: oracle" in shown and "&quot;seed&quot;: &quot;mill&quot;" in shown
            assert "OK &middot; isError: false" in shown and "tool.called" in shown
            assert "The mill &lt;b&gt;turns&lt;/b&gt;." in shown and "<b>turns</b>" not in shown
            frame = calls_frame(pg.hand)
            assert list(frame["tool"]) == ["oracle"] and list(frame["outcome"]) == ["ok"]
            assert list(ledger_frame(pg.hand)["kind"]) == ["tool.called"]
        finally:
            pg.close()

    def test_a_request_not_in_the_cassette_is_shown_as_an_error_not_a_traceback(
            self, config_dir, cassette):
        pg = grove(config_dir, cassette=cassette)
        try:
            pg.request.value = "Something new."
            pg.send_button.click()
            assert pg.last_error is None and pg.turn.error is not None
            shown = output_html(pg.output)
            assert "this request is not in the cassette" in shown
            assert "needs a live model" in shown and len(pg.hand) == 0
        finally:
            pg.close()

    def test_an_empty_request_is_an_error_in_the_widget(self, config_dir, cassette):
        pg = grove(config_dir, cassette=cassette)
        try:
            pg.send_button.click()
            assert isinstance(pg.last_error, ConfigError)
            assert "type a request first, or pick a recorded one" in str(pg.last_error)
            assert pg.playground.turns == []
        finally:
            pg.close()


class TestLive:
    def test_refused_calls_and_hostile_text_are_shown_escaped(self, config_dir, server):
        pg = grove(config_dir, url=server.url, model="loopback")
        try:
            assert pg.recorded.layout.display == "none"
            assert f"live: {server.url}" in pg.source_label.value
            server.script.append(completion(
                "<img src=x onerror=alert(1)> done",
                [("wipe", {"all": "<script>x</script>"}), ("oracle", '["not", "an object"]')]))
            turn = pg.send(ASK)
            assert [(t, o.reason) for t, _, o in turn.calls] == [
                ("wipe", "not granted"), ("oracle", None)]
            assert turn.calls[1][2].outcome == "tool_error"
            shown = output_html(pg.output)
            assert "<img" not in shown and "&lt;img src=x onerror=alert(1)&gt;" in shown
            assert "<script>" not in shown and "&lt;script&gt;" in shown
            assert "Refused: not granted" in shown
            assert "arguments are not a JSON object" in shown
            assert list(ledger_frame(pg.hand)["kind"]) == ["tool.denied", "tool.called"]
        finally:
            pg.close()

    def test_only_the_last_turns_are_shown(self, config_dir, server, monkeypatch):
        from workbench.widgets import playground as module

        monkeypatch.setattr(module, "SHOWN_TURNS", 2)
        pg = grove(config_dir, url=server.url, model="loopback")
        try:
            for i in range(3):
                pg.send(f"Question {i}")
            shown = output_html(pg.output)
            assert "Question 0" not in shown and "Question 2" in shown
            assert "1 earlier turns are not shown" in shown
        finally:
            pg.close()

    def test_what_cannot_be_built_is_a_config_error(self, config_dir, server):
        from workbench.widgets import ChatPlayground

        with pytest.raises(ConfigError, match="no agent named 'nobody'"):
            ChatPlayground.from_config(config_dir, "oracle-grove", "nobody", url=server.url)
        with pytest.raises(ConfigError, match="give a cassette to replay or the URL"):
            grove(config_dir)


@pytest.mark.subprocess
class TestApproval:
    """An untrusted server's tool: refused unless approved (scenario ``asking``)."""

    @pytest.mark.parametrize(("approve", "outcome"), [((), "not approved"),
                                                      (("daily_quote",), "ok")])
    def test_a_call_needing_approval_runs_only_when_approved(self, asking_config, server,
                                                             approve, outcome):
        from workbench.widgets import ChatPlayground

        pg = ChatPlayground.from_config(asking_config, "asking", "asker", url=server.url,
                                        model="loopback", approve=approve)
        resolver = pg.playground.registry.resolver
        try:
            offered = [t["function"]["name"] for t in pg.playground.request_for(ASK)["tools"]]
            assert offered == ["daily_quote"]
            server.script.append(completion(None, [("daily_quote", {"topic": "patience"})]))
            (_, params, got), = pg.send(ASK).calls
            assert params == {"topic": "patience"}
            assert (got.reason or got.outcome) == outcome
            assert list(ledger_frame(pg.hand)["kind"]) == [
                "tool.denied" if approve == () else "tool.called"]
        finally:
            pg.close()
        with pytest.raises(ToolCallError, match="closed"):  # close() stopped the server
            resolver.call_tool("daily_quote", {"topic": "patience"})
