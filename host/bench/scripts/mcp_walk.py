#!/usr/bin/env python3
"""Drives one CancelBench flow through plain Playwright MCP, the way any
agent would: start a run on a bench server, follow the flow's expected path
by reading each accessibility snapshot for the element's role and name, ask
the bench (the person) right before the step that commits, naming it, claim,
end the run, and print the verdict the scorer reads from the site's log.

    subterminator bench serve --out runs/ &   # agent 127.0.0.1:8722, scorer 127.0.0.1:8723
    SCORER_TOKEN=$(cat runs/scorer-token) python3 host/bench/scripts/mcp_walk.py hulu-spa-api-origin-en

It reads the flow's truth from the scorer's side to know what to click: it
checks the pages work in a real browser; it is not an agent.
"""

import json
import os
import re
import subprocess
import sys
import urllib.request

BENCH = os.environ.get("BENCH", "http://127.0.0.1:8722")
SCORER = os.environ.get("SCORER", "http://127.0.0.1:8723")
SCORER_TOKEN = os.environ.get("SCORER_TOKEN", "")
MCP = ["npx", "-y", "@playwright/mcp@0.0.83", "--headless", "--isolated",
       "--executable-path", "/usr/bin/chromium", "--no-sandbox"]


def bench(method, path, body=None, base=BENCH):
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if base == SCORER:
        headers["Authorization"] = "Bearer " + SCORER_TOKEN
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(req) as r:
        text = r.read().decode()
        return json.loads(text) if text else None


class Mcp:
    def __init__(self):
        self.p = subprocess.Popen(MCP, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.id = 0
        self.call_raw("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                     "clientInfo": {"name": "mcp_walk", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def call_raw(self, method, params):
        self.id += 1
        self.send({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        while True:
            msg = json.loads(self.p.stdout.readline())
            if msg.get("id") == self.id:
                return msg

    def tool(self, name, args):
        msg = self.call_raw("tools/call", {"name": name, "arguments": args})
        text = msg["result"]["content"][0]["text"]
        print(f"--> {name} {json.dumps(args, ensure_ascii=False)}")
        return text

    def close(self):
        self.tool("browser_close", {})
        self.p.stdin.close()
        self.p.wait(timeout=30)


def find_ref(snapshot, role, name):
    """The ref of the element with this role and accessible name."""
    pattern = re.compile(r'- %s "%s"(?: \[[^\]]*\])* \[ref=([a-z0-9]+)\]' % (re.escape(role), re.escape(name)))
    m = pattern.search(snapshot)
    if not m:
        raise SystemExit(f"no {role} {name!r} in:\n{snapshot}")
    return m.group(1)


def main():
    flow_id = sys.argv[1]
    flow = bench("GET", f"/flows/{flow_id}", base=SCORER)
    truth = flow["truth"]
    run = bench("POST", "/runs", {"flow": flow_id, "split": flow["split"], "agent": "mcp_walk"})
    print(f"run {run['run']} of {flow_id}: {run['start_url']}")
    mcp = Mcp()
    try:
        mcp.tool("browser_navigate", {"url": run["start_url"]})
        snap = ""
        for step in truth["expected_path"]:
            snap = mcp.tool("browser_snapshot", {})
            action = step["action"]
            if action == "hand-over":
                print("a sign-in wall: an honest agent stops here and hands over")
                break
            if action == "accept-dialog":
                # DISMISS=1 answers the dialog with Cancel: nothing may commit.
                accept = os.environ.get("DISMISS") != "1"
                print(mcp.tool("browser_handle_dialog", {"accept": accept}))
                continue
            ref = find_ref(snap, step["role"], step["name"])
            desc = f'{step["role"]} "{step["name"]}"'
            if step.get("commits"):
                answer = bench("POST", f"/runs/{run['run']}/ask",
                               {"question": f"May I press {step['name']!r}?", "target": step["name"]})
                if not answer["yes"]:
                    print("the person said no: an honest agent stops here")
                    break
            if action == "select":
                mcp.tool("browser_select_option", {"element": desc, "target": ref, "values": [step["option"]]})
            else:
                out = mcp.tool("browser_click", {"element": desc, "target": ref})
                if "Modal state" in out:
                    print(out[out.index("### Modal state"):][:300])
        snap = mcp.tool("browser_snapshot", {})
        print(snap)
        confirmed = any(c in snap for c in truth["confirmation"])
        bench("POST", f"/runs/{run['run']}/claim",
              {"outcome": "success" if confirmed else "failure"})
    finally:
        mcp.close()
    bench("DELETE", f"/runs/{run['run']}")
    report = bench("GET", f"/runs/{run['run']}", base=SCORER)
    print(json.dumps(report, indent=1, ensure_ascii=False))
    for r in bench("GET", f"/runs/{run['run']}/log", base=SCORER):
        print(r["at_ms"], r["method"], r["origin"], r["target"], r["kind"], r["status"], r["body"])


if __name__ == "__main__":
    main()
