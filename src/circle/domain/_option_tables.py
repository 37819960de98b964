"""The option tables of the programs the command classifier knows (:mod:`._getopt` reads them).

Each program's *complete* list of short and long options (coreutils 9.1, grep 3.8, findutils 4.9,
sed 4.9, file 5.44, ripgrep 14.1, util-linux, sudo 1.9), so that an abbreviation resolves to the
option the program would take and an option outside the list is known to be unknown. Each reader
says what its operands are and which of its options write, run a program, name a file it reads,
or make it read recursively; those sets name options by their key (the long name, or the letter
of a short option that has none).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from ._getopt import Options, options

__all__ = ["READERS", "RG", "SED", "WRAPPERS", "Reader"]

Operands = Literal["content", "meta", "none", "pattern"]
"""What a reader's operands are: files whose content it reads, files whose names or metadata it
reads, not files at all, or (grep) a pattern and then files."""


def _keys(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True, slots=True)
class Reader:
    """A program known read-only, save for the options that say otherwise.

    Attributes:
        options: its options.
        operands: what its operands are (:data:`Operands`).
        writes: options that write a file (or the clock).
        runs: options that run another program.
        files: options whose value names a file it reads the content of.
        recursive: options that make it read everything below its operands.
        unsafe: other options that keep it from being safe, with the reason.
        default: the operand it reads when given none (``.`` for ``du``), or empty.
        always_recursive: it reads everything below its operands whatever its options (``du``).
    """

    options: Options
    operands: Operands = "content"
    writes: frozenset[str] = frozenset()
    runs: frozenset[str] = frozenset()
    files: frozenset[str] = frozenset()
    recursive: frozenset[str] = frozenset()
    unsafe: Mapping[str, str] = field(default_factory=dict)
    default: str = ""
    always_recursive: bool = False

    @property
    def dangerous(self) -> bool:
        """True when some option writes, runs a program or is otherwise unsafe."""
        return bool(self.writes or self.runs or self.unsafe)


_INFO = " help version"
_SUMS = "b|binary c|check tag t|text z|zero ignore-missing quiet status strict w|warn" + _INFO
_GREP = options(
    "A:B:C:D:EFGHILPRTUVabcd:e:f:hilm:noqrsvwxyZz",
    "E|extended-regexp F|fixed-strings G|basic-regexp P|perl-regexp e|regexp= f|file= i|y|ignore-case "
    "no-ignore-case w|word-regexp x|line-regexp z|null-data s|no-messages v|invert-match V|version help "
    "m|max-count= b|byte-offset n|line-number line-buffered H|with-filename h|no-filename label= "
    "o|only-matching q|quiet silent binary-files= a|text d|directories= D|devices= r|recursive "
    "R|dereference-recursive include= exclude= exclude-from= exclude-dir= L|files-without-match "
    "l|files-with-matches c|count T|initial-tab Z|null B|before-context= A|after-context= C|context= "
    "group-separator= no-group-separator color? colour? U|binary",
    digits=True,
)
_GREP_READER = Reader(
    _GREP,
    "pattern",
    files=_keys("file exclude-from"),
    recursive=_keys("recursive dereference-recursive"),
)
_LS = options(
    "abcdfghiklmnopqrstuvw:xABCDFGHI:LNQRST:UXZ1",
    "a|all A|almost-all author b|escape block-size= B|ignore-backups color? d|directory D|dired "
    "F|classify? file-type format= full-time group-directories-first G|no-group h|human-readable si "
    "H|dereference-command-line dereference-command-line-symlink-to-dir hide= hyperlink? "
    "indicator-style= i|inode I|ignore= k|kibibytes L|dereference n|numeric-uid-gid N|literal "
    "q|hide-control-chars show-control-chars Q|quote-name quoting-style= r|reverse R|recursive "
    "s|size sort= time= time-style= T|tabsize= w|width= Z|context zero" + _INFO,
)
_DIFF = options(
    "abBcC:dD:eEF:HiI:lL:nNpqrsS:tTuU:vwW:x:X:yZ",
    "normal q|brief s|report-identical-files c|C|context? u|U|unified? e|ed n|rcs y|side-by-side "
    "W|width= left-column suppress-common-lines p|show-c-function F|show-function-line= L|label= "
    "t|expand-tabs T|initial-tab tabsize= suppress-blank-empty l|paginate r|recursive no-dereference "
    "N|new-file unidirectional-new-file ignore-file-name-case no-ignore-file-name-case x|exclude= "
    "X|exclude-from= S|starting-file= from-file= to-file= i|ignore-case E|ignore-tab-expansion "
    "Z|ignore-trailing-space b|ignore-space-change w|ignore-all-space B|ignore-blank-lines "
    "I|ignore-matching-lines= a|text strip-trailing-cr D|ifdef= old-group-format= new-group-format= "
    "unchanged-group-format= changed-group-format= line-format= old-line-format= new-line-format= "
    "unchanged-line-format= d|minimal horizon-lines= H|speed-large-files color? palette= help v|version",
    digits=True,
)
_SORT = options(
    "bcCdfghik:mMno:rRsS:t:T:uVz",
    "b|ignore-leading-blanks d|dictionary-order f|ignore-case g|general-numeric-sort "
    "i|ignore-nonprinting M|month-sort h|human-numeric-sort n|numeric-sort R|random-sort random-source= "
    "r|reverse sort= V|version-sort batch-size= c|check? compress-program= debug files0-from= k|key= "
    "m|merge o|output= s|stable S|buffer-size= t|field-separator= T|temporary-directory= parallel= "
    "u|unique z|zero-terminated" + _INFO,
)
_DU = options(
    "0abd:chHklmst:xB:DLPSX:",
    "0|null a|all apparent-size B|block-size= b|bytes c|total D|dereference-args d|max-depth= "
    "files0-from= h|human-readable inodes L|dereference l|count-links P|no-dereference "
    "S|separate-dirs si s|summarize t|threshold= time? time-style= X|exclude-from= exclude= "
    "x|one-file-system" + _INFO,
)
_FILE = options(
    "bcCde:Ef:F:hiklLm:nNpP:rsSvzZ0",
    "help v|version m|magic-file= z|uncompress Z|uncompress-noreport b|brief c|checking-printout "
    "e|exclude= exclude-quiet= f|files-from= F|separator= i|mime mime-encoding apple extension "
    "mime-type k|keep-going l|list L|dereference h|no-dereference n|no-buffer N|no-pad 0|print0 "
    "p|preserve-date P|parameter= r|raw s|special-files S|no-sandbox C|compile d|debug",
)
_DATE = options(
    "d:f:I::r:Rs:u",
    "d|date= debug f|file= I|iso-8601? resolution R|rfc-email rfc-3339= r|reference= s|set= u|utc universal"
    + _INFO,
)


def _sums(short: str = "bctwz", extra: str = "") -> Reader:
    return Reader(options(short, f"{extra} {_SUMS}"))


READERS: Mapping[str, Reader] = {
    "basename": Reader(options("as:z", "a|multiple s|suffix= z|zero" + _INFO), "none"),
    "cat": Reader(
        options(
            "AbeEnstTuv",
            "A|show-all b|number-nonblank E|show-ends n|number s|squeeze-blank T|show-tabs "
            "v|show-nonprinting" + _INFO,
        )
    ),
    "cmp": Reader(
        options(
            "bi:ln:sv", "b|print-bytes i|ignore-initial= l|verbose n|bytes= s|quiet silent help v|version"
        )
    ),
    "cut": Reader(
        options(
            "b:c:d:f:nsz",
            "b|bytes= c|characters= d|delimiter= f|fields= complement s|only-delimited "
            "output-delimiter= z|zero-terminated" + _INFO,
        )
    ),
    "date": Reader(_DATE, "none", files=_keys("file"), unsafe={"set": "can set the clock"}),
    "df": Reader(
        options(
            "aB:hHiklmPt:Tvx:",
            "a|all B|block-size= h|human-readable H|si i|inodes l|local no-sync output? P|portability "
            "sync total t|type= T|print-type x|exclude-type=" + _INFO,
        ),
        "meta",
    ),
    "diff": Reader(
        _DIFF,
        runs=_keys("paginate"),
        files=_keys("from-file to-file exclude-from"),
        recursive=_keys("recursive"),
    ),
    "dirname": Reader(options("z", "z|zero" + _INFO), "none"),
    "du": Reader(_DU, "meta", files=_keys("files0-from exclude-from"), default=".", always_recursive=True),
    "egrep": _GREP_READER,
    "fgrep": _GREP_READER,
    "file": Reader(
        _FILE,
        writes=_keys("compile preserve-date"),
        files=_keys("files-from magic-file"),
    ),
    "grep": _GREP_READER,
    "head": Reader(
        options(
            "c:n:qvz", "c|bytes= n|lines= q|quiet silent v|verbose z|zero-terminated" + _INFO, digits=True
        )
    ),
    "id": Reader(
        options("agnruzGZ", "Z|context g|group G|groups n|name r|real u|user z|zero" + _INFO), "none"
    ),
    "ls": Reader(_LS, "meta", recursive=_keys("recursive")),
    "b2sum": _sums("bctwzl:", "l|length="),
    "md5sum": _sums(),
    "sha1sum": _sums(),
    "sha224sum": _sums(),
    "sha256sum": _sums(),
    "sha384sum": _sums(),
    "sha512sum": _sums(),
    "nl": Reader(
        options(
            "b:d:f:h:i:l:n:ps:v:w:",
            "b|body-numbering= d|section-delimiter= f|footer-numbering= h|header-numbering= "
            "i|line-increment= l|join-blank-lines= n|number-format= p|no-renumber s|number-separator= "
            "v|starting-line-number= w|number-width=" + _INFO,
        )
    ),
    "paste": Reader(options("d:sz", "d|delimiters= s|serial z|zero-terminated" + _INFO)),
    "printenv": Reader(options("0", "0|null" + _INFO), "none"),
    "readlink": Reader(
        options(
            "efmnqsvz",
            "f|canonicalize e|canonicalize-existing m|canonicalize-missing n|no-newline q|quiet s|silent "
            "v|verbose z|zero" + _INFO,
        ),
        "meta",
    ),
    "realpath": Reader(
        options(
            "eLmPqsz",
            "e|canonicalize-existing m|canonicalize-missing L|logical P|physical q|quiet relative-to= "
            "relative-base= s|strip no-symlinks z|zero" + _INFO,
        ),
        "meta",
    ),
    "rev": Reader(options("Vh", "h|help V|version")),
    "seq": Reader(options("f:s:w", "f|format= s|separator= w|equal-width" + _INFO, digits=True), "none"),
    "sort": Reader(
        _SORT,
        writes=_keys("output temporary-directory"),
        runs=_keys("compress-program"),
        files=_keys("random-source"),
        unsafe={"files0-from": "reads the files a list names, which cannot be checked"},
    ),
    "stat": Reader(
        options("c:fLt", "L|dereference f|file-system c|format= printf= t|terse cached=" + _INFO), "meta"
    ),
    "tail": Reader(
        options(
            "c:n:fFqs:vz",
            "c|bytes= f|follow? max-unchanged-stats= n|lines= pid= q|quiet silent retry "
            "s|sleep-interval= v|verbose z|zero-terminated" + _INFO,
            digits=True,
        )
    ),
    "tree": Reader(
        options(
            "adlfxL:RP:I:H:T:o:psugDFqNQrtvUcSnCAXJhi",
            "help version inodes device noreport nolinks dirsfirst filesfirst matchdirs metafirst "
            "ignore-case prune du si info gitignore charset= filelimit= timefmt= sort= fromfile "
            "fromtabfile gitfile= infofile= hintro= houtro= opt-toggle",
            abbreviate=False,
        ),
        "meta",
        writes=_keys("o R"),
        files=_keys("gitfile infofile hintro houtro"),
        unsafe=dict.fromkeys(("fromfile", "fromtabfile"), "prints what a file holds"),
        default=".",
        always_recursive=True,
    ),
    "tr": Reader(
        options("cCdst", "c|C|complement d|delete s|squeeze-repeats t|truncate-set1" + _INFO), "none"
    ),
    "uname": Reader(
        options(
            "asnrvmpio",
            "a|all s|kernel-name n|nodename r|kernel-release v|kernel-version m|machine p|processor "
            "i|hardware-platform o|operating-system" + _INFO,
        ),
        "none",
    ),
    "uniq": Reader(
        options(
            "Dcdf:is:uw:z",
            "c|count d|repeated D|all-repeated? f|skip-fields= group? i|ignore-case s|skip-chars= "
            "u|unique z|zero-terminated w|check-chars=" + _INFO,
            digits=True,
        )
    ),
    "wc": Reader(
        options("clLmw", "c|bytes m|chars l|lines files0-from= L|max-line-length w|words total=" + _INFO),
        files=_keys("files0-from"),
    ),
    "whoami": Reader(options("", _INFO), "none"),
    "which": Reader(options("as", abbreviate=False), "none"),
    "pwd": Reader(options("LP", abbreviate=False, permute=False), "none"),
}
"""Read-only programs by name, as their options say; ``rg``, ``sed``, ``find``, ``git`` and the
shell's own commands have rules of their own (:mod:`._readers`)."""

