"""A scripted MCP client on the official Python SDK (PyPI `mcp`, pinned in
requirements.txt), for the end-to-end tests of `subterminator mcp`.

It reads one JSON plan on stdin, runs it against the server, and writes one
JSON line per thing that happened on stdout, so a Rust test can assert on
every call, progress notification and elicitation it saw. The plan:

    {"server": ["/path/to/subterminator", "mcp", ...], "env": {...}}   stdio
    {"http": "http://127.0.0.1:PORT/mcp", "token": "..."}                HTTP
    "mode": "legacy" (initialize, the default) | "2026-07-28" (server/discover, no session)
    "elicitation": "yes" | "no" | "decline" | "cancel" | "none" | "note:<words>" | "ask"
    "steps": [
        {"list_tools": true},
        {"call": "<tool>", "args": {...}},   a "ref" of {"named": "<name>"} is looked up
                                             in the latest snapshot the branch received;
                                             "same_session": true adds the session_id
                                             the branch's latest result named
        {"parallel": [[<steps>], [<steps>]]},
        {"sleep": 1.5},
        {"pause": "<label>"}        prints {"paused": label}, waits for a line on stdin
    ]

"none" declares no elicitation capability at all; "ask" prints the request and
reads the answer (one of the others) from the next line on stdin.

At 2026-07-28 the server asks by returning `input_required`; each one is printed
and answered by the same policy, and the call is made again with the answers
and the echoed `requestState` (the SDK's own loop, driven by hand so that every
round is seen). Under "ask" an answer may be prefixed to misbehave once:
"tamper-state:yes" sends the state altered, "foreign-key:yes" files the answer
under another id; the server's refusal is printed and the question read again.

Output lines:
    {"connected": {"protocol_version"}}
    {"tools": [{"name", "title", "description", "input_schema"}]}
    {"call": tool, "args", "is_error", "structured", "content_types", "progress": [messages],
     "elapsed_ms", "rounds"}   or, when the server answers with a JSON-RPC error,
    {"call": tool, "args", "rpc_error": {"code", "message", "data"}}
    {"elicitation": {"message", "schema", "image_mime", "image_bytes"}}
    {"input_required": {"keys", "state", "elicitation": {...as above}}}
    {"retry_refused": {"code", "message", "data"}}   a misbehaving retry the server refused
    {"retry_answered": {"input_required", "keys", "state"}}   one it answered
    {"replay_refused": {...} | null}   with "replay": true on a call step, its last
                                       answer sent again after the call completed
    {"paused": label}
    {"done": true}
"""

import asyncio
import base64
import json
import sys
import time

import mcp_types as types
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def shown(params):
    """What the person is shown: the prompt, its schema and the screenshot."""
    meta = params.meta or {}
    if not isinstance(meta, dict):
        meta = meta.model_dump(by_alias=True)
    image = meta.get("io.github.subterminator/screenshot") or {}
    data = image.get("data") or ""
    schema = params.requested_schema
    if not isinstance(schema, dict):
        schema = schema.model_dump(by_alias=True, exclude_none=True)
    return {
        "message": params.message,
        "schema": schema,
        "image_mime": image.get("mimeType"),
        "image_bytes": len(base64.b64decode(data)) if data else 0,
        "image_is_png": base64.b64decode(data)[:8] == b"\x89PNG\r\n\x1a\n" if data else False,
    }


async def decide(policy):
    """The answer the policy gives; under "ask", the next line on stdin."""
    if policy == "ask":
        line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        return line.strip()
    return policy


def result_of(answer_with):
    if answer_with == "yes":
        return types.ElicitResult(action="accept", content={"approve": True})
    if answer_with == "no":
        return types.ElicitResult(action="accept", content={"approve": False})
    if answer_with.startswith("note:"):
        return types.ElicitResult(action="accept", content={"approve": False, "note": answer_with[5:]})
    return types.ElicitResult(action=answer_with)


def elicitation_callback(policy):
    async def answer(context, params):
        emit({"elicitation": shown(params)})
        return result_of(await decide(policy))

    return answer


