"""The language server: `rulecraft lsp` speaks the Language Server Protocol on standard input
and output, so an editor shows the compiler's errors as you type, what a name is on hover,
jumps to a declaration (across `extends`), completes names and lists the file's outline.

Built on pygls, the protocol library most Python language servers use (`pip install
'rulecraft[editors]'`); what it answers comes from rulecraft/rule_index.py."""

from __future__ import annotations

from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from . import rule_index
from .rule_index import Place

SYMBOLS = {
    "rulebook": lsp.SymbolKind.Module, "enum": lsp.SymbolKind.Enum,
    "table": lsp.SymbolKind.Struct, "formula": lsp.SymbolKind.Function,
    "combatant": lsp.SymbolKind.Class, "procedure": lsp.SymbolKind.Method,
    "encounter": lsp.SymbolKind.Event, "policy": lsp.SymbolKind.Interface,
    "reference": lsp.SymbolKind.Struct,
}
COMPLETIONS = {
    "keyword": lsp.CompletionItemKind.Keyword, "built-in function": lsp.CompletionItemKind.Function,
    "formula": lsp.CompletionItemKind.Function, "procedure": lsp.CompletionItemKind.Method,
    "encounter": lsp.CompletionItemKind.Event, "table": lsp.CompletionItemKind.Struct,
    "enum": lsp.CompletionItemKind.Enum, "combatant": lsp.CompletionItemKind.Class,
}

server = LanguageServer("rulecraft", "1")


def _range(place: Place) -> lsp.Range:
    return lsp.Range(lsp.Position(place.line, place.character),
                     lsp.Position(place.end_line, place.end_character))


def _document(ls: LanguageServer, uri: str) -> tuple[str, str]:
    """The text as the editor holds it (unsaved changes included) and its file path."""
    document = ls.workspace.get_text_document(uri)
    return document.source, to_fs_path(uri) or uri


def _publish(ls: LanguageServer, uri: str) -> None:
    text, path = _document(ls, uri)
    found = [lsp.Diagnostic(range=_range(p.place), message=p.message, source="rulecraft",
                            severity=lsp.DiagnosticSeverity.Error)
             for p in rule_index.problems(text, path)]
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri,
                                                                      diagnostics=found))


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
    _publish(ls, params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
    _publish(ls, params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: LanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
    _publish(ls, params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def hover(ls: LanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
    text, path = _document(ls, params.text_document.uri)
    said = rule_index.hover(text, path, params.position.line, params.position.character)
    if said is None:
        return None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=said))


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
def definition(ls: LanguageServer, params: lsp.DefinitionParams) -> lsp.Location | None:
    text, path = _document(ls, params.text_document.uri)
    name = rule_index.word_at(text, params.position.line, params.position.character)
    entry = rule_index.declared(name, text, path) if name else None
    if entry is None:
        return None
    uri = params.text_document.uri if entry.place.path == path else from_fs_path(entry.place.path)
    return lsp.Location(uri=uri or entry.place.path, range=_range(entry.place))


@server.feature(lsp.TEXT_DOCUMENT_COMPLETION)
def completion(ls: LanguageServer, params: lsp.CompletionParams) -> lsp.CompletionList:
    text, path = _document(ls, params.text_document.uri)
    items = [lsp.CompletionItem(label=name, detail=what,
                                kind=COMPLETIONS.get(what, lsp.CompletionItemKind.Field))
             for name, what in rule_index.completions(text, path)]
    return lsp.CompletionList(is_incomplete=False, items=items)


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def outline(ls: LanguageServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
    text, path = _document(ls, params.text_document.uri)
    return [lsp.DocumentSymbol(name=e.name, detail=e.title or e.kind,
                               kind=SYMBOLS.get(e.kind, lsp.SymbolKind.Object),
                               range=_range(e.place), selection_range=_range(e.place))
            for e in rule_index.entries(text, path)]


def serve(**options: Any) -> None:
    """Answer an editor on standard input and output until it says to stop."""
    server.start_io(**options)
