"""Credential files: which paths Circle's tools and commands must not read or change.

A path is judged on its parts and its name, case-insensitively (a file system may not tell ``.ENV``
from ``.env``). The tools judge the path as written and the path with symlinks resolved.

Credential files:

- dotenv files: ``.env`` and ``.env.*``, except the templates ``.env.example``, ``.env.sample`` and
  ``.env.template``, which projects commit and which hold no real values; and ``.envrc`` (direnv),
  which is shell code that commonly exports tokens.
- keys and stores: ``*.pem``, ``*.key``, ``*.p12``, ``*.pfx``, ``*.jks``, ``*.keystore``, ``*.ppk``,
  and SSH keys ``id_rsa*``, ``id_ed25519*``, ``id_ecdsa*``, ``id_dsa*`` (the ``.pub`` halves too: the
  rule goes by name, and ``id_rsa.bak`` is as secret as ``id_rsa``).
- anything in a ``.ssh`` or ``.gnupg`` folder, and those folders themselves.
- login files: ``.netrc`` (``_netrc``), ``.pgpass``, ``.git-credentials``, ``.npmrc``, ``.pypirc``,
  ``.htpasswd``, ``.aws/credentials`` (not ``.aws/config``), ``.docker/config.json``, ``.kube/config``
  and ``.config/gh/hosts.yml``.
- secret stores by name: ``credentials.json``, ``secrets.json`` and ``*.secrets.json``; Circle's own
  data-folder files ``credentials.json`` and ``secrets.json`` and its extensions' secret files are
  among them.
- what the kernel shows of a process: ``/proc/<pid>/environ``, ``cmdline``, ``mem``, ``fd/*`` and
  ``map_files/*`` (``<pid>`` being a number, ``self``, ``thread-self``, a glob or anything else, and
  ``/proc/<pid>/task/<tid>/...`` the same), and ``/dev/fd/*`` and ``/dev/std{in,out,err}``.
  ``/proc/<pid>/root/<rest>`` is judged as ``/<rest>`` and ``/proc/<pid>/cwd/<rest>`` as ``<rest>``.

Names are matched whole or by suffix, never by substring: ``monkey.py``, ``pem.txt``,
``README.key.md`` and ``environment.py`` are ordinary files.

A hard link has any name: the application compares a file with more than one link by inode with the
credential files it knows, among them the :data:`HOME_CREDENTIAL_PLACES` of the home folder.

For commands, :func:`command_words` splits a command line with :mod:`shlex` and
:func:`credential_words` picks the words that name credential files. This is a best effort against
mistakes, not an operating-system sandbox: ``grep -r KEY .`` still reads a ``.env`` below ``.``.
"""

from __future__ import annotations

import fnmatch
import shlex
from collections.abc import Iterable, Sequence

TEMPLATE_SUFFIXES = ("example", "sample", "template")
"""``.env.<suffix>`` names that are templates, not credentials."""

_NAMES = frozenset(
    {
        ".env",
        ".envrc",
        ".netrc",
        "_netrc",
        ".pgpass",
        ".git-credentials",
        ".npmrc",
        ".pypirc",
        ".htpasswd",
        "credentials.json",
        "secrets.json",
    }
)
_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk", ".secrets.json")
_KEY_PREFIXES = ("id_rsa", "id_ed25519", "id_ecdsa", "id_dsa")
_FOLDERS = frozenset({".ssh", ".gnupg"})
_TAILS = (
    (".aws", "credentials"),
    (".docker", "config.json"),
    (".kube", "config"),
    (".config", "gh", "hosts.yml"),
)
_MAGIC = frozenset("*?[")
_PROC_FILES = frozenset({"environ", "cmdline", "mem"})
_PROC_FOLDERS = frozenset({"fd", "map_files"})
_STD_STREAMS = frozenset({"stdin", "stdout", "stderr"})

HOME_CREDENTIAL_PLACES = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".kube",
    ".docker",
    ".password-store",
    ".local/share/keyrings",
    ".netrc",
    "_netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".vault-token",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".terraform.d/credentials.tfrc.json",
)
"""Where a home folder keeps credentials, relative to it; a folder stands for all below it. The file
tools compare links with these by inode, and the sandbox shows each one empty."""

DATA_CREDENTIAL_PLACES = ("credentials.json", "secrets.json", "extension_secrets")
"""Circle's own credential files, relative to its data folder; a folder stands for all below it."""
_SAMPLES = (
    *sorted(_NAMES),
    ".env.local",
    ".env.production",
    "server.pem",
    "server.key",
    "cert.p12",
    "cert.pfx",
    "store.jks",
    "release.keystore",
    "putty.ppk",
    "tool.secrets.json",
    *_KEY_PREFIXES,
)
"""Names that stand for every rule, for judging a glob in a command."""


def _parts(path: str) -> list[str]:
    return [part.lower() for part in path.split("/") if part not in ("", ".")]


def _is_credential_name(name: str) -> bool:
    if name in _NAMES or name.endswith(_SUFFIXES):
        return True
    if name.startswith(".env."):
        return name.removeprefix(".env.") not in TEMPLATE_SUFFIXES
    return name.startswith(_KEY_PREFIXES)