async def call_modern(session, name, args, policy, on_progress, replay=False):
    """One tools/call at 2026-07-28: each `input_required` printed and answered,
    and the call made again with the answers, until it completes."""
    rounds = 0
    responses, state = None, None
    while True:
        result = await session.call_tool(
            name,
            args,
            progress_callback=on_progress,
            input_responses=responses,
            request_state=state,
            allow_input_required=True,
        )
        if not isinstance(result, types.InputRequiredResult):
            if replay and state is not None:
                # The last answer again, once the call is over: stale.
                try:
                    await session.call_tool(
                        name, args, input_responses=responses, request_state=state, allow_input_required=True
                    )
                    emit({"replay_refused": None})
                except MCPError as refused:
                    emit({"replay_refused": {"code": refused.code, "message": refused.message, "data": refused.data}})
            return result, rounds
        rounds += 1
        requests = result.input_requests or {}
        emit(
            {
                "input_required": {
                    "keys": sorted(requests),
                    "state": result.request_state,
                    "elicitation": [shown(r.params) for r in requests.values() if r.method == "elicitation/create"],
                }
            }
        )
        while True:
            answer_with = await decide(policy)
            misbehave = ""
            for prefix in ("tamper-state:", "foreign-key:"):
                if answer_with.startswith(prefix):
                    misbehave, answer_with = prefix[:-1], answer_with[len(prefix) :]
            responses = {key: result_of(answer_with) for key in requests}
            state = result.request_state
            if misbehave == "tamper-state":
                state = (state or "") + "0"
            elif misbehave == "foreign-key":
                responses = {"0" * 32: result_of(answer_with)}
            if not misbehave:
                break
            try:
                again = await session.call_tool(
                    name,
                    args,
                    input_responses=responses,
                    request_state=state,
                    allow_input_required=True,
                )
                asked_again = isinstance(again, types.InputRequiredResult)
                emit(
                    {
                        "retry_answered": {
                            "input_required": asked_again,
                            "keys": sorted(again.input_requests or {}) if asked_again else [],
                            "state": again.request_state if asked_again else None,
                        }
                    }
                )
            except MCPError as refused:
                emit({"retry_refused": {"code": refused.code, "message": refused.message, "data": refused.data}})


def find_ref(node, name):
    """The ref of the first element named `name` in a snapshot, at any depth."""
    if isinstance(node, dict):
        if node.get("name") == name and "ref" in node:
            return node["ref"]
        for value in node.values():
            found = find_ref(value, name)
            if found:
                return found
    elif isinstance(node, list):
        for value in node:
            found = find_ref(value, name)
            if found:
                return found
    return None


def resolve(args, latest):
    """{"ref": {"named": "Continue"}} becomes the ref the latest snapshot gives it."""
    resolved = dict(args)
    ref = resolved.get("ref")
    if isinstance(ref, dict) and "named" in ref:
        resolved["ref"] = find_ref(latest, ref["named"]) or "@e999"
    return resolved


async def run_steps(session, steps, modern, policy, latest=None):
    latest = latest if latest is not None else {}
    for step in steps:
        if "list_tools" in step:
            listed = await session.list_tools()
            emit(
                {
                    "tools": [
                        {
                            "name": t.name,
                            "title": t.title,
                            "description": t.description,
                            "input_schema": t.input_schema,
                        }
                        for t in listed.tools
                    ]
                }
            )
        elif "call" in step:
            progress = []

            async def on_progress(value, total, message):
                progress.append(message)

            args = resolve(step.get("args") or {}, latest.get("snapshot"))
            # A 2026-07-28 session is named by the id its first result gave.
            if step.get("same_session"):
                args = dict(args, session_id=latest.get("session_id"))
            started = time.perf_counter()
            rounds = 0
            try:
                if modern:
                    result, rounds = await call_modern(
                        session, step["call"], args, policy, on_progress, replay=step.get("replay", False)
                    )
                else:
                    result = await session.call_tool(step["call"], args, progress_callback=on_progress)
            except MCPError as error:
                emit({"call": step["call"], "args": args, "rpc_error": {"code": error.code, "message": error.message, "data": error.data}})
                continue
            elapsed_ms = (time.perf_counter() - started) * 1000
            data = (result.structured_content or {}).get("data")
            if isinstance(data, dict) and "snapshot" in data:
                latest["snapshot"] = data["snapshot"]
            if isinstance(data, dict) and data.get("session_id"):
                latest["session_id"] = data["session_id"]
            emit(
                {
                    "call": step["call"],
                    "args": args,
                    "is_error": bool(result.is_error),
                    "structured": result.structured_content,
                    "content_types": [c.type for c in result.content],
                    "progress": progress,
                    "elapsed_ms": elapsed_ms,
                    "rounds": rounds,
                }
            )
        elif "parallel" in step:
            await asyncio.gather(*(run_steps(session, branch, modern, policy, {}) for branch in step["parallel"]))
        elif "sleep" in step:
            await asyncio.sleep(step["sleep"])
        elif "pause" in step:
            emit({"paused": step["pause"]})
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


async def main():
    plan = json.loads(sys.stdin.readline())
    policy = plan.get("elicitation", "none")
    callback = None if policy == "none" else elicitation_callback(policy)
    if "http" in plan:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": "Bearer " + plan["token"]} if plan.get("token") else {}
        client = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(300.0))
        transport = streamable_http_client(plan["http"], http_client=client)
    else:
        params = StdioServerParameters(
            command=plan["server"][0], args=plan["server"][1:], env=plan.get("env") or {}
        )
        transport = stdio_client(params)
    modern = plan.get("mode", "legacy") != "legacy"
    async with transport as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write, elicitation_callback=callback) as session:
            if modern:
                discovered = await session.discover()
                version = session.protocol_version
                emit({"connected": {"protocol_version": version, "supported": list(discovered.supported_versions)}})
            else:
                initialized = await session.initialize()
                emit({"connected": {"protocol_version": initialized.protocol_version}})
            await run_steps(session, plan["steps"], modern, policy)
    emit({"done": True})


if __name__ == "__main__":
    asyncio.run(main())
