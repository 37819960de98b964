"""RPC commands about background jobs (the model's, a subagent's, a command moved by
``background``), beyond pi: list, stop and move them, and the ``job`` event's shape."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import JsonValue

from circle.application.jobs import Job

from ._rpc_io import Command, Handler, RpcError

if TYPE_CHECKING:
    from .rpc import RpcServer


async def list_jobs(server: RpcServer, command: Command) -> JsonValue:
    found: list[JsonValue] = []
    for session in server.runtime.sessions:
        if session.jobs is not None:
            found.extend(job_json(job, session.session_id) for job in session.jobs.jobs)
    return {"jobs": found}


async def stop_job(server: RpcServer, command: Command) -> JsonValue:
    job_id = command.get("jobId", command.get("job_id"))
    if not isinstance(job_id, str) or not job_id.strip():
        raise RpcError('stop_job needs "jobId": list_jobs shows them')
    runtime = server.runtime
    sessions = [server.session, *(s for s in reversed(runtime.sessions) if s is not server.session)]
    for session in sessions:
        jobs = session.jobs
        if jobs is not None and any(job.id == job_id.strip() for job in jobs.jobs):
            job = await jobs.stop(job_id)
            server.known_jobs[id(job)] = job.status
            return {"job": job_json(job, session.session_id)}
    raise RpcError(f"no background job {job_id!r}: list_jobs shows them")


async def background(server: RpcServer, command: Command) -> JsonValue:
    jobs = server.session.jobs
    moved = 0 if jobs is None else await jobs.move_waiting_to_background()
    return {"moved": moved}


def job_json(job: Job, session_id: str) -> dict[str, JsonValue]:
    """A background job as the ``job`` event and ``list_jobs`` show it."""
    return {
        "id": job.id,
        "sessionId": session_id,
        "kind": job.kind,
        "command": job.command,
        "status": job.status,
        "exitCode": job.exit_code,
        "description": job.describe(),
        "outputPath": job.output_path,
        "startedAt": job.started,
    }


COMMANDS: dict[str, Handler] = {
    "list_jobs": list_jobs,
    "get_jobs": list_jobs,
    "stop_job": stop_job,
    "background": background,
}

__all__ = ["COMMANDS", "job_json"]
