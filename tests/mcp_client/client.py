"""A scripted MCP client on the official Python SDK (PyPI `mcp`, pinned in
requirements.txt), for the end-to-end tests of `subterminator mcp`.

It reads one JSON plan on stdin, runs it against the server, and writes one
JSON line per thing that happened on stdout, so a Rust test can assert on
every call, progress notification and elicitation it saw. The plan:

    {"server": ["/path/to/subterminator", "mcp", ...], "env": {...}}   stdio
    {"http": "http://127.0.0.1:PORT/mcp", "token": "..."}                HTTP
    "elicitation": "yes" | "no" | "decline" | "cancel" | "none" | "note:<words>" | "ask"
    "steps": [
        {"list_tools": true},
        {"call": "<tool>", "args": {...}},   a "ref" of {"named": "<name>"} is looked up
                                             in the latest snapshot the branch received
        {"parallel": [[<steps>], [<steps>]]},
        {"sleep": 1.5},
        {"pause": "<label>"}        prints {"paused": label}, waits for a line on stdin
    ]

"none" declares no elicitation capability at all; "ask" prints the request and
reads the answer (one of the others) from the next line on stdin. Output lines:
    {"tools": [{"name", "title", "description", "input_schema"}]}
    {"call": tool, "args", "is_error", "structured", "content_types", "progress": [messages], "elapsed_ms"}
    {"elicitation": {"message", "schema", "image_mime", "image_bytes"}}
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


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def elicitation_callback(policy):
    async def answer(context, params):
        meta = params.meta or {}
        if not isinstance(meta, dict):
            meta = meta.model_dump(by_alias=True)
        image = meta.get("io.github.subterminator/screenshot") or {}
        data = image.get("data") or ""
        emit(
            {
                "elicitation": {
                    "message": params.message,
                    "schema": params.requested_schema,
                    "image_mime": image.get("mimeType"),
                    "image_bytes": len(base64.b64decode(data)) if data else 0,
                    "image_is_png": base64.b64decode(data)[:8] == b"\x89PNG\r\n\x1a\n" if data else False,
                }
            }
        )
        answer_with = policy
        if policy == "ask":
            line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
            answer_with = line.strip()
        if answer_with == "yes":
            return types.ElicitResult(action="accept", content={"approve": True})
        if answer_with == "no":
            return types.ElicitResult(action="accept", content={"approve": False})
        if answer_with.startswith("note:"):
            return types.ElicitResult(action="accept", content={"approve": False, "note": answer_with[5:]})
        return types.ElicitResult(action=answer_with)

    return answer


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


async def run_steps(session, steps, latest=None):
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
            started = time.perf_counter()
            result = await session.call_tool(step["call"], args, progress_callback=on_progress)
            elapsed_ms = (time.perf_counter() - started) * 1000
            data = (result.structured_content or {}).get("data")
            if isinstance(data, dict) and "snapshot" in data:
                latest["snapshot"] = data["snapshot"]
            emit(
                {
                    "call": step["call"],
                    "args": args,
                    "is_error": bool(result.is_error),
                    "structured": result.structured_content,
                    "content_types": [c.type for c in result.content],
                    "progress": progress,
                    "elapsed_ms": elapsed_ms,
                }
            )
        elif "parallel" in step:
            await asyncio.gather(*(run_steps(session, branch, {}) for branch in step["parallel"]))
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
    async with transport as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write, elicitation_callback=callback) as session:
            await session.initialize()
            await run_steps(session, plan["steps"])
    emit({"done": True})


if __name__ == "__main__":
    asyncio.run(main())
