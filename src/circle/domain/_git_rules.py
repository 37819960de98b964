"""What a ``git`` command line does, as far as the classifier needs: is it read-only, and does it
change the repository's configuration, hooks or submodules (places that always ask).

git's own option parser (parse-options) takes unique prefixes of long options (``--get-r`` is
``--get-regexp``), so an option is matched against the full list of the subcommand where one is
needed, and for the read-only subcommands any prefix of a dangerous option counts as that option.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._bash import Part, Word
from ._getopt import Options, options, parse

__all__ = ["changes", "read_only"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_READ = _words("status log diff show branch ls-files rev-parse blame describe")
_GLOBAL = _words("--no-pager -P --no-optional-locks --literal-pathspecs --no-replace-objects")
_GLOBAL_VALUES = _words("-C -c --git-dir --work-tree --namespace --super-prefix --config-env")
_BANNED = {
    "-c": "can set options that run commands",
    "--config-env": "can set options that run commands",
    "--exec-path": "runs programs",
}
_DANGEROUS = {
    "output": "writes a file",
    "ext-diff": "runs a program",
    "textconv": "runs a program",
    "exec": "runs a program",
    "no-index": "reads files outside the repository",
    "contents": "reads a file",
    "open-files-in-pager": "runs a program",
}
"""Long options of the read-only subcommands that keep them from being safe; any prefix counts."""

_BRANCH = options(
    "vqt:u:radDmMcClfi",
    "v|verbose q|quiet t|track? u|set-upstream-to= unset-upstream set-upstream color? no-color "
    "r|remotes contains= no-contains= abbrev? no-abbrev a|all d|delete m|move c|copy l|list "
    "show-current create-reflog edit-description f|force merged= no-merged= column? no-column "
    "sort= points-at= i|ignore-case recurse-submodules format= omit-empty",
)
_BRANCH = Options({**_BRANCH.short, "t": ""}, _BRANCH.long, _BRANCH.alias)
_BRANCH_LISTING = _words(
    "a r v l i all remotes verbose list show-current color no-color ignore-case no-abbrev abbrev "
    "column no-column sort format omit-empty merged no-merged contains no-contains points-at"
)
_BRANCH_CONFIG = _words("track set-upstream-to unset-upstream set-upstream edit-description")
_CONFIG = options(
    "f:lezt:",
    "global system local worktree f|file= blob= get get-all get-regexp get-urlmatch replace-all add "
    "unset unset-all rename-section remove-section l|list fixed-value e|edit get-color get-colorbool "
    "t|type= no-type bool int bool-or-int bool-or-str path expiry-date z|null name-only includes "
    "no-includes show-origin show-scope default=",
)
_CONFIG_READS = _words("get get-all get-regexp get-urlmatch get-color get-colorbool list")
_CONFIG_WRITES = _words("replace-all add unset unset-all rename-section remove-section edit")
_INIT = options("qb:c:", "template= bare shared? q|quiet separate-git-dir= b|initial-branch= object-format=")
_CLONE = options(
    "vqnlsj:o:b:u:c:46",
    "v|verbose q|quiet progress reject-shallow n|no-checkout bare mirror l|local no-hardlinks "
    "s|shared recurse-submodules? recursive? j|jobs= template= reference= reference-if-able= "
    "dissociate o|origin= b|branch= u|upload-pack= depth= shallow-since= shallow-exclude= "
    "single-branch no-single-branch no-tags tags shallow-submodules separate-git-dir= c|config= "
    "server-option= 4|ipv4 6|ipv6 filter= also-filter-submodules remote-submodules sparse bundle-uri=",
)
_SUBMODULE_READS = _words("status summary foreach")


def _split(args: Sequence[str]) -> tuple[str, list[str]]:
    """The subcommand after git's own options (empty when none) and its arguments."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        option, equals, _ = args[index].partition("=")
        index += 1
        if option in _GLOBAL_VALUES and not equals:
            index += 1
    if index >= len(args):
        return "", []
    return args[index], list(args[index + 1 :])


def read_only(args: Sequence[str]) -> str:
    """Empty when ``git args`` is known read-only, else why not."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        option = args[index].split("=")[0]
        if option not in _GLOBAL:
            return f"git {option} {_BANNED.get(option, 'is not checked')}"
        index += 1
    if index == len(args):
        return ""
    sub, rest = args[index], args[index + 1 :]
    if sub not in _READ:
        return f"git {sub} is not known to be read-only"
    for arg in rest:
        if arg == "--":
            break
        name = arg[2:].split("=")[0] if arg.startswith("--") else ""
        danger = next((d for d in _DANGEROUS if name and d.startswith(name)), "")
        if danger:
            return f"git {sub} {arg.split('=')[0]} {_DANGEROUS[danger]}"
    return _branch(rest) if sub == "branch" else ""


def _branch(rest: Sequence[str]) -> str:
    parsed = parse([Word((Part("text", a),)) for a in rest], _BRANCH)
    if parsed.error:
        return f"git branch {parsed.error}"
    for found in parsed.found:
        if found.key not in _BRANCH_LISTING:
            return f"git branch {found.named} changes branches"
    listing = parsed.has("l", "list")
    if parsed.operands and not listing:
        return "git branch with a name changes branches"
    return ""


def changes(args: Sequence[str]) -> list[Word]:
    """The always-ask places ``git args`` changes (``.git/config``, ``.git/hooks``, ``.gitmodules``,
    ``.git``, ``~/.gitconfig`` or the file ``git config -f`` names)."""
    sub, rest = _split(args)
    words = [Word((Part("text", a),)) for a in rest]
    if sub == "config":
        return _config(words)
    if sub == "remote":
        listing = not rest or rest[0] in ("-v", "--verbose", "show", "get-url")
        return [] if listing else [_text(".git/config")]
    if sub == "submodule":
        operands = [a for a in rest if not a.startswith("-")]
        return [] if not operands or operands[0] in _SUBMODULE_READS else [_text(".gitmodules")]
    if sub == "worktree":
        return [_text(".git")] if rest[:1] == ["add"] else []
    if sub in ("init", "clone"):
        parsed = parse(words, _INIT if sub == "init" else _CLONE)
        if parsed.error or parsed.has("template"):
            return [_text(".git/hooks")]
        if parsed.has("config", "separate-git-dir"):
            return [_text(".git/config")]
        return []
    if sub == "branch":
        parsed = parse(words, _BRANCH)
        return [_text(".git/config")] if parsed.error or parsed.has(*_BRANCH_CONFIG) else []
    return []


def _config(words: Sequence[Word]) -> list[Word]:
    parsed = parse(words, _CONFIG)
    operands = [words[i].text for i in parsed.operands]
    if operands[:1] in (["get"], ["list"]) and not parsed.has(*_CONFIG_WRITES):
        return []
    reads = parsed.has(*_CONFIG_READS)
    if not parsed.error and not parsed.has(*_CONFIG_WRITES) and (reads or len(operands) <= 1):
        return []
    if parsed.has("global"):
        return [Word((Part("tilde", "~"), Part("text", "/.gitconfig")))]
    files = parsed.values("file")
    return files[-1:] if files else [_text(".git/config")]


def _text(text: str) -> Word:
    return Word((Part("text", text),))
