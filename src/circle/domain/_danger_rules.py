"""The tables :mod:`._danger` applies: more always-refused programs, inline code, known programs.

Each rule has the shape of :data:`.approvals._REFUSED`'s: it gets where the command runs and the
words after the program name, and says why it refuses, or nothing. The code checks say why a
program runs code the classifier cannot read (``python -c``, ``awk 'BEGIN{system(…)}'``,
``sed 'e …'``), or nothing.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from ._bash import Word

if TYPE_CHECKING:
    from .approvals import _Place

__all__ = ["DEVICE", "KNOWN", "MORE_REFUSED", "RUNNERS", "device", "inline_code"]

Rule = Callable[["_Place", Sequence[Word]], str]


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


DEVICE = re.compile(
    r"/dev/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|r?disk\d|md\d|dm-\d|mapper/|loop\d|sr\d"
    r"|root$|mem$|kmem$|port$|disk/)|/proc/sysrq-trigger$"
)
"""Block devices, memory and the kernel's SysRq trigger: writing any of them is always refused."""


def device(path: str) -> bool:
    """True when ``path`` (``//dev/sda``, ``/dev/./sda``, ``/dev/../dev/sda``) names a :data:`DEVICE`."""
    if not path.startswith("/"):
        return False
    normal = posixpath.normpath(re.sub("/+", "/", path))
    return bool(DEVICE.match(normal))


def _always(what: str) -> Rule:
    return lambda place, args: f"{what} is always refused"


def _unless(reading: str, what: str) -> Rule:
    """Refused unless one of ``reading`` (options that only list or print) is given."""
    allowed = _set(reading)
    return lambda place, args: "" if any(w.text in allowed for w in args) else f"{what} is always refused"


def _parted(place: _Place, args: Sequence[Word]) -> str:
    texts = [w.text for w in args]
    if any(t in ("-l", "--list", "-h", "--help", "-v", "--version") for t in texts):
        return ""
    return "" if texts and texts[-1] == "print" else "partitioning a disk is always refused"


def _shred(place: _Place, args: Sequence[Word]) -> str:
    onto = any(w.literal and device(_absolute(place, w.text)) for w in args)
    return "shredding a disk device is always refused" if onto else ""


def _absolute(place: _Place, text: str) -> str:
    return text if text.startswith("/") or place.cwd is None else f"{place.cwd}/{text}"


def _swapoff(place: _Place, args: Sequence[Word]) -> str:
    every = any(
        w.text == "--all" or (w.text[:1] == "-" and w.text[1:2] != "-" and "a" in w.text) for w in args
    )
    return "turning off every swap area is always refused" if every else ""


_POWER_VERBS = _set(
    "poweroff reboot halt kexec suspend hibernate hybrid-sleep suspend-then-hibernate rescue emergency "
    "soft-reboot sleep"
)
_POWER_TARGETS = _set(
    "poweroff reboot halt kexec rescue emergency soft-reboot ctrl-alt-del exit sleep suspend hibernate "
    "hybrid-sleep suspend-then-hibernate"
)
_UNIT_VERBS = _set("isolate start restart reload-or-restart try-restart default set-default enable --now")


def _systemctl(place: _Place, args: Sequence[Word]) -> str:
    texts = [w.text for w in args if not w.text.startswith("-") or w.text == "--now"]
    if any(t in _POWER_VERBS for t in texts[:1]):
        return f"systemctl {texts[0]} is always refused"
    units = {t.removesuffix(".target") for t in texts[1:]}
    if texts and texts[0] in _UNIT_VERBS and units & _POWER_TARGETS:
        return f"systemctl {texts[0]} of a power or rescue target is always refused"
    return ""


def _loginctl(place: _Place, args: Sequence[Word]) -> str:
    verbs = _set("poweroff reboot halt suspend hibernate hybrid-sleep kexec")
    verb = next((w.text for w in args if not w.text.startswith("-")), "")
    return f"loginctl {verb} is always refused" if verb in verbs else ""


def _kexec(place: _Place, args: Sequence[Word]) -> str:
    return "kexec -e is always refused" if any(w.text in ("-e", "--exec") for w in args) else ""


def _recursive(name: str) -> Rule:
    def rule(place: _Place, args: Sequence[Word]) -> str:
        from .approvals import _recursive_mode

        return _recursive_mode(name)(place, args)

    return rule


