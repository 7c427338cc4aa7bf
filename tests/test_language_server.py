"""Issue 20: "a language server (diagnostics as you type with the compiler's own messages, hover
with a rule's title, type and sheet text, go to definition across `extends`, completion of
names, outline), built on a well-kept LSP library ... the server is tested by driving it over
its protocol"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rulecraft import rule_index

HERE = Path(__file__).parent / "rules" / "editing"
HOUSE, BASE = HERE / "house.rules", HERE / "base.rules"


class Client:
    """An editor's side of the protocol: JSON-RPC messages with Content-Length headers."""

    def __init__(self) -> None:
        self.server = subprocess.Popen(
            [sys.executable, "-c", "from rulecraft.cli import main; main()", "lsp"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.next_id = 0
        self.notices: list[dict[str, Any]] = []

    def send(self, method: str, params: Any, request: bool = True) -> Any:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            message["id"] = self.next_id
        body = json.dumps(message).encode()
        self.server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.server.stdin.flush()
        return self.wait_for(self.next_id) if request else None

    def read(self) -> dict[str, Any]:
        length = 0
        while (line := self.server.stdout.readline().strip()):
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        return json.loads(self.server.stdout.read(length))

    def wait_for(self, request_id: int) -> Any:
        while True:
            message = self.read()
            if message.get("id") == request_id and "method" not in message:
                assert "error" not in message, message
                return message.get("result")
            self.notices.append(message)

    def diagnostics(self, uri: str) -> list[dict[str, Any]]:
        while True:
            for notice in self.notices:
                if notice.get("method") == "textDocument/publishDiagnostics" and \
                        notice["params"]["uri"] == uri:
                    self.notices.remove(notice)
                    return notice["params"]["diagnostics"]
            self.notices.append(self.read())

    def close(self) -> None:
        self.send("shutdown", None)
        self.send("exit", None, request=False)
        self.server.communicate(timeout=10)  # waits, and closes the pipes
        assert self.server.returncode == 0


@pytest.fixture(scope="module")
def editor():
    client = Client()
    client.send("initialize", {"processId": None, "rootUri": HERE.as_uri(), "capabilities": {}})
    client.send("initialized", {}, request=False)
    yield client
    client.close()


def _open(editor: Client, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    editor.send("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "rulecraft", "version": 1,
        "text": path.read_text() if text is None else text}}, request=False)
    return uri


def _at(uri: str, line: int, character: int) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def test_an_error_shows_as_it_is_typed_in_the_compiler_s_words(editor):
    uri = _open(editor, HOUSE)
    assert editor.diagnostics(uri) == []
    typo = HOUSE.read_text().replace("bonus(x) * 2", "bonsu(x) * 2")
    editor.send("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"text": typo}]}, request=False)
    [problem] = editor.diagnostics(uri)
    assert "bonsu" in problem["message"] and "bonus" in problem["message"]  # did you mean
    assert problem["range"]["start"] == {"line": 4, "character": 44}
    assert problem["range"]["end"] == {"line": 4, "character": 52}  # the call `bonsu(x)`
    assert problem["severity"] == 1 and problem["source"] == "rulecraft"
    editor.send("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 3},
        "contentChanges": [{"text": HOUSE.read_text()}]}, request=False)
    assert editor.diagnostics(uri) == []


def test_hover_says_what_a_rule_is_from_its_base_with_the_book_s_words(editor):
    uri = _open(editor, HOUSE)
    editor.diagnostics(uri)
    said = editor.send("textDocument/hover", _at(uri, 4, 46))["contents"]["value"]
    assert said.startswith("**formula bonus** — *Bonus* (from base.rules)")
    assert "formula bonus(x: 1..10)" in said
    assert "The bonus is the figure less five, never below zero." in said
    assert editor.send("textDocument/hover", _at(uri, 4, 2)) is None  # `formula`: a word


def test_go_to_definition_crosses_extends(editor):
    uri = _open(editor, HOUSE)
    editor.diagnostics(uri)
    found = editor.send("textDocument/definition", _at(uri, 4, 46))
    assert found["uri"] == BASE.as_uri()
    assert found["range"] == {"start": {"line": 3, "character": 8},
                              "end": {"line": 3, "character": 13}}
    own = editor.send("textDocument/definition", _at(uri, 4, 10))
    assert own["uri"] == uri and own["range"]["start"] == {"line": 4, "character": 8}


def test_completion_offers_the_names_of_the_file_its_base_and_the_language(editor):
    uri = _open(editor, HOUSE)
    editor.diagnostics(uri)
    items = {i["label"]: i["detail"] for i in
             editor.send("textDocument/completion", _at(uri, 4, 0))["items"]}
    assert items["bonus"] == "formula" and items["doubled"] == "formula"
    assert items["fighter"] == "combatant" and items["skill"] == "figure of fighter"
    assert items["floor"] == "built-in function" and items["procedure"] == "keyword"


def test_the_outline_lists_the_declarations(editor):
    uri = _open(editor, BASE)
    editor.diagnostics(uri)
    symbols = editor.send("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [(s["name"], s["detail"]) for s in symbols] == [
        ("base", "A base"), ("bonus", "Bonus"), ("fighter", "Fighter")]


def test_a_file_that_does_not_parse_still_has_an_answer():
    """Half-typed text: the error where the parser stopped, an empty outline, no crash."""
    text = "formula f(x: 1..10) = x +\n"
    [problem] = rule_index.problems(text, "half.rules")
    assert problem.place.line == 0 and "expected" in problem.message
    assert rule_index.entries(text, "half.rules") == []
    assert rule_index.hover(text, "half.rules", 0, 8) is None


ROOT = Path(__file__).parent.parent


def test_the_built_in_rulebooks_answer_over_the_protocol(editor):
    """"The language server answers diagnostics, hover, definition and completion on the
    built-in rulebooks in a test that speaks its protocol." The RQ3 house rules extend
    rq3_core by name: its names are the built-in file's."""
    house = ROOT / "rulebooks" / "rq3_house.rules"
    uri = _open(editor, house)
    assert editor.diagnostics(uri) == []
    line = house.read_text().split("\n").index(next(
        x for x in house.read_text().split("\n") if x.startswith("replace formula succeeded_level")))
    column = house.read_text().split("\n")[line].index(" critical_chance(skill)") + 4
    said = editor.send("textDocument/hover", _at(uri, line, column))["contents"]["value"]
    assert said.startswith("**formula critical_chance** — *Chance of a critical* (from "
                           "rq3_core.rules)")
    found = editor.send("textDocument/definition", _at(uri, line, column))
    assert found["uri"].endswith("/rq3_core.rules") and found["uri"] != uri
    labels = {i["label"] for i in editor.send("textDocument/completion", _at(uri, 0, 0))["items"]}
    assert {"critical_chance", "succeeded_level", "ultracritical_chance"} <= labels
    symbols = editor.send("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert ("succeeded_level", "Level of a successful roll") in [
        (s["name"], s["detail"]) for s in symbols]
    steel = ROOT / "rulebooks" / "ringing_steel.rules"
    uri = _open(editor, steel)
    assert editor.diagnostics(uri) == []
    names = [s["name"] for s in editor.send("textDocument/documentSymbol",
                                            {"textDocument": {"uri": uri}})]
    assert {"weapons", "skill", "fighter", "melee_attack", "duel", "competent"} <= set(names)
