#!/usr/bin/env python3
"""CancelBench for an agent that is an MCP server: the bench is its client.

An agent that cancels through an MCP tool (`subterminator mcp`'s
`cancel_subscription`, or any server with a tool that takes a start address)
asks its person through the client: an elicitation (`elicitation/create`).
This adapter is that client. For each flow it starts a run on the bench,
calls the agent's tool on the run's start address, answers every
elicitation by asking the bench (`POST /runs/{run}/ask` with the
elicitation's message), claims from the tool's result, and ends the run. The
verdicts are the scorer's.

    python3 mcp_server_agent.py --bench http://127.0.0.1:8722 \\
        --flow practice-base-en --flow netflix-base-en \\
        -- subterminator mcp --model offline --headless --isolated

Everything after `--` is the agent's MCP server command (stdio).

The tool and its arguments are options (`--tool`, `--args`): `{service}`,
`{start_url}` and `{target}` in the argument template are filled per flow
(`{target}` is the service's id where a bundled plugin knows it, the start
address where none does). A result counts as a claim of success where
`--success` (a JSON pointer into the structured result and the value it
must hold) says so; any other result is a claim of failure, and an error
no claim.

Needs the official MCP Python SDK (`pip install mcp`, pinned for the tests
in tests/mcp_client/requirements.txt) and `cancelbench.py` beside it.
"""

import argparse
import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mcp_types as types  # noqa: E402  (the SDK's types, as the tests' client uses them)
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from cancelbench import Bench  # noqa: E402

DEFAULT_ARGS = '{"service": "{target}", "start_url": "{start_url}", "isolated": true}'
DEFAULT_SUCCESS = "/data/outcome=cancelled"


def fill(template, values):
    """The argument template with each {name} string replaced."""
    if isinstance(template, str):
        for key, value in values.items():
            template = template.replace("{" + key + "}", value)
        return template
    if isinstance(template, list):
        return [fill(v, values) for v in template]
    if isinstance(template, dict):
        return {k: fill(v, values) for k, v in template.items()}
    return template


def pointer(value, path):
    """A JSON pointer's value, or None."""
    for part in [p for p in path.split("/") if p]:
        if isinstance(value, dict):
            value = value.get(part)
        else:
            return None
    return value


def claim_of(result, success):
    """success / failure / none, from a tool's result."""
    if result is None:
        return "none"
    path, _, want = success.partition("=")
    structured = getattr(result, "structuredContent", None) or getattr(result, "structured_content", None)
    got = pointer(structured or {}, path)
    return "success" if got is not None and str(got).lower() == want.lower() else "failure"


class Person:
    """Answers the agent's elicitations by asking the bench, for the run in
    progress."""

    def __init__(self):
        self.run = None
        self.asked = 0

    async def answer(self, context, params):
        message = getattr(params, "message", "") or ""
        schema = getattr(params, "requestedSchema", None) or getattr(params, "requested_schema", None) or {}
        if self.run is None:
            return types.ElicitResult(action="decline")
        self.asked += 1
        yes = await asyncio.to_thread(self.run.ask, message)
        booleans = [k for k, v in (schema.get("properties") or {}).items() if v.get("type") == "boolean"]
        if booleans:
            return types.ElicitResult(action="accept", content={booleans[0]: yes})
        return types.ElicitResult(action="accept" if yes else "decline")


async def run_all(options, bench, flows, passes):
    person = Person()
    params = StdioServerParameters(command=options.server[0], args=options.server[1:], env=dict(os.environ))
    template = json.loads(options.args)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, elicitation_callback=person.answer) as session:
            await session.initialize()
            for flow in flows:
                for pass_ in passes:
                    run = await asyncio.to_thread(bench.start, flow["id"], pass_, flow["split"])
                    person.run, person.asked = run, 0
                    values = {
                        "service": flow["service"],
                        "start_url": run.start_url,
                        "target": flow["service"] if flow.get("plugin", True) else run.start_url,
                    }
                    result = None
                    try:
                        result = await asyncio.wait_for(
                            session.call_tool(options.tool, fill(template, values)), timeout=options.timeout
                        )
                    except Exception as e:  # the agent failed: no claim, and the run still ends
                        print(json.dumps({"flow": flow["id"], "pass": pass_, "error": str(e)}), file=sys.stderr)
                    claim = claim_of(result, options.success)
                    person.run = None
                    await asyncio.to_thread(run.claim, claim)
                    await asyncio.to_thread(run.end)
                    print(json.dumps({"run": run.run, "flow": flow["id"], "pass": pass_,
                                      "claim": claim, "questions": person.asked}), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench", required=True, help="the bench's agent address")
    parser.add_argument("--name", default="mcp-server-agent", help="the agent's name in the records")
    parser.add_argument("--tool", default="cancel_subscription")
    parser.add_argument("--args", default=DEFAULT_ARGS, help="the tool's arguments, a JSON template")
    parser.add_argument("--success", default=DEFAULT_SUCCESS, help="POINTER=VALUE in the structured result")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds one tool call may take")
    parser.add_argument("--passes", default="yes-to-all,no-at-commit")
    parser.add_argument("--flow", action="append", default=[])
    parser.add_argument("--split", default="development", choices=["development", "held-out", "all"])
    argv = sys.argv[1:]
    if "--" not in argv:
        parser.error("give the agent's MCP server command after --")
    at = argv.index("--")
    options = parser.parse_args(argv[:at])
    options.server = argv[at + 1:]
    if not options.server:
        parser.error("give the agent's MCP server command after --")
    bench = Bench(options.bench, options.name)
    flows = bench.flows(None if options.split == "all" else options.split)
    if options.flow:
        flows = [f for f in flows if f["id"] in options.flow]
    asyncio.run(run_all(options, bench, flows, options.passes.split(",")))


if __name__ == "__main__":
    main()