MORE_REFUSED: Mapping[str, Rule] = {
    "mkswap": _always("making a swap area"),
    "wipefs": _always("wiping filesystem signatures"),
    "blkdiscard": _always("discarding a disk's blocks"),
    "mkdosfs": _always("making a filesystem"),
    "mkntfs": _always("making a filesystem"),
    "mkexfatfs": _always("making a filesystem"),
    "mke4fs": _always("making a filesystem"),
    "fdisk": _unless("-l --list -h --help -V --version", "partitioning a disk"),
    "sfdisk": _unless(
        "-l --list -d --dump -s --show-size -J --json -h --help -V --version", "partitioning a disk"
    ),
    "cfdisk": _always("partitioning a disk"),
    "gdisk": _unless("-l", "partitioning a disk"),
    "sgdisk": _unless("-p --print -h --help -V --version", "partitioning a disk"),
    "parted": _parted,
    "shred": _shred,
    "swapoff": _swapoff,
    "systemctl": _systemctl,
    "loginctl": _loginctl,
    "kexec": _kexec,
    "chattr": _recursive("chattr"),
    "setfacl": _recursive("setfacl"),
}
"""Always-refused programs beyond :data:`.approvals._REFUSED` (``systemctl`` adds to its rule)."""

RUNNERS: Mapping[str, frozenset[str]] = {
    "script": _set("-c --command"),
    "su": _set("-c --command"),
    "runuser": _set("-c --command"),
    "flock": _set("-c --command"),
    "sg": _set("-c"),
    "xterm": _set("-e"),
    "nix-shell": _set("--run --command"),
}
"""Programs whose option value is a shell script: ``su -c 'rm -rf ~'`` is as refused as its script."""

KNOWN = _set(
    # Read-only and text tools.
    "[ basename cat cd cmp cut df diff dirname du echo egrep expr false fgrep grep head id ls md5sum nl "
    "paste printenv printf pwd readlink realpath rev seq sha1sum sha256sum sha512sum stat tail test tr "
    "true uname wc which whoami date file find rg sed sort tree uniq less more jq yq column fmt fold join "
    "comm split tac tee touch mkdir rmdir cp mv ln install chmod chown chgrp rm unlink truncate awk gawk "
    "mawk xxd od hexdump strings base64 shasum md5 cksum iconv envsubst gettext locale man info type "
    "hash alias unalias export unset set shift read wait jobs fg bg kill trap exit return local declare "
    "typeset readonly let getopts ulimit umask sleep yes clear tput stty history ps pgrep pkill top htop "
    "lsof free uptime hostname tar zip unzip gzip gunzip bzip2 xz zstd 7z ping dig host nslookup curl "
    "wget ssh scp sftp rsync openssl gpg diff3 patch colordiff wdiff dos2unix unix2dos "
    # Version control and build tools with subcommands of their own (git rm, vagrant halt).
    "git hg svn fossil jj make cmake ninja meson bazel buck scons gradle mvn ant sbt lein mix rebar3 "
    "cargo rustc rustup go gcc g++ clang clang++ cc c++ ld ar nm objdump strip gdb lldb javac java "
    "kotlinc swift swiftc dotnet msbuild xcodebuild "
    # Packages, tests, linters, formatters.
    "pip pip3 pipx conda mamba micromamba pytest tox nox ruff mypy pyright black isort flake8 pylint "
    "coverage pre-commit npm pnpm yarn bun deno tsc eslint prettier jest vitest mocha webpack vite "
    "rollup esbuild gem bundle rake composer apt apt-get apt-cache dpkg brew dnf yum pacman apk zypper "
    "snap flatpak nix "
    # Containers, machines and clouds, whose stop/rm/reboot subcommands act on their own objects.
    "docker podman kubectl helm minikube kind vagrant virsh VBoxManage lxc multipass terraform tofu "
    "pulumi ansible aws gcloud az gsutil rclone gh glab dvc"
)
"""Programs known not to run their arguments as a command: their words are not searched for one."""

