"""Options as the programs read them, and what a command's verdict says it reads and writes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from circle.domain._bash import Command, Word
from circle.domain._bash import parse as parse_bash
from circle.domain._getopt import Options, options, parse
from circle.domain._option_tables import READERS, RG, WRAPPERS
from circle.domain.approvals import CommandVerdict, PathAccess, classify_command

WORKSPACE = "/home/ana/project"
HOME = "/home/ana"
DATA = "/home/ana/.local/share/circle"


def classify(command: str, *, workspace: str = WORKSPACE) -> CommandVerdict:
    return classify_command(command, workspace=workspace, home=HOME, data_dir=DATA)


def words(line: str) -> tuple[Word, ...]:
    command = parse_bash(line).pipelines[0].stages[0]
    assert isinstance(command, Command)
    return command.words


def unique_prefixes(table: Options, name: str) -> list[str]:
    """Every abbreviation of ``name`` that ``table`` resolves to it (the full name included)."""
    out = []
    for end in range(1, len(name) + 1):
        prefix = name[:end]
        if prefix == name or [n for n in table.long if n.startswith(prefix)] == [name]:
            out.append(prefix)
    return out


# --- The parser -----------------------------------------------------------------------------

SORT = READERS["sort"].options


@pytest.mark.parametrize(
    ("line", "key", "value"),
    [
        ("sort --output=x", "output", "x"),
        ("sort --output x", "output", "x"),
        ("sort --o=x", "output", "x"),
        ("sort --outp x", "output", "x"),
        ("sort -ox", "output", "x"),
        ("sort -o x", "output", "x"),
        ("sort -ru", "output", None),
        ("sort a --output=x b", "output", "x"),
        ("sort --check=quiet", "check", "quiet"),
    ],
)
def test_options_resolve_as_getopt_long_does(line: str, key: str, value: str | None) -> None:
    parsed = parse(words(line)[1:], SORT)
    assert not parsed.error
    assert parsed.has(key) == (value is not None)
    if value is not None:
        assert [v.text for v in parsed.values(key)] == [value]


def test_an_optional_value_is_taken_only_after_an_equals_sign() -> None:
    parsed = parse(words("sort --check quiet")[1:], SORT)
    assert parsed.has("check")
    assert [words("sort --check quiet")[i + 1].text for i in parsed.operands] == ["quiet"]


def test_an_exact_name_wins_over_a_longer_one() -> None:
    table = options("", "exec exec-path")
    assert table.resolve("exec") == ("exec", "")
    assert table.resolve("exec-") == ("exec-path", "")
    assert "ambiguous" in table.resolve("ex")[1]


def test_double_dash_ends_options_and_a_lone_dash_is_an_operand() -> None:
    args = words("sort -r - -- -o x")[1:]
    parsed = parse(args, SORT)
    assert not parsed.has("output")
    assert [args[i].text for i in parsed.operands] == ["-", "-o", "x"]


def test_a_wrapper_stops_at_its_first_operand() -> None:
    args = words("nice --adj 5 rm -rf ~")[1:]
    parsed = parse(args, WRAPPERS["nice"])
    assert parsed.values("adjustment")[0].text == "5"
    assert args[parsed.end].text == "rm"


def test_ripgrep_takes_only_full_names() -> None:
    assert RG.resolve("pre")[0] == "pre"
    assert RG.resolve("pr")[1]


# --- Abbreviations of dangerous options ---------------------------------------------------------

DANGEROUS = [
    (program, name)
    for program, reader in READERS.items()
    for name in sorted(reader.writes | reader.runs | set(reader.unsafe))
    if len(name) > 1
]


def _spelling(program: str, name: str, prefix: str) -> str:
    arity = READERS[program].options.long[name]
    return f"--{prefix}=pwned" if arity else f"--{prefix}"


@pytest.mark.parametrize(("program", "name"), DANGEROUS)
def test_every_abbreviation_of_a_dangerous_option_is_not_safe(program: str, name: str) -> None:
    for prefix in unique_prefixes(READERS[program].options, name):
        verdict = classify(f"{program} {_spelling(program, name, prefix)} notes.txt")
        assert verdict.kind != "safe", (program, prefix)


@given(st.sampled_from(DANGEROUS), st.integers(0, 3), st.data())
@settings(max_examples=150, deadline=None)
def test_a_dangerous_option_anywhere_among_operands_is_not_safe(
    case: tuple[str, str], position: int, data: st.DataObject
) -> None:
    program, name = case
    prefix = data.draw(st.sampled_from(unique_prefixes(READERS[program].options, name)))
    argv = ["a.txt", "b.txt", "c.txt"]
    argv.insert(min(position, len(argv)), _spelling(program, name, prefix))
    assert classify(" ".join([program, *argv])).kind != "safe"


WRAPPED = [(wrapper, name) for wrapper, table in WRAPPERS.items() for name in table.long]


@pytest.mark.parametrize(("wrapper", "name"), WRAPPED)
def test_every_abbreviation_of_a_wrappers_options_still_sees_the_command(wrapper: str, name: str) -> None:
    table = WRAPPERS[wrapper]
    operand = " 5" if wrapper == "timeout" else ""
    for prefix in unique_prefixes(table, name):
        if name == "split-string":
            command = f"{wrapper} --{prefix}='rm -rf ~'"
        elif table.long[name] == "=":
            command = f"{wrapper} --{prefix} VALUE{operand} rm -rf ~"
        else:
            command = f"{wrapper} --{prefix}{operand} rm -rf ~"
        verdict = classify(command)
        if wrapper == "sudo" and name in ("edit", "list", "validate", "remove-timestamp", "version"):
            assert verdict.kind != "safe", command
        else:
            assert verdict.kind == "refuse", command


@pytest.mark.parametrize(
    "command",
    [
        "sort --s names.txt",  # --sort or --stable
        "sort --c names.txt",  # --check or --compress-program
        "grep --co x f",  # --color, --colour, --context, --count
        "ls --h",
        "cat --zzz f",
        "head --bogus=1 f",
        "env --s",
        "wc -Q f",
        "rg --pr foo",  # rg takes no abbreviations
    ],
)
def test_ambiguous_and_unknown_options_are_not_safe(command: str) -> None:
    assert classify(command).kind != "safe"


@given(st.sampled_from(sorted(READERS)), st.text("abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=12))
@settings(max_examples=300, deadline=None)
def test_a_long_option_a_program_does_not_know_is_not_safe(program: str, name: str) -> None:
    table = READERS[program].options
    if table.resolve(name)[1] and "=" not in name:
        assert classify(f"{program} --{name} notes.txt").kind != "safe"


# --- Paths ----------------------------------------------------------------------------------

HOME_SPELLINGS = ["~", "$HOME", "${HOME}", '"$HOME"', "/home/ana/", "/home/ana/.", "/home//ana", "../.."]


@pytest.mark.parametrize("home", HOME_SPELLINGS)
def test_every_spelling_of_a_path_reads_and_writes_the_same_entry(home: str) -> None:
    workspace = "/home/ana/work/project"
    read = classify(f"cat {home}/.bashrc", workspace=workspace)
    assert read.kind == "safe", read.reason
    assert read.reads == (PathAccess("/home/ana/.bashrc"),)
    written = classify(f"echo hi > {home}/notes.txt", workspace=workspace)
    assert written.writes == (PathAccess("/home/ana/notes.txt"),)


READS = [
    ("cat < .env", [PathAccess("/home/ana/project/.env")]),
    ("cat .[^.]*", [PathAccess("/home/ana/project/.[!.]*", glob=True)]),
    ("cat deploy/*", [PathAccess("/home/ana/project/deploy/*", glob=True)]),
    ("cat 'a*'*", [PathAccess("/home/ana/project/a[*]*", glob=True)]),
    ("grep -r SALT .", [PathAccess(WORKSPACE, recursive=True)]),
    ("grep -r SALT", [PathAccess(WORKSPACE, recursive=True)]),
    ("grep --dereference-rec SALT src", [PathAccess(WORKSPACE + "/src", recursive=True)]),
    ("grep --dir=recurse SALT src", [PathAccess(WORKSPACE + "/src", recursive=True)]),
    ("grep -d recurse SALT", [PathAccess(WORKSPACE, recursive=True)]),
    ("grep -e SALT a b", [PathAccess(WORKSPACE + "/a"), PathAccess(WORKSPACE + "/b")]),
    (
        "grep -f ~/.pats x notes",
        [PathAccess(WORKSPACE + "/x"), PathAccess(WORKSPACE + "/notes"), PathAccess("/home/ana/.pats")],
    ),
    ("grep --file=pats notes", [PathAccess(WORKSPACE + "/notes"), PathAccess(WORKSPACE + "/pats")]),
    ("grep --exclude-f=ex -r x", [PathAccess(WORKSPACE, recursive=True), PathAccess(WORKSPACE + "/ex")]),
    ("rg SALT", [PathAccess(WORKSPACE, recursive=True)]),
    (
        "rg -n SALT src ~/x",
        [PathAccess(WORKSPACE + "/src", recursive=True), PathAccess("/home/ana/x", recursive=True)],
    ),
    (
        "diff -rN src .",
        [PathAccess(WORKSPACE + "/src", recursive=True), PathAccess(WORKSPACE, recursive=True)],
    ),
    ("diff --from-file=a b", [PathAccess(WORKSPACE + "/b"), PathAccess(WORKSPACE + "/a")]),
    ("wc --files0-from=list", [PathAccess(WORKSPACE + "/list")]),
    ("md5sum -c sums.txt", [PathAccess(WORKSPACE + "/sums.txt")]),
    ("sed -n 5p notes.txt", [PathAccess(WORKSPACE + "/notes.txt")]),
    ("ls -la src", [PathAccess(WORKSPACE + "/src", content=False)]),
    ("ls -R", []),
    ("stat x", [PathAccess(WORKSPACE + "/x", content=False)]),
    ("du -sh", [PathAccess(WORKSPACE, recursive=True, content=False)]),
    ("find src -name '*.py'", [PathAccess(WORKSPACE + "/src", recursive=True, content=False)]),
    ("test -f setup.py", [PathAccess(WORKSPACE + "/setup.py", content=False)]),
    ("cd src && cat ../README.md", [PathAccess(WORKSPACE + "/README.md")]),
    ("date -f dates.txt", [PathAccess(WORKSPACE + "/dates.txt")]),
    ("echo $HOME; printf '%s' $USER", []),
]


@pytest.mark.parametrize(("command", "reads"), READS)
def test_a_safe_verdict_lists_what_the_command_reads(command: str, reads: list[PathAccess]) -> None:
    verdict = classify(command)
    assert verdict.kind == "safe", verdict.reason
    assert list(verdict.reads) == reads


NOT_LITERAL = [
    ("cat $FILE", "cat with expanded arguments cannot be checked"),
    ("grep $PATTERN notes", "grep with expanded arguments cannot be checked"),
    ("head -n $N notes", "head with expanded arguments cannot be checked"),
    ("cat ~root/.bashrc", "cat with expanded arguments cannot be checked"),
    ("cat {a,b}.txt", "cat with expanded arguments cannot be checked"),
    ("cat < $FILE", "cannot be told before it runs"),
    ("ls -A | xargs cat", "cat with arguments from xargs cannot be checked"),
    ("sort * ", "sort of a glob that could expand to an option cannot be checked"),
    ("cd $X && cat notes", "cannot be told before it runs"),
    ("sort --files0-from=list", "sort --files0-from reads the files a list names"),
    ("xargs -a .env echo", "xargs --arg-file reads a file"),
    ("git diff --no-index /etc/passwd x", "git diff --no-index reads files outside the repository"),
    ("git diff --no-in a b", "git diff --no-in reads files outside the repository"),
    ("git log --outp=x", "git log --outp writes a file"),
    ("git blame --cont x f", "git blame --cont reads a file"),
]


@pytest.mark.parametrize(("command", "reason"), NOT_LITERAL)
def test_what_a_reader_reads_must_be_known_before_it_runs(command: str, reason: str) -> None:
    verdict = classify(command)
    assert verdict.kind == "ask"
    assert reason in verdict.reason


def test_writes_are_absolute_and_normalized() -> None:
    verdict = classify("cd src && echo x > ../out.txt && cp -r a ~/backup && rm -rf build")
    assert verdict.writes == (
        PathAccess(WORKSPACE + "/out.txt"),
        PathAccess("/home/ana/backup", recursive=True),
        PathAccess(WORKSPACE + "/src/build", recursive=True),
    )


def test_git_dirs_are_where_each_read_only_git_runs() -> None:
    verdict = classify("git status && cd src && git log -1 && (cd /tmp && git diff)")
    assert verdict.kind == "safe"
    assert verdict.git_dirs == (WORKSPACE, WORKSPACE + "/src", "/tmp")
    assert classify("cd $X && git status").kind == "ask"
