"""Which paths and command words name credential files."""

from __future__ import annotations

import fnmatch

import pytest

from circle.domain.credentials import command_words, credential_globs, credential_words, is_credential_path

CREDENTIALS = [
    ".env",
    "/w/.env",
    "/w/app/.env.local",
    "/w/.env.production",
    "/w/.ENV",
    "/w/.envrc",
    "/w/certs/server.pem",
    "/w/certs/server.key",
    "/w/store.p12",
    "/w/store.pfx",
    "/w/android/release.keystore",
    "/w/app.jks",
    "/w/putty.ppk",
    "id_rsa",
    "/w/keys/id_rsa.pub",
    "/w/keys/id_ed25519",
    "/w/id_ecdsa_sk",
    "/w/id_dsa",
    "/home/me/.ssh/config",
    "/home/me/.ssh/known_hosts",
    "~/.ssh",
    "/home/me/.gnupg/pubring.kbx",
    "/home/me/.aws/credentials",
    "/home/me/.netrc",
    "/home/me/_netrc",
    "/home/me/.pgpass",
    "/home/me/.git-credentials",
    "/w/.npmrc",
    "/home/me/.pypirc",
    "/w/.htpasswd",
    "/home/me/.docker/config.json",
    "/home/me/.kube/config",
    "/home/me/.config/gh/hosts.yml",
    "/w/credentials.json",
    "/w/secrets.json",
    "/home/me/.circle/extension_secrets/github.secrets.json",
    "/data/circle/credentials.json",
    "/w/.env.example.local",
    "/w/.env.",
]
ORDINARY = [
    "/w/.env.example",
    "/w/.env.sample",
    "/w/.env.template",
    "/w/environment.py",
    "/w/keyboard.py",
    "/w/monkey.py",
    "/w/pem.txt",
    "/w/README.key.md",
    "/w/keys.py",
    "/w/src/env/settings.py",
    "/w/.environment",
    "/w/docs/ssh.md",
    "/w/.aws/config",
    "/w/config.json",
    "/w/hosts.yml",
    "/w/secrets.json.md",
    "/w/my_secrets.py",
    "/w/tokens.txt",
    "/w/id_card.png",
    "/w/server.crt",
    "/w",
    "",
]


KERNEL_CREDENTIALS = [
    "/proc/self/environ",
    "/proc/1234/environ",
    "/proc/thread-self/environ",
    "/proc/*/environ",
    "/proc/self/cmdline",
    "/proc/77/mem",
    "/proc/self/fd/3",
    "/proc/1/fd/0",
    "/proc/self/map_files/7f00-7f01",
    "/proc/12/task/13/environ",
    "/proc/self/task/9/fd/1",
    "/dev/fd/0",
    "/dev/fd/5",
    "/dev/stdin",
    "/proc/self/root/home/me/.ssh/id_rsa",
    "/proc/1/root/w/.env",
    "/proc/self/root/proc/self/environ",
    "/proc/self/cwd/.env",
    "/proc/self/cwd/app/secrets.json",
]
KERNEL_ORDINARY = [
    "/proc/self/status",
    "/proc/cpuinfo",
    "/proc/cmdline",
    "/proc/self/fd",
    "/proc/self/root",
    "/proc/self/root/etc/hostname",
    "/proc/self/cwd/src/main.py",
    "/dev/null",
    "/dev/fd",
    "/w/proc/self/environ",
    "proc/self/status",
]


@pytest.mark.parametrize("path", KERNEL_CREDENTIALS)
def test_what_the_kernel_shows_of_a_process_is_a_credential_path(path: str) -> None:
    assert is_credential_path(path)


@pytest.mark.parametrize("path", KERNEL_ORDINARY)
def test_other_kernel_paths_are_judged_as_paths(path: str) -> None:
    assert not is_credential_path(path)


@pytest.mark.parametrize("path", CREDENTIALS)
def test_credential_paths_are_recognized(path: str) -> None:
    assert is_credential_path(path)


@pytest.mark.parametrize("path", ORDINARY)
def test_ordinary_paths_are_not_credentials(path: str) -> None:
    assert not is_credential_path(path)


def _excluded(name: str) -> bool:
    """How ripgrep applies the globs to one name (a glob without / matches a name, ignoring case)."""
    return any(fnmatch.fnmatchcase(name.lower(), g.lower()) for g in credential_globs() if "/" not in g)


@pytest.mark.parametrize(
    "name",
    [
        *(".env", ".env.local", ".ENV.Prod", ".envrc", "server.pem", "a.key", "id_rsa.pub", ".npmrc"),
        *("secrets.json", "x.secrets.json", ".env.examples", ".env.exampl", ".env.e", ".env.", ".env.x"),
        *(".env.example", ".env.sample", ".env.template", "environment.py", "monkey.py", "pem.txt"),
        *("README.key.md", "keyboard.py", "config.json", "tokens.txt"),
    ],
)
def test_the_search_globs_agree_with_the_rule_on_names(name: str) -> None:
    assert _excluded(name) == is_credential_path(name)


def test_the_search_globs_name_the_credential_folders_and_files_in_folders() -> None:
    wanted = {".ssh", ".gnupg", "**/.aws/credentials", "**/.kube/config", "**/.docker/config.json"}
    assert wanted <= set(credential_globs())


@pytest.mark.parametrize(
    ("command", "named"),
    [
        ("cat .env", [".env"]),
        ("cp ~/.ssh/id_rsa x", ["~/.ssh/id_rsa"]),
        ("grep -r KEY .env.local", [".env.local"]),
        ("cat .env | grep TOKEN", [".env"]),
        ("docker run --env-file=.env app", ["--env-file=.env"]),
        ("X=.env.prod ./run.sh", ["X=.env.prod"]),
        ("scp host:.ssh/id_ed25519 .", ["host:.ssh/id_ed25519"]),
        ("cat < secrets.json", ["secrets.json"]),
        ("echo hi > config/server.key", ["config/server.key"]),
        ("cat *.pem", ["*.pem"]),
        ("cat .e*", [".e*"]),
        ("tar czf k.tgz ~/.gnupg", ["~/.gnupg"]),
        ("cat '.env'", [".env"]),
        ("ls ~/.ssh/", ["~/.ssh/"]),
        ("cat ~/.aws/credentials", ["~/.aws/credentials"]),
        ("cat .env.example", []),
        ("python environment.py", []),
        ("ls *", []),
        ("rm -f *.pyc", []),
        ("cat src/*", []),
        ("echo monkey.py keyboard.py", []),
        ("cat ~/.aws/config", []),
        ("git log --oneline", []),
        ("echo 'unterminated", []),
    ],
)
def test_credential_words_of_commands(command: str, named: list[str]) -> None:
    words = [word for simple in command_words(command) for word in simple]
    assert credential_words(words) == named


def test_command_words_split_on_operators_and_drop_redirections() -> None:
    assert command_words("cat .env|grep x; ls < a 2>&1 && (cd b; make)") == [
        ["cat", ".env"],
        ["grep", "x"],
        ["ls", "a", "2", "1"],
        ["cd", "b"],
        ["make"],
    ]
    assert command_words("echo 'a b' \"c d\"") == [["echo", "a b", "c d"]]
    assert command_words("echo 'open") == []
    assert command_words("") == []
