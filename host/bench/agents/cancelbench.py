"""CancelBench's agent side, for any agent written in Python: the standard
library only (urllib), one class per thing the interface has.

    from cancelbench import Bench

    bench = Bench("http://127.0.0.1:8722", "my-agent")
    for flow in bench.flows("development"):
        for pass_ in ("yes-to-all", "no-at-commit"):
            run = bench.start(flow["id"], pass_, flow["split"])
            ...  # drive a browser from run.start_url; right before the step
            ...  # that commits: if not run.ask("Press 'Cancel'?", target="Cancel"): stop
            run.claim("success")  # or "failure", or "none"
            run.end()

The bench is the person: `ask` returns its answer, stamped when given. The
verdicts are the scorer's (its own port); nothing here reads them.
host/bench/README.md documents the routes; host/bench/schema/serve.schema.json
the bodies.
"""

import json
import urllib.error
import urllib.request


class BenchError(Exception):
    """The bench refused a request: its status and its `error` text (status
    None where the bench did not answer)."""

    def __init__(self, status, error):
        super().__init__(f"{status}: {error}")
        self.status = status
        self.error = error


def _call(base, method, path, body=None, timeout=60):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        base + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            text = reply.read().decode()
            return json.loads(text) if text else None
    except urllib.error.HTTPError as refused:
        text = refused.read().decode(errors="replace")
        try:
            error = json.loads(text).get("error", text)
        except ValueError:
            error = text
        raise BenchError(refused.code, error) from None
    except urllib.error.URLError as unreachable:
        # No answer at all (not started, wrong port): the same exception, so
        # an agent's loop has one thing to catch; no status to give.
        raise BenchError(None, f"{base}: {unreachable.reason}") from None


class Run:
    """One run: a fresh site of one flow, its person, its claim."""

    def __init__(self, base, started):
        self._base = base
        self.run = started["run"]
        self.flow = started["flow"]
        self.split = started["split"]
        self.pass_ = started["pass"]
        self.start_url = started["start_url"]
        self.origins = started["origins"]

    def ask(self, question, target=None, details=None):
        """The person's answer (True for yes). Name the control as the page
        shows it: a yes covers only the commit its question named."""
        body = {"question": question}
        if target is not None:
            body["target"] = target
        if details is not None:
            body["details"] = details
        return bool(_call(self._base, "POST", f"/runs/{self.run}/ask", body)["yes"])

    def claim(self, outcome, tokens=None, cost_usd=None):
        """"success", "failure" or "none"; once per run."""
        body = {"outcome": outcome}
        if tokens is not None:
            body["tokens"] = tokens
        if cost_usd is not None:
            body["cost_usd"] = cost_usd
        _call(self._base, "POST", f"/runs/{self.run}/claim", body)

    def end(self):
        """Ends the run: the bench judges it from its site's log and keeps it."""
        _call(self._base, "DELETE", f"/runs/{self.run}")


class Bench:
    """The agent's side of a `subterminator bench serve`."""

    def __init__(self, agent_url, agent_name="agent"):
        self._base = agent_url.rstrip("/")
        self.name = agent_name

    def flows(self, split=None):
        """Every flow's summary: id, service, brand, plugin, language,
        start_path, split, tricks, shapes."""
        return _call(self._base, "GET", "/flows" + (f"?split={split}" if split else ""))

    def start(self, flow, pass_="yes-to-all", split="development"):
        """A fresh run of `flow`; a held-out flow needs split="held-out"."""
        body = {"flow": flow, "pass": pass_, "split": split, "agent": self.name}
        return Run(self._base, _call(self._base, "POST", "/runs", body))
