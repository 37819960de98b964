"""A bash command line as plain values, read with tree-sitter-bash.

:func:`parse` turns source text into a :class:`Script`: pipelines of stages, where a stage is a
simple :class:`Command` (decoded words, prefix assignments, redirections) or a :class:`Compound`
(subshell, group, if/while/for/case, function definition, ``[[ ]]``) holding a nested script.
Quoting and backslashes are decoded; what bash would expand (variables, globs, a leading ``~``,
command and process substitutions, brace expansions) stays visible in each :class:`Word`'s
parts, and every substitution is parsed into its own script. No rules live here:
:mod:`circle.domain.approvals` decides what a script may do.

The bash language is loaded once, on the first parse.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import cache
from typing import Literal

import tree_sitter
import tree_sitter_bash

PartKind = Literal["text", "glob", "tilde", "var", "expansion"]
MAX_NESTING = 48
"""Substitutions and compounds nested deeper than this are not read (the script says ``too_deep``)."""

_STATEMENTS = frozenset(
    {
        "command",
        "list",
        "pipeline",
        "redirected_statement",
        "negated_command",
        "declaration_command",
        "unset_command",
        "variable_assignment",
        "variable_assignments",
    }
)
_COMPOUNDS = frozenset(
    {
        "subshell",
        "compound_statement",
        "if_statement",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "case_statement",
        "function_definition",
        "test_command",
    }
)
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
_UNQUOTED = re.compile(r"\\.|\\$|[*?]|[^\\*?]+", re.S)
_CONTINUED = re.compile(rb"(?:\\\n)+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PATTERN = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}|\[[^\]]+\]")
_C_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r"}
_C_ESCAPES |= {"t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_C_NUMERIC = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.S)


@dataclass(frozen=True, slots=True)
class Part:
    """A piece of a word: literal ``text``, an unquoted ``glob`` character, a leading ``tilde``
    (``~`` or ``~user``), a ``var`` (its name), or another ``expansion`` (its source text)."""

    kind: PartKind
    value: str


@dataclass(frozen=True, slots=True)
class Substitution:
    kind: Literal["command", "process"]
    script: Script


@dataclass(frozen=True, slots=True)
class Word:
    """One shell word, decoded: quotes and backslashes removed, expansions kept as parts."""

    parts: tuple[Part, ...]
    substitutions: tuple[Substitution, ...] = ()
    pattern: bool = False
    """An unquoted brace expansion (``{a,b}``, ``{1..3}``) or bracket expression (``[ab]``)."""

    @property
    def text(self) -> str:
        """The word as a person reads it: literal text, with ``$NAME`` where a variable is."""
        return "".join("$" + p.value if p.kind == "var" else p.value for p in self.parts)

    @property
    def literal(self) -> bool:
        """True when bash passes :attr:`text` as it is: nothing is expanded or globbed."""
        return not self.pattern and all(p.kind == "text" for p in self.parts)

    def has(self, kind: PartKind) -> bool:
        return any(p.kind == kind for p in self.parts)


@dataclass(frozen=True, slots=True)
class Redirect:
    """``operator`` as written (``>``, ``>>``, ``&>``, ``<``, ``<<``, ``<<<`` …). ``target`` is the
    file, fd or here-string; for a heredoc it is the body (``quoted`` when its delimiter is)."""

    operator: str
    target: Word
    descriptor: str = ""
    quoted: bool = False

    @property
    def heredoc(self) -> bool:
        return self.operator in ("<<", "<<-")


@dataclass(frozen=True, slots=True)
class Command:
    words: tuple[Word, ...]
    assignments: tuple[Word, ...] = ()
    redirects: tuple[Redirect, ...] = ()


@dataclass(frozen=True, slots=True)
class Compound:
    """A stage that is not a simple command. ``kind`` is the tree-sitter node type; ``name`` is a
    function's name; ``words`` are the expanded words of its header (``for x in WORDS``)."""

    kind: str
    body: Script
    name: str = ""
    words: tuple[Word, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    source: str = ""
    """The source text of a ``[[ … ]]`` test (its operands are not parsed further)."""


Stage = Command | Compound


@dataclass(frozen=True, slots=True)
class Pipeline:
    stages: tuple[Stage, ...]
    background: bool = False


@dataclass(frozen=True, slots=True)
class Script:
    pipelines: tuple[Pipeline, ...]
    error: bool = False
    too_deep: bool = False


@cache
def _language() -> tree_sitter.Language:
    return tree_sitter.Language(tree_sitter_bash.language())


def parse(source: str, *, nesting: int = 0) -> Script:
    """Parse ``source`` as bash. A syntax error anywhere sets :attr:`Script.error`; what parsed
    around it is still there. ``nesting`` is how deep the source already sits (a ``bash -c``
    string inside substitutions): it counts toward :data:`MAX_NESTING`."""
    data = source.encode("utf-8", "surrogatepass")
    tree = tree_sitter.Parser(_language()).parse(data)
    reader = _Reader(data)
    root = tree.root_node
    pipelines = tuple(reader.statements(root, nesting))
    return Script(pipelines, error=root.has_error, too_deep=reader.too_deep)


def commands(script: Script) -> Iterator[Command]:
    """Every simple command in ``script``, its compounds and its substitutions, in source order."""
    for pipeline in script.pipelines:
        for stage in pipeline.stages:
            if isinstance(stage, Command):
                yield stage
                words = stage.assignments + stage.words
            else:
                yield from commands(stage.body)
                words = stage.words
            for word in words + tuple(r.target for r in stage.redirects):
                for substitution in word.substitutions:
                    yield from commands(substitution.script)


def _text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


class _Reader:
    """Walks one tree into values. ``depth`` counts nested substitutions and compounds."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.too_deep = False

    def statements(self, node: tree_sitter.Node, depth: int) -> list[Pipeline]:
        if depth > MAX_NESTING:
            self.too_deep = True
            return []
        out: list[Pipeline] = []
        for child in node.children:
            if child.type == "&" and out:
                out[-1] = replace(out[-1], background=True)
            elif child.type in _STATEMENTS or child.type in _COMPOUNDS or child.type in _REDIRECTS:
                out.extend(self.statement(child, depth))
            elif child.type == "ERROR":
                out.extend(self.statements(child, depth))
            elif child.is_named and child.type != "comment":
                pipelines: list[Pipeline] = []
                words: list[Word] = []
                self.collect(child, depth, pipelines, words)
                out.append(Pipeline((Compound("ERROR", Script(tuple(pipelines)), words=tuple(words)),)))
        return out

    def statement(self, node: tree_sitter.Node, depth: int) -> list[Pipeline]:
        kind = node.type
        if kind in ("list", "ERROR"):
            return self.statements(node, depth)
        if kind == "negated_command":
            return [p for c in node.named_children for p in self.statement(c, depth)]
        if kind == "pipeline":
            return [Pipeline(tuple(self.stage(c, depth) for c in node.named_children))]
        if kind == "redirected_statement":
            return self.redirected(node, depth)
        if kind in _REDIRECTS:
            redirects, stages, after = self.redirect(node, depth)
            return [Pipeline((Command((), (), tuple(redirects)), *stages)), *after]
        return [Pipeline((self.stage(node, depth),))]

    def redirected(self, node: tree_sitter.Node, depth: int) -> list[Pipeline]:
        body = node.child_by_field_name("body")
        stages: list[Stage] = []
        if body is not None and body.type == "pipeline":
            stages = [self.stage(c, depth) for c in body.named_children]
        elif body is not None:
            stages = [self.stage(body, depth)]
        redirects: list[Redirect] = []
        more: list[Stage] = []
        after: list[Pipeline] = []
        for child in node.named_children:
            if child.type in _REDIRECTS:
                found, extra, later = self.redirect(child, depth)
                redirects += found
                more += extra
                after += later
        if not stages:
            stages = [Command(())]
        stages[-1] = replace(stages[-1], redirects=stages[-1].redirects + tuple(redirects))
        return [Pipeline(tuple(stages + more)), *after]

    def redirect(
        self, node: tree_sitter.Node, depth: int
    ) -> tuple[list[Redirect], list[Stage], list[Pipeline]]:
        """The redirections in ``node``, and for a heredoc what follows its start on the same line:
        more pipeline stages (``<<EOF | sh``) and further statements (``<<EOF && rm x``)."""
        operator = next((_text(c) for c in node.children if not c.is_named), "")
        descriptor = next((_text(c) for c in node.named_children if c.type == "file_descriptor"), "")
        if node.type != "heredoc_redirect":
            targets = [c for c in node.named_children if c.type != "file_descriptor"]
            target = self.word(targets[-1], depth) if targets else Word(())
            return [Redirect(operator, target, descriptor)], [], []
        redirects: list[Redirect] = []
        stages: list[Stage] = []
        after: list[Pipeline] = []
        quoted = False
        body = Word(())
        for child in node.named_children:
            if child.type == "heredoc_start":
                quoted = any(q in _text(child) for q in "'\"\\")
            elif child.type == "heredoc_body":
                body = self.heredoc_body(child, quoted=quoted, depth=depth)
            elif child.type == "pipeline":
                for pipeline_part in child.named_children:
                    first, *rest = self.statement(pipeline_part, depth) or [Pipeline(())]
                    stages += first.stages
                    after += rest
            elif child.type in _REDIRECTS:
                found, extra, later = self.redirect(child, depth)
                redirects += found
                stages += extra
                after += later
            elif child.type not in ("heredoc_end", "heredoc_content"):
                after += self.statement(child, depth)
        return [Redirect(operator, body, descriptor, quoted), *redirects], stages, after

    def heredoc_body(self, node: tree_sitter.Node, *, quoted: bool, depth: int) -> Word:
        if quoted:
            return Word((Part("text", _text(node)),))
        parts: list[Part] = []
        subs: list[Substitution] = []
        self.gapped(node, node.start_byte, node.end_byte, parts, subs, depth, gap=_heredoc_text)
        return Word(tuple(parts), tuple(subs))

    def stage(self, node: tree_sitter.Node, depth: int) -> Stage:
        kind = node.type
        if kind == "command":
            return self.command(node, depth)
        if kind in ("declaration_command", "unset_command"):
            return Command(tuple(self.word(c, depth) for c in node.children if c.type != "comment"))
        if kind in ("variable_assignment", "variable_assignments"):
            found = [node] if kind == "variable_assignment" else node.named_children
            return Command((), tuple(self.word(c, depth) for c in found))
        if kind == "redirected_statement":
            pipelines = self.redirected(node, depth)
            if len(pipelines) == 1 and len(pipelines[0].stages) == 1:
                return pipelines[0].stages[0]
            return Compound("compound_statement", Script(tuple(pipelines)))
        if kind == "negated_command" and node.named_children:
            return self.stage(node.named_children[0], depth)
        if kind in ("list", "ERROR"):
            return Compound("compound_statement", Script(tuple(self.statements(node, depth))))
        return self.compound(node, depth)

    def command(self, node: tree_sitter.Node, depth: int) -> Command:
        words: list[Word] = []
        assignments: list[Word] = []
        redirects: list[Redirect] = []
        end = -1
        for child in node.children:
            if child.type == "variable_assignment":
                assignments.append(self.word(child, depth))
            elif child.type in _REDIRECTS:
                redirects += self.redirect(child, depth)[0]
            elif child.type == "$":
                words.append(Word((Part("expansion", "$"),)))
            elif (
                child.is_named
                and child.type != "comment"
                and (child.named_children or child.type != "command_name")
            ):
                word = self.word(child.named_children[0] if child.type == "command_name" else child, depth)
                if words and _CONTINUED.fullmatch(self.source[end : child.start_byte]):
                    before = words.pop()
                    parts = [*before.parts, *word.parts]
                    word = _word(
                        parts, [*before.substitutions, *word.substitutions], before.pattern or word.pattern
                    )
                words.append(word)
                end = child.end_byte
        return Command(tuple(words), tuple(assignments), tuple(redirects))

    def compound(self, node: tree_sitter.Node, depth: int) -> Compound:
        if depth >= MAX_NESTING:
            self.too_deep = True
            return Compound(node.type, Script(()))
        pipelines: list[Pipeline] = []
        words: list[Word] = []
        name = ""
        kind = node.type
        if kind == "function_definition":
            found = node.child_by_field_name("name")
            name = _text(found) if found is not None else ""
        elif kind == "compound_statement" and node.children and node.children[0].type == "((":
            kind = "arithmetic"
        self.collect(node, depth + 1, pipelines, words)
        source = _text(node) if kind == "test_command" else ""
        return Compound(kind, Script(tuple(pipelines)), name, tuple(words), source=source)

    def collect(
        self, node: tree_sitter.Node, depth: int, pipelines: list[Pipeline], words: list[Word]
    ) -> None:
        """The statements inside a compound, and the substitutions in its header words."""
        for child in node.children:
            if child.type == "&" and pipelines:
                pipelines[-1] = replace(pipelines[-1], background=True)
            elif not child.is_named or child.type == "comment":
                continue
            elif child.type in _SUBSTITUTIONS:
                words.append(self.word(child, depth))
            elif child.type in _STATEMENTS or child.type in _COMPOUNDS:
                pipelines.extend(self.statement(child, depth))
            else:
                self.collect(child, depth, pipelines, words)

    def word(self, node: tree_sitter.Node, depth: int) -> Word:
        parts: list[Part] = []
        subs: list[Substitution] = []
        shape: list[str] = []
        self.parts(node, parts, subs, shape, depth)
        return _word(parts, subs, bool(_PATTERN.search("".join(shape))))

    def parts(
        self,
        node: tree_sitter.Node,
        parts: list[Part],
        subs: list[Substitution],
        shape: list[str],
        depth: int,
    ) -> None:
        """Decode ``node`` into ``parts``. ``shape`` gathers the unquoted text (quoted characters
        as ``"``) so brace and bracket patterns can be told apart from a literal ``{}`` or ``[``."""
        kind = node.type
        text = _text(node)
        if kind == "word":
            _unquoted(text, parts, shape, start=not parts)
        elif kind in ("number", "variable_name", "test_operator", "special_variable_name"):
            parts.append(Part("text", text))
            shape.append(text)
        elif kind == "raw_string":
            parts.append(Part("text", text[1:-1]))
            shape.append('"')
        elif kind == "ansi_c_string":
            parts.append(Part("text", _ansi_c(text[2:-1])))
            shape.append('"')
        elif kind in ("string", "translated_string"):
            start = node.start_byte + (2 if text.startswith('$"') else 1)
            end = node.end_byte - 1 if text.endswith('"') and len(text) > 1 else node.end_byte
            self.gapped(node, start, end, parts, subs, depth, gap=_double_quoted)
            shape.append('"')
        elif kind == "concatenation" or kind == "variable_assignment":
            for child in node.children:
                self.parts(child, parts, subs, shape, depth)
        elif kind in ("simple_expansion", "expansion") and _NAME.fullmatch(text.strip("${}")):
            parts.append(Part("var", text.strip("${}")))
        elif kind == "string_content":
            parts.append(Part("text", _double_quoted(text)))
        elif not node.is_named:
            parts.append(Part("text", text))
            shape.append(text)
        else:
            parts.append(Part("expansion", text))
            shape.append('"')
            self.substitutions(node, subs, depth)

    def gapped(
        self,
        node: tree_sitter.Node,
        start: int,
        end: int,
        parts: list[Part],
        subs: list[Substitution],
        depth: int,
        *,
        gap: Callable[[str], str],
    ) -> None:
        """Decode the quoted text between ``start`` and ``end``: named children are expansions,
        the bytes between them are text."""
        cursor = start
        for child in node.named_children:
            if child.start_byte > cursor:
                parts.append(Part("text", gap(self.slice(cursor, child.start_byte))))
            if child.type in ("string_content", "heredoc_content"):
                parts.append(Part("text", gap(_text(child))))
            else:
                self.parts(child, parts, subs, [], depth)
            cursor = max(cursor, child.end_byte)
        if end > cursor:
            parts.append(Part("text", gap(self.slice(cursor, end))))

    def slice(self, start: int, end: int) -> str:
        return self.source[start:end].decode("utf-8", "replace")

    def substitutions(self, node: tree_sitter.Node, subs: list[Substitution], depth: int) -> None:
        if node.type in _SUBSTITUTIONS:
            kind: Literal["command", "process"] = (
                "command" if node.type == "command_substitution" else "process"
            )
            subs.append(Substitution(kind, Script(tuple(self.statements(node, depth + 1)))))
            return
        for child in node.named_children:
            self.substitutions(child, subs, depth)


def _word(parts: list[Part], subs: list[Substitution], pattern: bool) -> Word:
    merged: list[Part] = []
    for part in parts:
        if merged and part.kind == merged[-1].kind == "text":
            merged[-1] = Part("text", merged[-1].value + part.value)
        else:
            merged.append(part)
    return Word(tuple(merged), tuple(subs), pattern)


def _unquoted(text: str, parts: list[Part], shape: list[str], *, start: bool) -> None:
    """Decode an unquoted word: ``\\x`` is ``x``, ``*`` and ``?`` glob, a leading ``~`` expands."""
    if start and text.startswith("~"):
        end = text.find("/") if "/" in text else len(text)
        parts.append(Part("tilde", text[:end]))
        shape.append('"')
        text = text[end:]
    for token in _UNQUOTED.findall(text):
        if token.startswith("\\"):
            if token != "\\\n":
                parts.append(Part("text", token[1:]))
                shape.append('"')
        else:
            parts.append(Part("glob" if token in "*?" else "text", token))
            shape.append(token)


def _double_quoted(text: str) -> str:
    """Inside double quotes a backslash escapes only ``$``, a backquote, ``"``, ``\\`` and newline."""
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _heredoc_text(text: str) -> str:
    return re.sub(r"\\([$`\\\n])", lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _ansi_c(text: str) -> str:
    """Decode the inside of ``$'…'`` as bash does."""

    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] in "xuU":
            return chr(min(int(code[1:], 16), 0x10FFFF))
        if code[0] in "01234567":
            return chr(int(code, 8) & 0xFF)
        if code[0] == "c" and len(code) == 2:
            return chr(ord(code[1].upper()) ^ 0x40)
        return _C_ESCAPES.get(code, "\\" + code)

    return _C_NUMERIC.sub(one, text)