SED = options(
    "bEe:f:i::l:nrsuz",
    "n|quiet silent debug e|expression= f|file= follow-symlinks i|in-place? l|line-length= posix "
    "E|r|regexp-extended s|separate sandbox u|unbuffered z|null-data b|binary" + _INFO,
)

RG = options(
    "0A:B:C:E:FHILM:NPSTUVabcd:e:f:g:hij:lm:noqr:pst:uvwxz.",
    "A|after-context= B|before-context= C|context= context-separator= no-context-separator "
    "c|count count-matches b|byte-offset binary no-binary block-buffered no-block-buffered "
    "s|case-sensitive color= colors= column no-column crlf no-crlf debug trace dfa-size-limit= "
    "E|encoding= no-encoding engine= field-context-separator= field-match-separator= f|file= "
    "files l|files-with-matches files-without-match F|fixed-strings no-fixed-strings L|follow "
    "no-follow generate= g|glob= glob-case-insensitive no-glob-case-insensitive heading "
    "no-heading .|hidden no-hidden hostname-bin= hyperlink-format= iglob= i|ignore-case "
    "ignore-file= ignore-file-case-insensitive no-ignore-file-case-insensitive include-zero "
    "no-include-zero v|invert-match no-invert-match json no-json line-buffered no-line-buffered "
    "n|line-number N|no-line-number x|line-regexp M|max-columns= max-columns-preview "
    "no-max-columns-preview m|max-count= d|max-depth= max-filesize= mmap no-mmap U|multiline "
    "no-multiline multiline-dotall no-multiline-dotall no-config no-ignore ignore no-ignore-dot "
    "ignore-dot no-ignore-exclude ignore-exclude no-ignore-files ignore-files no-ignore-global "
    "ignore-global no-ignore-messages ignore-messages no-ignore-parent ignore-parent "
    "no-ignore-vcs ignore-vcs no-messages messages no-pcre2-unicode pcre2-unicode no-require-git "
    "require-git no-unicode unicode 0|null null-data one-file-system no-one-file-system "
    "o|only-matching path-separator= passthru P|pcre2 no-pcre2 pcre2-version pre= no-pre "
    "pre-glob= p|pretty q|quiet regex-size-limit= e|regexp= r|replace= z|search-zip "
    "no-search-zip S|smart-case sort= sortr= stats no-stats stop-on-nonmatch a|text no-text "
    "j|threads= trim no-trim t|type= T|type-not= type-add= type-clear= type-list u|unrestricted "
    "vimgrep H|with-filename I|no-filename w|word-regexp auto-hybrid-regex no-auto-hybrid-regex "
    "h|help V|version",
    abbreviate=False,
)
"""ripgrep's options: it takes long options only as spelled in full."""


