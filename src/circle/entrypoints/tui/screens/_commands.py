"""What each slash command does on the session screen."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from circle.domain.catalog import similar_models
from circle.domain.errors import CircleError
from circle.domain.secrets import SECRET_NAME
from circle.entrypoints.tui import _format, _slash
from circle.entrypoints.tui._desk import SecretRequest
from circle.entrypoints.tui._host import Host
from circle.entrypoints.tui._recent import session_choices
from circle.entrypoints.tui._tree import NEW_SESSION, resumed_line
from circle.entrypoints.tui.screens._custom_commands import CustomCommands
from circle.entrypoints.tui.screens._rest import read_rest_later
from circle.entrypoints.tui.screens.picker import PickerScreen, TextScreen
from circle.entrypoints.tui.widgets.rows import Notice

if TYPE_CHECKING:
    from circle.application.undo import Undo
    from circle.entrypoints.tui.screens.main import MainScreen
    from circle.entrypoints.tui.widgets.key_list import KeyList


class SlashCommands:
    """Runs ``/name argument`` for the screen; a mistake is a notice, never a traceback."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.undo: Undo | None = None
        """What /undo took back, for /redo (made on first use)."""
        screen.conversation.session_of = lambda: self.host.session.session_id
        self.custom = CustomCommands(screen)
        """The command files' commands (``.circle/commands/NAME.md``)."""

    @property
    def host(self) -> Host:
        return self.screen.host

    def say(self, text: str, *, kind: str = "info") -> None:
        self.screen.conversation.notice(text, kind=kind)

    def start(self) -> None:
        """Find the custom commands for the completion list (a bad file said in a line)."""
        self.screen.run_worker(self.custom.load(), group="custom-commands")

    def run(self, invocation: _slash.Invocation) -> None:
        name, argument = invocation.name, invocation.argument
        if name not in _slash.BY_NAME:
            self.screen.run_worker(self.custom.run(invocation), group="custom")
            return
        busy_ok = {"help", "hotkeys", "jobs", "agents", "skills", "quit", "tree", "secret", "name", "editor"}
        if self.host.session.is_busy and name not in busy_ok:
            self.say(f"/{name} waits until the turn has ended (esc cancels it).", kind="warning")
            return
        self.screen.run_worker(self._run(name, argument), group="slash", exclusive=True)

    async def _run(self, name: str, argument: str) -> None:
        try:
            await getattr(self, f"do_{name}")(argument)
        except CircleError as exc:
            self.say(f"/{name}: {exc.message}", kind="error")
        except OSError as exc:
            self.say(f"/{name}: {exc.strerror or exc}", kind="error")

    async def pick(
        self,
        title: str,
        items: list[tuple[str, str]],
        *,
        empty: str = "Nothing to pick.",
        current: str | None = None,
    ) -> str | None:
        picker = PickerScreen(title, items, empty=empty, current=current)
        return await self.screen.app.push_screen_wait(picker)

    async def show(self, title: str, text: str) -> None:
        await self.screen.app.push_screen_wait(TextScreen(title, text))

    async def do_help(self, argument: str) -> None:
        from circle.entrypoints.tui.widgets.key_list import KeyList

        await self.custom.load()
        self.screen.conversation.add(self._said(KeyList("Commands:", _slash.help_rows(self.custom.entries))))

    async def do_hotkeys(self, argument: str) -> None:
        from circle.entrypoints.tui.widgets.key_list import KeyList

        self.screen.conversation.add(self._said(KeyList("Keys:", _slash.HOTKEYS)))

    def _said(self, row: KeyList) -> KeyList:
        """``row``, kept where it is through /undo, /redo and /tree (see :mod:`.said`)."""
        row.after = len(self.host.session.conversation.messages)
        row.session = self.host.session.session_id
        return row

    async def do_quit(self, argument: str) -> None:
        self.screen.post_message(self.screen.QuitWanted(0))

    async def do_models(self, argument: str) -> None:
        model, listed = argument.strip(), await self.host.listed_models()
        if not model:
            models = listed or [self.host.model]
            items = marked(models, self.host.model)
            model = await self.pick("Switch the model", items, current=self.host.model) or ""
        elif listed and model not in listed:
            self.say(unknown_model(model, listed, current=self.host.model), kind="warning")
            return
        unchecked = "" if listed else " (the endpoint lists no models, so the name was not checked)"
        if model and model != self.host.model:
            await self.host.switch_model(model)
            self.say(f"Model: {model}{unchecked}")
        elif model:
            self.say(f"The model is {model} already{unchecked}.")
        self.screen.refresh_footer()

    async def do_thinking(self, argument: str) -> None:
        level = argument
        if not level:
            levels = ["off", "minimal", "low", "medium", "high", "max"]
            now = self.host.thinking or "off"
            level = await self.pick("Thinking level", marked(levels, now), current=now) or ""
        if level:
            self.say(await self.host.switch_thinking(level))
        self.screen.refresh_footer()

    async def _reset_view(self, line: Notice | None = None) -> None:
        """The conversation drawn again for the session now open, ``line`` under it (in the same
        frame as the rows)."""
        from circle.entrypoints.tui.widgets.said import put_back, said_rows

        conversation, view = self.host.session.conversation, self.screen.conversation
        said = said_rows(
            view,
            session=self.host.session.session_id,
            messages=conversation.messages,
            unread=conversation.earlier,
        )
        await self.screen.conversation.redraw(conversation.messages, unread=conversation.earlier, line=line)
        put_back(view, said, start=view.drawn.start, drawn=[rows for _, rows in view.drawn.rows])
        self.screen.plan.set(self.host.todos(), plan_mode=self.host.plan_mode)
        self.screen.refresh_footer()
        read_rest_later(self.screen)  # /resume of a long session: the rest is read after its tail

    async def do_new(self, argument: str) -> None:
        await self.host.new_session()
        await self._reset_view()
        self.say(NEW_SESSION)

    async def do_resume(self, argument: str) -> None:
        chosen = argument or await self.pick_session()
        if chosen:
            await self.host.resume(chosen)
            await self._reset_view()
            self.say(resumed_line(await self.host.session.conversation.info()))

    async def pick_session(self) -> str | None:
        items = session_choices(await self.host.sessions(), now=time.time())
        return await self.pick("Resume a session", items, empty="This folder has no sessions yet.")

    async def do_tree(self, argument: str) -> None:
        from circle.entrypoints.tui import _branches
        from circle.entrypoints.tui._tree import tree_title
        from circle.entrypoints.tui.screens.tree import TreeScreen

        host = self.host
        conversation = host.session.conversation
        tree = TreeScreen(
            tree_title(await conversation.info(), branch=conversation.branch),
            load=lambda: _branches.rows(host),
            label=lambda at, text: _branches.label(host, at, text),
        )
        chosen = await self.screen.app.push_screen_wait(tree)
        if chosen:
            line, again = await _branches.go_on_from(host, chosen)
            await self._reset_view()
            self.say(line)
            if again:
                self.screen.composer.set_text(again)
            self.screen.composer.focus()

    async def _pick_message(self, title: str) -> str | None:
        from circle.entrypoints.tui._tree import said, who

        history = await self.host.checkpoints()
        items = [
            (c.id, f"{who(c.message):<6}  {_format.one_line(said(c.message) or '(tool calls)', 90)}")
            for c in reversed(history)
            if c.message.role == "user" or (c.message.role == "assistant" and c.message.text.strip())
        ]
        return await self.pick(title, items, empty="The session has no messages yet.")

    async def do_fork(self, argument: str) -> None:
        """A new session up to the message picked; at a message of the person's, up to before it,
        with its text back in the input box to edit and send again."""
        chosen = argument or await self._pick_message("Fork: a new session up to this message")
        if not chosen:
            return
        from circle.entrypoints.tui._tree import fork_line

        picked = next((c for c in await self.host.checkpoints() if c.id == chosen), None)
        source = await self.host.session.conversation.info()
        again = ""
        if picked is None or picked.message.role != "user":
            await self.host.fork(chosen)
        elif picked.parent_id is None:
            await self.host.new_session()
            again = picked.message.typed
        else:
            await self.host.fork(picked.parent_id)
            again = picked.message.typed
        await self._reset_view()
        before = picked is not None and picked.message.role == "user"
        self.say(fork_line(source, picked, before=before, now=time.time()))
        if again:
            self.screen.composer.set_text(again)
            self.screen.composer.focus()

    async def do_editor(self, argument: str) -> None:
        """``/editor TEXT`` (or ctrl+g: the input's text, pastes unfolded) in $VISUAL or $EDITOR;
        what it saves comes into the input box."""
        from circle.entrypoints.tui._editor import edit

        composer = self.screen.composer
        edited = edit(self.screen.app, argument or composer.expanded(composer.text))
        if edited is None:
            self.say("The editor exited with an error; the input is as it was.", kind="warning")
        else:
            composer.clear_all()
            composer.set_text(edited)
        composer.focus()

    async def do_rewind(self, argument: str) -> None:
        rewind = self.host.rewinder()
        turns = await rewind.turns(self.host.session.session_id)
        items = []
        for turn in turns:
            when = time.strftime("%H:%M", time.localtime(turn.created_at))
            done = "  (rewound)" if turn.restored_at is not None else ""
            files = len(turn.receipts)
            label = _format.one_line(turn.label, 60)
            changed = f"{files} file{'' if files == 1 else 's'}"
            items.append((str(turn.number), f"turn {turn.number}  {when}  {label}  · {changed}{done}"))
        chosen = argument or await self.pick(
            "Rewind: put back the files of", items, empty="No turn changed files."
        )
        if chosen:
            if not chosen.isdigit():
                self.say(f"/rewind takes a turn number, not {chosen!r}", kind="warning")
                return
            self.say(await self.host.rewind(int(chosen)))

    async def do_undo(self, argument: str) -> None:
        await self._undo_or_redo(redo=False)

    async def do_redo(self, argument: str) -> None:
        await self._undo_or_redo(redo=True)

    async def _undo_or_redo(self, *, redo: bool) -> None:
        from circle.entrypoints.tui import _branches

        if self.undo is None:
            self.undo = _branches.make_undo(self.host)
        # the keys read with the enter are drawn first: the store and the rows take a while (the
        # box's own queue first, where those keys wait, then the frame after them)
        await self.screen.composer.wait_for_refresh()
        session = self.host.session
        outcome = await (self.undo.redo(session) if redo else self.undo.undo(session))
        line, kind = _branches.said(self.host, outcome, redo=redo)
        if outcome is not None and outcome.done:
            self.host.count_history()
            await self._reset_view(Notice(line, kind=kind))
        else:
            self.say(line, kind=kind)

    async def do_compact(self, argument: str) -> None:
        self.screen.busy.show("Compacting…")
        try:
            if (why := await self.host.compact(argument or None)) is not None:
                self.say(why, kind="warning")
        finally:
            self.screen.busy.hide()
            self.screen.refresh_footer()

    async def do_export(self, argument: str) -> None:
        path = Path(argument or f"circle-{self.host.session.session_id}.md")
        written = await self.host.export(path)
        self.say(f"Exported the session to {written}")

    async def do_name(self, argument: str) -> None:
        if not argument:
            self.say("/name NAME names the session", kind="warning")
            return
        await self.host.name(argument)
        self.say(f"Named the session {argument!r}")

    async def do_secret(self, argument: str) -> None:
        name = argument.strip()
        if not SECRET_NAME.fullmatch(name):
            self.say(
                "/secret NAME: a name of letters, digits and _ (the model writes %NAME%)", kind="warning"
            )
            return
        value = await self.screen.desk.secret(
            SecretRequest(name, why=f"The model will write %{name}% for it.")
        )
        if value is None:
            self.say("The secret was not saved.")
            return
        self.host.set_secret(name, value)
        self.say(f"Saved the secret {name}; the model writes %{name}% and never sees the value.")

    async def do_jobs(self, argument: str) -> None:
        jobs = self.host.session.jobs
        listed = jobs.jobs if jobs is not None else []
        if not listed:
            self.say("No background jobs in this session.")
            return
        items = [
            (job.id, f"{job.id}  {job.describe():<22} {_format.one_line(job.command, 70)}") for job in listed
        ]
        chosen = await self.pick("Background jobs", items)
        if chosen:
            from circle.entrypoints.tui.screens.record import record_screen
            from circle.entrypoints.tui.widgets.status import StripItem

            command = next(job.command for job in listed if job.id == chosen)
            item = StripItem("job", chosen, f"{chosen}: {command}")
            await self.screen.app.push_screen_wait(await record_screen(self.host, item))

    async def do_agents(self, argument: str) -> None:
        types = self.host.subagent_types()
        lines = [f"  {name:<18} {description}" for name, description in types] or ["  (none)"]
        runs = self.host.subagent_runs()
        if runs:
            lines += ["", "This session's subagents:"]
            lines += [
                f"  {run.id}  {run.subagent_type:<16} {run.status:<11} {run.description}" for run in runs
            ]
        self.say("Subagent types:\n" + "\n".join(lines))

    async def do_skills(self, argument: str) -> None:
        skills = await self.host.skills()
        lines = [f"  {name:<20} {_format.one_line(description, 80)}" for name, description in skills]
        self.say("Skills:\n" + ("\n".join(lines) or "  (none)"))

    async def do_reload(self, argument: str) -> None:
        for notice in await self.host.reload():
            self.say(notice, kind="warning")
        self.custom.told.clear()
        await self.custom.load()
        self.say("Read approvals.json, hooks.json, the instruction files, the skills and the commands again.")


def unknown_model(model: str, listed: list[str], *, current: str) -> str:
    """Why ``/models NAME`` switched nothing: the endpoint lists no such model; the ones close to it."""
    near = similar_models(model, listed)
    said = " or ".join([", ".join(near[:-1]), near[-1]] if len(near) > 1 else near)
    hint = f" Did you mean {said}?" if near else ""
    count = f"{len(listed)} model{'' if len(listed) == 1 else 's'}"
    return (
        f"The endpoint lists no model {_format.one_line(model, 80)!r}, so the model stays {current}.{hint} "
        f"/models picks from its {count}."
    )


def marked(choices: list[str], current: str) -> list[tuple[str, str]]:
    """Picker items with the one in use marked ``●``."""
    return [(choice, f"{'● ' if choice == current else '  '}{choice}") for choice in choices]


__all__ = ["SlashCommands"]
