"""Code carried in words, for :mod:`._danger`: option values, traps, aliases, git settings, variables.

A program may run a word it is given as a shell command: ``tar --to-command='…'``, ``zip -TT``,
``gdb -ex 'shell …'``, ``rsync -e``, ``ssh -o ProxyCommand=…``, ``git -c core.sshCommand=…``,
``trap '…' EXIT``, ``alias x='…'``. :func:`words` walks such a word as a nested script: where the
program is known to run it (:data:`_RUNS`, ``trap``, ``alias``, a ``git`` key that runs a program)
its refusal refuses; any other option value or word that reads as a script is walked too, and a
refusal there, a risky script or an unknown program given a protected folder marks the command
risky. :func:`environment` marks risky a variable that makes programs run code of its choosing
(``BASH_ENV``, ``LD_PRELOAD``, ``GIT_SSH_COMMAND``, ``PAGER`` …).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from . import _bash, _danger_rules
from . import approvals as _approvals
from ._bash import Word
from ._danger_values import literal
from .git_config import program_key

if TYPE_CHECKING:
    from .approvals import CommandVerdict, _Scope, _Walk

__all__ = ["environment", "words"]


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_RUNS: Mapping[str, frozenset[str]] = {
    "tar": _set(
        "--to-command -I --use-compress-program --rsh-command --info-script -F --new-volume-script "
        "--checkpoint-action"
    ),
    "zip": _set("-TT --unzip-command"),
    "gdb": _set("-ex --ex -eval-command --eval-command -iex --iex -init-eval-command --init-eval-command"),
    "rsync": _set("-e --rsh --rsync-path"),
    "scp": _set("-S"),
    "sftp": _set("-S"),
}
"""Options whose value the program runs as a command (``tar --to-command``, ``zip -TT``)."""
_SSH = _set("ssh scp sftp autossh sshfs")
_SSH_KEYS = _set("proxycommand localcommand knownhostscommand")
_TEXT = _set(
    "echo printf grep egrep fgrep rg ag ack sed awk gawk mawk nawk jq yq test [ [[ expr cut tr "
    "logger notify-send wall cowsay figlet banner read true false : alias trap"
)
"""Programs whose words are text to print or match, not commands."""
_MESSAGE = re.compile(r"--(?:message|title|body|subject|description|notes|comment|summary)|-[A-Za-z]*m")
"""Options whose value is a message (``git commit -m``, ``gh pr create --body``)."""
_PREFIX = re.compile(r"(?:exec=|shell\s+|!)")
_GIT_VALUES = _set("-C -c --git-dir --work-tree --namespace --super-prefix --config-env --attr-source")
_GIT_RUNS = {
    "rebase": _set("-x --exec"),
    "filter-branch": _set(
        "--tree-filter --index-filter --msg-filter --env-filter --commit-filter --parent-filter "
        "--tag-name-filter"
    ),
    "difftool": _set("-x --extcmd"),
    "mergetool": _set("--tool-cmd"),
}
_ENV = _set(
    "BASH_ENV ENV PROMPT_COMMAND PS0 PS1 PS2 PS4 SHELLOPTS BASHOPTS HOME CDPATH PYTHONSTARTUP PYTHONPATH "
    "PYTHONHOME NODE_OPTIONS NODE_PATH PERL5OPT PERL5LIB PERLLIB PERL5DB RUBYOPT RUBYLIB GIT_SSH "
    "GIT_SSH_COMMAND GIT_EXTERNAL_DIFF GIT_PAGER GIT_EDITOR GIT_SEQUENCE_EDITOR GIT_ASKPASS SSH_ASKPASS "
    "GIT_EXEC_PATH GIT_TEMPLATE_DIR GIT_PROXY_COMMAND GIT_CONFIG GIT_DIR GIT_WORK_TREE PAGER MANPAGER "
    "EDITOR VISUAL FCEDIT BROWSER LESSOPEN LESSCLOSE TAR_OPTIONS RSYNC_RSH RSYNC_CONNECT_PROG GCONV_PATH"
)
_ENV_PREFIXES = ("LD_", "DYLD_", "GIT_CONFIG_", "BASH_FUNC_")


def environment(walk: _Walk, names: Iterable[str]) -> None:
    """Mark risky setting a variable that makes a program run code of its choosing."""
    for name in names:
        if name in _ENV or name.startswith(_ENV_PREFIXES):
            walk.risk(f"setting {name} can make a program run code that cannot be checked")
            return


def words(walk: _Walk, program: str, args: Sequence[Word], scope: _Scope, depth: int) -> None:
    """Walk the words of ``program args`` that it runs, or could run, as a shell command."""
    if program == "trap":
        _trap(walk, args, scope, depth)
    elif program == "alias":
        _alias(walk, args, scope, depth)
    elif program == "shopt" and "-s" in {w.text for w in args} and "expand_aliases" in {w.text for w in args}:
        walk.danger.expand_aliases = True
    elif program == "git":
        _git(walk, args, scope, depth)
    runs = _run_values(program, args)
    for index, value in runs:
        _value(walk, value, scope, depth, what=f"{program} {args[index].text.split('=')[0]}")
    if program in _TEXT or program in _approvals._RUNS_CODE:
        return
    seen = {value.text for _, value in runs}
    for text in _scripts(args):
        if text not in seen and not _bash.parse(text, nesting=depth + 1).error:
            check(walk, text, scope, depth, certain=False)


def check(walk: _Walk, text: str, scope: _Scope, depth: int, *, certain: bool) -> CommandVerdict:
    """Walk ``text`` as a script: refused when ``certain`` and it is refused, else risky when it
    is refused, is risky, or gives an unknown program a protected folder. Its own verdict."""
    from ._danger import sub

    if depth > _bash.MAX_NESTING or len(text) > 10_000:
        walk.risk("a command in a word is nested too deeply to check")
        return _approvals.CommandVerdict("ask", "too deep")
    text = _PREFIX.sub("", text, count=1) if _PREFIX.match(text) else text
    again = sub(walk)
    again.nested(text, scope.copy(), depth)
    if certain:
        walk.refuse(again.refused)
    elif again.refused:
        walk.risk(f"it could run a refused command: {again.refused}")
    walk.risk(again.risky)
    place = walk.place(scope)
    for command in _bash.commands(_bash.parse(text, nesting=depth + 1)):
        argv = _approvals._unwrap(command.words).argv
        name = _approvals._program(argv[0].text) if argv and argv[0].literal else ""
        if not name or name in _danger_rules.KNOWN or name in _approvals._RUNS_CODE:
            continue
        found = next((d for w in argv[1:] if (d := place.danger(w))), "")
        if found:
            walk.risk(f"{argv[0].text} could change {found}")
            break
    return again.verdict()


def _value(walk: _Walk, value: Word, scope: _Scope, depth: int, *, what: str) -> None:
    """An option value the program runs: refused as its script is, risky when known only at run time."""
    if value.literal:
        check(walk, value.text, scope, depth, certain=True)
    else:
        walk.risk(f"{what} runs a command known only at run time")


def _run_values(program: str, args: Sequence[Word]) -> list[tuple[int, Word]]:
    """The values of the options in :data:`_RUNS` (and ssh's command keys), with the option's index."""
    options = _RUNS.get(program, frozenset())
    found: list[tuple[int, Word]] = []
    for index, word in enumerate(args):
        text = word.text
        value = _option_value(word, options, args[index + 1 : index + 2])
        if value is not None:
            found.append((index, value))
        if program in _SSH and text.startswith("-o"):
            setting = text[2:] if len(text) > 2 else (args[index + 1].text if index + 1 < len(args) else "")
            key, _, rest = re.sub(r"^(\w+)\s*=?\s*", r"\1=", setting).partition("=")
            if key.lower() in _SSH_KEYS:
                whole = args[index] if len(text) > 2 else args[index + 1]
                found.append((index, literal(rest) if whole.literal else whole))
    return found


def _option_value(word: Word, options: frozenset[str], following: Sequence[Word]) -> Word | None:
    """The value ``word`` gives one of ``options`` (``--opt=V``, ``--opt V``, ``--op V``, ``-oV``);
    ``word`` itself when that value is not literal; None when it gives none."""
    text = word.text
    if not text.startswith("-") or text in ("-", "--"):
        return None
    name, equals, value = text.partition("=")
    long = [o for o in options if o.startswith("--")]
    if name in options or (name.startswith("--") and len(name) > 4 and any(o.startswith(name) for o in long)):
        if equals:
            return literal(value) if word.literal else word
        return following[0] if following else None
    short = next((o for o in options if len(o) == 2 and text.startswith(o) and len(text) > 2), "")
    if not short or text.startswith("--"):
        return None
    return literal(text[2:]) if word.literal else word


def _scripts(args: Sequence[Word]) -> list[str]:
    """The words that read as a shell command: an option's value after ``=``, a ``KEY=VALUE``'s
    value and any word with blanks, skipping messages (``-m``)."""
    found: list[str] = []
    skip = False
    for word in args[:64]:
        text = word.text
        if skip or not word.literal:
            skip = False
            continue
        skip = bool(_MESSAGE.fullmatch(text))
        name, equals, value = text.partition("=")
        if equals and _MESSAGE.fullmatch(name):
            continue
        keyed = bool(equals and re.fullmatch(r"-{0,2}[\w.-]+", name))
        if keyed and _reads_as_command(value):
            found.append(value)
        elif not keyed and re.search(r"\s", text.strip()):
            found.append(text)
    return found


def _reads_as_command(value: str) -> bool:
    """A value with blanks, a ``!``/``exec=`` prefix, or naming a refused program or a shell."""
    if re.search(r"\s", value.strip()) or _PREFIX.match(value):
        return True
    from ._danger import rules

    program = _approvals._program(value)
    return bool(value) and (bool(rules(program)) or program in _approvals._RUNS_CODE)


def _trap(walk: _Walk, args: Sequence[Word], scope: _Scope, depth: int) -> None:
    """``trap 'CODE' SIGNAL…``: the code runs when the signal comes (``EXIT``: when the shell ends)."""
    operands = [w for w in args if not (w.literal and w.text in ("-p", "-l", "-P"))]
    if operands and operands[0].literal and operands[0].text == "--":
        operands = operands[1:]
    if len(operands) < 2:
        return
    _value(walk, operands[0], scope, depth, what="trap")


def _alias(walk: _Walk, args: Sequence[Word], scope: _Scope, depth: int) -> None:
    """``alias NAME=VALUE``: the value is code a later line may run; risky unless it is read-only."""
    for word in args:
        name, equals, value = word.text.partition("=")
        if not equals or name.startswith("-"):
            continue
        if not word.literal:
            walk.risk(f"the alias {name} stands for code known only at run time")
            continue
        walk.danger.aliases[name] = value
        verdict = check(walk, value, scope, depth, certain=True)
        if verdict.kind != "safe" or verdict.risky:
            walk.risk(f"the alias {name} runs {value[:40]!r} wherever a later command names it")


def _git(walk: _Walk, args: Sequence[Word], scope: _Scope, depth: int) -> None:
    """``git -c KEY=VALUE``: a key that runs a program is risky, and its value (``alias.x=!…``'s
    after the ``!``) is walked; subcommands that run a command they are given are walked too."""
    index = 0
    while index < len(args) and args[index].text.startswith("-") and args[index].text != "--":
        name, equals, value = args[index].text.partition("=")
        word = args[index]
        if name in _GIT_VALUES and not equals and index + 1 < len(args):
            index += 1
            word, value = args[index], args[index].text
        if name in ("-c", "--config-env"):
            _git_setting(walk, value, scope, depth, literal_value=word.literal and name == "-c")
        index += 1
    rest = args[index + (index < len(args) and args[index].text == "--") :]
    sub = rest[0].text if rest else ""
    for position, found in _git_values(sub, rest[1:]) if rest else []:
        _value(walk, found, scope, depth, what=f"git {sub} {rest[1 + position].text.split('=')[0]}")
    if sub == "bisect" and len(rest) > 2 and rest[1].text == "run":
        from ._danger import _again

        _again(walk, rest[2:], scope, depth)
    if sub == "submodule" and "foreach" in [w.text for w in rest[1:3]]:
        after = [w.text for w in rest[1:]]
        check(walk, " ".join(after[after.index("foreach") + 1 :]), scope, depth, certain=True)


def _git_values(sub: str, args: Sequence[Word]) -> list[tuple[int, Word]]:
    options = _GIT_RUNS.get(sub, frozenset())
    found = []
    for index, word in enumerate(args):
        value = _option_value(word, options, args[index + 1 : index + 2])
        if value is not None:
            found.append((index, value))
    return found


def _git_setting(walk: _Walk, setting: str, scope: _Scope, depth: int, *, literal_value: bool) -> None:
    key, _, value = setting.partition("=")
    lowered = key.lower()
    include = bool(re.fullmatch(r"include(?:if\..+)?\.path", lowered))
    if not include and not program_key(f"local\0{lowered}\n{value}\0"):
        return
    walk.risk(f"git -c {key} runs a program that cannot be checked")
    if literal_value and not include:
        check(walk, value[1:] if lowered.startswith("alias.") else value, scope, depth, certain=True)