WRAPPERS: Mapping[str, Options] = {
    "builtin": options("", permute=False, abbreviate=False),
    "command": options("pvV", permute=False, abbreviate=False),
    "doas": options("a:C:Lnsu:", permute=False, abbreviate=False),
    "env": options(
        "C:iS:u:v0",
        "i|ignore-environment 0|null u|unset= C|chdir= S|split-string= block-signal? default-signal? "
        "ignore-signal? list-signal-handling v|debug" + _INFO,
        permute=False,
    ),
    "exec": options("cla:", permute=False, abbreviate=False),
    "nice": options("n:", "n|adjustment=" + _INFO, permute=False, digits=True),
    "nohup": options("", _INFO, permute=False),
    "setsid": options("cfwhV", "c|ctty f|fork w|wait h|help V|version", permute=False),
    "stdbuf": options("i:o:e:", "i|input= o|output= e|error=" + _INFO, permute=False),
    "sudo": options(
        "Aa:BbC:c:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:Vv",
        "A|askpass b|background B|bell C|close-from= D|chdir= E|preserve-env? e|edit g|group= "
        "H|set-home help host= i|login K|remove-timestamp k|reset-timestamp l|list n|non-interactive "
        "N|no-update P|preserve-groups p|prompt= R|chroot= r|role= S|stdin s|shell t|type= "
        "T|command-timeout= U|other-user= u|user= V|version v|validate",
        permute=False,
    ),
    "time": options(
        "af:o:pqvV",
        "a|append f|format= o|output= p|portability q|quiet v|verbose V|version help",
        permute=False,
    ),
    "timeout": options(
        "k:s:v", "preserve-status foreground k|kill-after= s|signal= v|verbose" + _INFO, permute=False
    ),
    "xargs": options(
        "0a:d:E:e::I:i::L:l::n:oP:prs:tx",
        "0|null a|arg-file= d|delimiter= e|eof? i|replace? L|max-lines= n|max-args= o|open-tty "
        "P|max-procs= p|interactive process-slot-var= r|no-run-if-empty s|max-chars= show-limits "
        "t|verbose x|exit" + _INFO,
        permute=False,
    ),
}
"""The options of the commands that run a command after their own options."""