def is_credential_path(path: str) -> bool:
    """True when ``path`` (absolute or relative, resolved or as written) is a credential file.

    Examples:
        >>> is_credential_path("/w/.env.local"), is_credential_path("/w/.env.example")
        (True, False)
    """
    parts = _parts(path)
    if not parts:
        return False
    if path.startswith("/") and (kernel := _kernel_verdict(parts)) is not None:
        return kernel
    if _FOLDERS.intersection(parts):
        return True
    if any(tuple(parts[-len(tail) :]) == tail for tail in _TAILS):
        return True
    return _is_credential_name(parts[-1])


def _kernel_verdict(parts: list[str]) -> bool | None:
    """The verdict on an absolute path below ``/proc`` or ``/dev``; None when it is neither.

    Examples:
        >>> _kernel_verdict(["proc", "self", "environ"]), _kernel_verdict(["proc", "1", "status"])
        (True, False)
    """
    if parts[0] == "dev":
        if len(parts) == 2 and parts[1] in _STD_STREAMS:
            return True
        return (len(parts) > 2 and parts[1] == "fd") or None
    if parts[0] != "proc" or len(parts) < 3:
        return None
    rest = parts[2:]
    if len(rest) > 2 and rest[0] == "task":  # /proc/<pid>/task/<tid>/... mirrors /proc/<pid>/...
        rest = rest[2:]
    head = rest[0]
    if head in _PROC_FILES or (head in _PROC_FOLDERS and len(rest) > 1):
        return True
    if head == "root" and len(rest) > 1:
        return is_credential_path("/" + "/".join(rest[1:]))
    if head == "cwd" and len(rest) > 1:
        return is_credential_path("/".join(rest[1:]))
    return None


def credential_globs() -> tuple[str, ...]:
    """Globs (ripgrep's rules, to be matched case-insensitively) that exclude every credential file.

    A glob without ``/`` matches a name at any depth, folders included; ``.env.*`` is spelled out so
    that the templates in :data:`TEMPLATE_SUFFIXES` stay searchable.
    """
    names = sorted(_NAMES) + [f"*{suffix}" for suffix in _SUFFIXES] + [f"{p}*" for p in _KEY_PREFIXES]
    tails = [f"**/{'/'.join(tail)}" for tail in _TAILS]
    return (*names, *sorted(_FOLDERS), *tails, *_all_but(".env.", "", TEMPLATE_SUFFIXES))


def _all_but(prefix: str, rest: str, words: Sequence[str]) -> list[str]:
    """Globs matching ``prefix + rest + anything`` except ``prefix`` and one of ``words`` exactly.

    Every word starts with ``rest``. ``[!...]`` spells "any other next character".
    """
    globs = [] if rest in words else [prefix + rest]
    following = sorted({word[len(rest)] for word in words if len(word) > len(rest)})
    globs.append(f"{prefix}{rest}[!{''.join(following)}]*" if following else f"{prefix}{rest}?*")
    for char in following:
        globs += _all_but(prefix, rest + char, [w for w in words if w.startswith(rest + char)])
    return globs


def _glob_names_credential(pattern: str) -> bool:
    """Whether a shell glob in a command could match a credential file (judged on sample names).

    A name made only of wildcards (``*``) is too broad to judge and is let through.
    """
    name = pattern.rsplit("/", 1)[-1].lower()
    if not name or not set(name) - set("*?"):
        return False
    samples = _SAMPLES if name.startswith(".") else [s for s in _SAMPLES if not s.startswith(".")]
    return any(fnmatch.fnmatchcase(sample, name) for sample in samples)


def _candidates(word: str) -> list[str]:
    """The word, and what follows ``=`` (``--file=.env``, ``X=.env``) or the last ``:`` (``host:.ssh``)."""
    found = [word]
    if "=" in word:
        found.append(word.split("=", 1)[1])
    if ":" in word:
        found.append(word.rsplit(":", 1)[1])
    return [c.rstrip("/") for c in found if c.strip("/")]


def credential_words(words: Iterable[str]) -> list[str]:
    """The words of a command that name credential files, in order.

    Examples:
        >>> credential_words(["cp", "~/.ssh/id_rsa", "x"])
        ['~/.ssh/id_rsa']
    """
    named = []
    for word in words:
        for candidate in _candidates(word):
            hit = is_credential_path(candidate) or (
                bool(_MAGIC.intersection(candidate)) and _glob_names_credential(candidate)
            )
            if hit:
                named.append(word)
                break
    return named


_PUNCTUATION = frozenset("();<>|&")


def command_words(command: str) -> list[list[str]]:
    """The words of each simple command in a command line; ``[]`` when it cannot be split.

    Commands are separated by ``;``, ``|``, ``&&``, ``||``, ``&`` and parentheses; redirection
    operators are dropped and their targets kept as words (``cat < .env`` -> ``[["cat", ".env"]]``).
    """
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return []
    commands: list[list[str]] = []
    current: list[str] = []
    for token in tokens:
        if token and set(token) <= _PUNCTUATION:
            if "<" in token or ">" in token:
                continue
            if current:
                commands.append(current)
            current = []
            continue
        current.append(token)
    if current:
        commands.append(current)
    return commands


__all__ = [
    "DATA_CREDENTIAL_PLACES",
    "HOME_CREDENTIAL_PLACES",
    "TEMPLATE_SUFFIXES",
    "command_words",
    "credential_globs",
    "credential_words",
    "is_credential_path",
]