_PYTHON_REACH = re.compile(
    r"import|__|\bopen\b|\bexec\b|\beval\b|\bcompile\b|getattr|setattr|globals|locals|\bvars\b|breakpoint"
)
_INLINE: Mapping[str, tuple[frozenset[str], frozenset[str]]] = {
    "python": (_set("c"), frozenset()),
    "perl": (_set("e E"), frozenset()),
    "ruby": (_set("e"), frozenset()),
    "node": (_set("e p"), _set("--eval --print")),
    "nodejs": (_set("e p"), _set("--eval --print")),
    "php": (_set("r"), frozenset()),
    "lua": (_set("e"), frozenset()),
    "bun": (_set("e"), _set("--eval --print")),
    "pwsh": (frozenset(), _set("-c -Command -command -EncodedCommand -e")),
    "osascript": (_set("e"), frozenset()),
    "Rscript": (_set("e"), frozenset()),
    "R": (_set("e"), frozenset()),
    "julia": (_set("e E"), _set("--eval --print")),
    "tclsh": (frozenset(), frozenset()),
    "guile": (_set("c"), frozenset()),
    "racket": (_set("e"), _set("--eval")),
    "elixir": (_set("e"), _set("--eval")),
    "groovy": (_set("e"), frozenset()),
}
_AWK = re.compile(r"system\s*\(|(?<!\|)\|(?!\|)|getline|\bprintf?\b[^;}]*>|@load")
_SED_S = re.compile(
    r"s(?P<d>[^\\\n])(?:\\.|(?!(?P=d)).)*(?P=d)(?:\\.|(?!(?P=d)).)*(?P=d)(?P<f>[a-zA-Z0-9]*)", re.S
)
_SED_ADDRESS = r"(?:\d+|\$|/(?:\\.|[^/])*/|\\(.)(?:\\.|.)*?\1)?(?:,(?:\d+|\$|/(?:\\.|[^/])*/|[+~]\d+))?"
_SED_CMD = re.compile(rf"(?:^|[;{{}}\n])\s*{_SED_ADDRESS}\s*!?\s*[ewWrR](?=\s|$)")


def inline_code(program: str, args: Sequence[Word]) -> str:
    """Why ``program args`` runs code that cannot be read (inline, ``awk``'s or ``sed``'s), or nothing."""
    if program in ("awk", "gawk", "mawk", "nawk"):
        return _awk(args)
    if program == "sed":
        return _sed(args)
    if program == "deno" and args and args[0].text == "eval":
        return "deno eval runs inline code that cannot be checked"
    short, long = _INLINE.get(program, (frozenset(), frozenset()))
    for index, word in enumerate(args):
        text = word.text
        if not text.startswith("-") or text == "--":
            break
        key = text.split("=")[0]
        cluster = not text.startswith("--") and any(c in short for c in text[1:])
        if key in long or cluster:
            code = args[index + 1 : index + 2]
            plain = word.literal and bool(code) and code[0].literal
            if program == "python" and plain and not _PYTHON_REACH.search(code[0].text):
                return ""
            return f"{program} {text} runs inline code that cannot be checked"
    return ""


def _awk(args: Sequence[Word]) -> str:
    index = 0
    while index < len(args) and args[index].text.startswith("-") and args[index].text != "--":
        text = args[index].text
        if text in ("-f", "--file", "-E", "--exec", "-i", "--include", "-l", "--load") or text.startswith(
            "-f"
        ):
            return f"awk {text} runs a program file that cannot be checked"
        if text in ("-e", "--source"):
            return _awk_program(args[index + 1 : index + 2])
        index += 2 if text in ("-v", "-F", "--assign", "--field-separator") else 1
    if index < len(args) and args[index].text == "--":
        index += 1
    return _awk_program(args[index : index + 1])


def _awk_program(words: Sequence[Word]) -> str:
    if not words:
        return ""
    if not words[0].literal:
        return "an awk program built from expansions cannot be checked"
    found = _AWK.search(words[0].text)
    return f"awk's {found.group(0).strip()} runs commands or writes files" if found else ""


def _sed(args: Sequence[Word]) -> str:
    scripts: list[Word] = []
    index = 0
    while index < len(args):
        text = args[index].text
        if text in ("-e", "--expression") and index + 1 < len(args):
            scripts.append(args[index + 1])
            index += 2
            continue
        if text.startswith("--expression="):
            scripts.append(Word(args[index].parts))
        elif text in ("-f", "--file") or text.startswith("--file="):
            return "sed -f runs a script file that cannot be checked"
        index += 1
    if not scripts:
        operands = [w for w in args if not w.text.startswith("-")]
        scripts = operands[:1]
    for script in scripts:
        if not script.literal:
            return "a sed script built from expansions cannot be checked"
        text = script.text
        if any("e" in m.group("f") or "w" in m.group("f") for m in _SED_S.finditer(text)):
            return "sed's s///e or s///w runs commands or writes files"
        if _SED_CMD.search(_SED_S.sub("", text)):
            return "sed's e or w commands run commands or write files"
    return ""
