from __future__ import annotations

import json

import pytest

from workbench.agents.cassette import Cassette, fingerprint
from workbench.errors import CassetteMiss, ConfigError

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0}


class TestFingerprint:
    def test_key_order_does_not_matter_content_does(self):
        same = {"temperature": 0, "messages": BODY["messages"], "model": "m"}
        assert fingerprint(BODY) == fingerprint(same)
        assert fingerprint(BODY) != fingerprint({**BODY, "model": "other"})


class TestRecordAndReplay:
    def test_auto_records_a_new_file_then_replays_it(self, tmp_path):
        path = tmp_path / "c.jsonl"
        tape = Cassette(path)
        assert tape.mode == "record" and not tape.replaying
        tape.record(BODY, "a", 1, response={"n": 1})
        tape.record(BODY, "a", 2, response={"n": 2})
        tape.record({**BODY, "model": "x"}, "a", 3, error={"kind": "model_error",
                                                             "message": "HTTP 500"})
        tape.close()
        line = json.loads(path.read_text().splitlines()[0])
        assert line["fingerprint"] == fingerprint(BODY) and line["request"] == BODY
        replay = Cassette(path)
        assert replay.mode == "replay" and len(replay) == 3
        # Identical requests are answered in recorded order, then the last one again.
        assert [replay.lookup(BODY, "a", t)["response"]["n"] for t in (1, 2, 3)] == [1, 2, 2]
        assert replay.lookup({**BODY, "model": "x"}, "a", 3)["error"]["message"] == "HTTP 500"

    def test_a_request_not_recorded_is_a_miss_naming_agent_and_tick(self, tmp_path):
        path = tmp_path / "c.jsonl"
        with_one = Cassette(path, "record")
        with_one.record(BODY, "a", 1, response={})
        with_one.close()
        with pytest.raises(CassetteMiss) as caught:
            Cassette(path, "replay").lookup({**BODY, "temperature": 1}, "scribe", 7)
        text = str(caught.value)
        assert "'scribe' at tick 7" in text and "re-record" in text and "\n" not in text

    def test_replay_of_a_missing_file_and_record_over_replay_are_refused(self, tmp_path):
        with pytest.raises(ConfigError, match="no such cassette"):
            Cassette(tmp_path / "none.jsonl", "replay")
        path = tmp_path / "c.jsonl"
        path.write_text("")
        with pytest.raises(ValueError, match="not record"):
            Cassette(path, "replay").record(BODY, "a", 1, response={})
