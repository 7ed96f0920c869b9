#!/usr/bin/env python3
"""A foreign agent for CancelBench: plain Playwright MCP plus a "model" that
is a keyword policy (no LLM), written from host/bench/README.md alone, the
way an outside team would wire its own agent to the bench.

    python3 keyword_agent.py --bench http://127.0.0.1:8722 \\
        --flow netflix-base-en --flow hulu-base-en --passes yes-to-all,no-at-commit

Per flow and pass it starts a run (`cancelbench.py`), opens the run's start
address in Playwright MCP (`npx @playwright/mcp`, driven with the official
MCP Python SDK), and then, up to MAX_STEPS times: reads the page's
accessibility snapshot, stops with a claim of success when the page reads as
cancelled, otherwise picks the link or button whose name scores best on
cancel-ish words in fourteen languages (offer, pause and keep words score
against), asks the bench first when that control looks like the last step,
and clicks it. Nothing matching ends the run with a claim of failure.

It is meant to be plausible and somewhat careless, not good: it asks only
when a control *looks* final, reads "cancelled" anywhere on the page as done
and fills surveys with whatever comes last. The bench's scorer says how that
went; this script prints one JSON line per run (`run`, `flow`, `pass`,
`claim`, `steps`, `seconds`; a run whose browser broke says steps -1 and
claims "none") and exits 0 once its loop has run.

One Playwright MCP serves every run, `browser_close` between runs giving
the next a fresh browser context: about 3.6 s a run on two cores, against
5.1 s starting one per run (`--fresh-mcp`). A call that takes longer than
CALL_TIMEOUT_S ends its run and the next run starts a new Playwright MCP.

Needs the official MCP Python SDK (`pip install mcp`), Node's `npx` with
@playwright/mcp, a Chromium, and `cancelbench.py` beside it.
"""

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
import time

import anyio

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from cancelbench import Bench, BenchError  # noqa: E402

PLAYWRIGHT_MCP = "@playwright/mcp@0.0.83"

# A run gives up after this many snapshots: every flow's honest path is
# shorter (six clicks at most), so more means the policy is going round.
MAX_STEPS = 15
# One browser tool call may take this long (Playwright's own navigation
# timeout is 60 s; the bench's pages answer in milliseconds).
CALL_TIMEOUT_S = 30.0
# Starting Playwright MCP (npx, Node, then Chromium on the first call).
START_TIMEOUT_S = 90.0

# Words that move towards a cancellation, lower-cased; matched as substrings.
CANCEL = [
    "cancel", "unsubscribe", "terminate", "end membership", "end subscription", "end my",
    "kündig", "kündigung", "beenden", "annuler", "annulation", "résili", "mettre fin",
    "cancelar", "cancelación", "dar de baja", "baja", "terminar", "annulla", "annullamento", "disdici",
    "disdetta", "cancelamento", "opzeggen", "opzegging", "beëindig", "annuleren", "avsluta",
    "säg upp", "uppsägning", "anuluj", "anulowa", "rezygn", "wypowiedz", "解約", "キャンセル",
    "退会", "해지", "취소", "取消", "退订", "إلغاء", "الغاء", "iptal",
]
# Words that go on to the next screen.
CONTINUE = [
    "continue", "next", "proceed", "weiter", "fortfahren", "continuer", "suivant", "continuar",
    "siguiente", "continua", "avanti", "próximo", "doorgaan", "verder", "volgende", "fortsätt",
    "nästa", "dalej", "kontynuuj", "続ける", "次へ", "続行", "계속", "다음", "继续", "下一步",
    "متابعة", "التالي", "devam", "ileri",
]
# Words that decline an offer (the way on past it).
DECLINE = [
    "no thanks", "no, thanks", "decline", "nein, danke", "nein danke", "non merci", "non, merci",
    "no, gracias", "no gracias", "no, grazie", "no grazie", "não, obrigado", "nee, bedankt",
    "nej tack", "nie, dziękuję", "nie dziękuję", "結構です", "いいえ", "괜찮습니다", "아니요",
    "不用了", "不，谢谢", "لا، شكرا", "hayır, teşekkür", "no, ", "non, ", "nein, ", "nee, ", "nej, ",
    "nie, ", "não, ", "skip", "überspringen", "passer", "omitir", "saltar", "salta", "pular",
    "overslaan", "hoppa över", "pomiń", "スキップ", "건너뛰기", "跳过", "تخطي", "atla",
]
# Words of the account's settings, the way into them.
MANAGE = [
    "manage", "account", "membership", "subscription", "verwalten", "konto", "abo", "gérer",
    "compte", "abonnement", "gestionar", "cuenta", "suscripción", "gestisci", "abbonamento",
    "gerenciar", "assinatura", "beheren", "lidmaatschap", "hantera", "medlemskap", "zarządzaj",
    "subskrypcj", "管理", "メンバーシップ", "관리", "멤버십", "会员", "订阅", "إدارة", "yönet", "üyelik",
]
# Words of a control that keeps, pauses or sells: never pressed on purpose.
AVOID = [
    "keep", "pause", "stay", "accept", "offer", "discount", "save", "downgrade", "switch",
    "restart", "resume", "back", "don't", "do not", "not cancel", "upgrade", "add ", "buy",
    "behalten", "pausieren", "angebot", "nicht", "zurück", "garder", "offre", "pas ", "retour",
    "mantener", "pausar", "oferta", "volver", "mantieni", "offerta", "metti in pausa", "manter",
    "behouden", "pauzeren", "aanbieding", "niet", "behåll", "pausa", "erbjudande", "zachowaj",
    "wstrzymaj", "oferta", "nie ", "続ける特典", "一時停止", "特典", "유지", "일시정지", "혜택",
    "保留", "暂停", "优惠", "الاحتفاظ", "إيقاف", "عرض", "koru", "duraklat", "teklif",
]
# Words of a control that is the last step.
FINAL = [
    "confirm", "finish", "complete", "yes, cancel", "submit", "jetzt kündigen", "bestätigen",
    "abschließen", "endgültig", "confirmer", "terminer", "confirmar", "finalizar", "conferma",
    "concludi", "bevestig", "afronden", "bekräfta", "slutför", "potwierdź", "zakończ", "確定",
    "完了", "확인", "완료", "确认", "完成", "تأكيد", "onayla", "tamamla",
]
# Words of a page that says it is the last step.
LAST_PAGE = [
    "are you sure", "confirm", "final step", "last step", "bestätig", "letzter schritt",
    "êtes-vous sûr", "estás seguro", "sei sicuro", "tem certeza", "weet je zeker",
    "är du säker", "czy na pewno", "本当に", "확실", "确定要", "هل أنت متأكد", "emin misiniz",
]
# Words of a page that says it is done.
DONE = [
    "has been cancel", "have been cancel", "was cancel", "is cancel", "been canceled",
    "gekündigt", "beendet", "annulé", "résilié", "cancelad", "annullat", "disdett",
    "cancelado", "opgezegd", "beëindigd", "geannuleerd", "avslutad", "uppsagd", "anulowan",
    "キャンセルされ", "解約され", "解約しました", "キャンセルしました", "해지되었", "취소되었",
    "已取消", "已退订", "تم إلغاء", "iptal edildi",
]

# `- button "Name" [ref=e12]`, with any attributes between name and ref.
CONTROL = re.compile(r'^(\s*)- (link|button|radio|combobox|checkbox|textbox) "((?:[^"\\]|\\.)*)"(.*?)\[ref=([a-z0-9]+)\]')
OPTION = re.compile(r'^\s*- option "((?:[^"\\]|\\.)*)"')
TEXT = re.compile(r'^\s*- (?:heading|paragraph|text|status|alert|strong|generic|cell)\b[^:]*: ?(.*)$')
TEXT_NAMED = re.compile(r'^\s*- (?:heading|paragraph|status|alert) "((?:[^"\\]|\\.)*)"')


def has(text, words):
    text = text.lower()
    return any(w in text for w in words)


def parse(snapshot):
    """Controls (role, name, ref, attributes, options) and the page's words."""
    controls, words = [], []
    lines = snapshot.splitlines()
    for i, line in enumerate(lines):
        found = CONTROL.match(line)
        if found:
            _, role, name, attrs, ref = found.groups()
            name = name.replace('\\"', '"')
            options = []
            if role == "combobox":
                for below in lines[i + 1:]:
                    opt = OPTION.match(below)
                    if not opt:
                        break
                    options.append(opt.group(1))
            controls.append({"role": role, "name": name, "ref": ref, "attrs": attrs, "options": options})
            continue
        for pattern in (TEXT_NAMED, TEXT):
            said = pattern.match(line)
            if said and said.group(1).strip():
                words.append(said.group(1).strip().strip('"'))
                break
    return controls, " \n".join(words)


def score(name):
    """How cancel-ish a control's name reads; below 1 is not worth a click."""
    low = name.lower()
    if has(low, AVOID) and not has(low, DECLINE):
        return -10
    points = 0
    points += 4 if has(low, CANCEL) else 0
    points += 3 if has(low, DECLINE) else 0
    points += 2 if has(low, CONTINUE) else 0
    points += 1 if has(low, FINAL) else 0
    points += 1 if has(low, MANAGE) else 0
    return points


def url_of(text):
    """The page's address in a tool's answer."""
    url = re.search(r"- Page URL: (\S+)", text)
    return url.group(1) if url else ""


class Browser:
    """One Playwright MCP session, restarted when it breaks."""

    def __init__(self, chromium, workdir):
        self.chromium = chromium
        self.workdir = workdir
        self.stack = None
        self.session = None

    async def open(self):
        self.stack = contextlib.AsyncExitStack()
        args = ["-y", PLAYWRIGHT_MCP, "--headless", "--isolated", "--no-sandbox",
                "--executable-path", self.chromium, "--output-dir", self.workdir]
        params = StdioServerParameters(command="npx", args=args, cwd=self.workdir, env=dict(os.environ))
        errlog = open(os.path.join(self.workdir, "playwright-mcp.log"), "a")
        self.stack.callback(errlog.close)
        read, write = await self.stack.enter_async_context(stdio_client(params, errlog=errlog))
        self.session = await self.stack.enter_async_context(ClientSession(read, write))
        with anyio.fail_after(START_TIMEOUT_S):
            await self.session.initialize()

    async def close(self):
        if self.stack is not None:
            stack, self.stack, self.session = self.stack, None, None
            # No timeout of our own around it: the SDK's task group must be
            # left in the scope it was entered in, and its shutdown already
            # stops the server process within seconds (SIGTERM, then SIGKILL).
            with contextlib.suppress(Exception):
                await stack.aclose()

    async def call(self, tool, args):
        """The tool's text (an error's too: the policy reads the next snapshot
        either way); raises on a timeout or a broken session."""
        if self.session is None:
            await self.open()
        with anyio.fail_after(CALL_TIMEOUT_S + 5):
            result = await self.session.call_tool(tool, args, read_timeout_seconds=CALL_TIMEOUT_S)
        return "\n".join(getattr(c, "text", "") for c in result.content)


async def drive(browser, run, log, snapshots=False):
    """One run's loop; returns (claim, steps)."""
    await browser.call("browser_navigate", {"url": run.start_url})
    clicked = set()
    for step in range(1, MAX_STEPS + 1):
        text = await browser.call("browser_snapshot", {})
        if "### Modal state" in text:
            # A dialog waits (confirm()): a person clicked towards it, so yes.
            log(f"step {step}: dialog, accepted")
            await browser.call("browser_handle_dialog", {"accept": True})
            continue
        url = url_of(text)
        controls, words = parse(text)
        if snapshots:
            log(text)
        if step > 1 and has(words, DONE):
            log(f"step {step}: done: {url}")
            return "success", step
        for box in controls:
            # Surveys: the last reason there is, once per page.
            if box["role"] == "combobox" and box["options"] and (url, box["ref"]) not in clicked:
                clicked.add((url, box["ref"]))
                log(f"step {step}: select {box['name']!r} = {box['options'][-1]!r}")
                await browser.call("browser_select_option", {
                    "element": f'combobox "{box["name"]}"', "target": box["ref"], "values": [box["options"][-1]]})
        radios = [b for b in controls if b["role"] == "radio"]
        if radios and not any((url, b["name"]) in clicked for b in radios):
            best = max(radios, key=lambda b: score(b["name"]))
            pick = best if score(best["name"]) > 0 else radios[-1]
            clicked.add((url, pick["name"]))
            if "[checked]" not in pick["attrs"]:
                log(f"step {step}: check {pick['name']!r}")
                await browser.call("browser_click", {"element": f'radio "{pick["name"]}"', "target": pick["ref"]})
        choices = [b for b in controls if b["role"] in ("link", "button") and "[disabled]" not in b["attrs"]
                   and (url, b["name"]) not in clicked]
        ranked = sorted(choices, key=lambda b: score(b["name"]), reverse=True)
        if not ranked or score(ranked[0]["name"]) < 1:
            log(f"step {step}: nothing to press on {url}")
            return "failure", step
        pick = ranked[0]
        if has(pick["name"], FINAL) or (has(words, LAST_PAGE) and has(pick["name"], CANCEL)):
            yes = await asyncio.to_thread(
                run.ask, f'May I press "{pick["name"]}"? It looks like the step that cancels.', pick["name"])
            log(f"step {step}: asked about {pick['name']!r}: {'yes' if yes else 'no'}")
            if not yes:
                return "failure", step
        clicked.add((url, pick["name"]))
        log(f"step {step}: click {pick['role']} {pick['name']!r} on {url}")
        text = await browser.call("browser_click", {"element": f'{pick["role"]} "{pick["name"]}"', "target": pick["ref"]})
        if "### Modal state" in text:
            log(f"step {step}: dialog, accepted")
            await browser.call("browser_handle_dialog", {"accept": True})
    return "failure", MAX_STEPS


async def run_all(options, bench, flows, passes):
    workdir = tempfile.mkdtemp(prefix="keyword-agent-")
    browser = Browser(options.chromium, workdir)
    verbose = options.verbose

    def log(line):
        if verbose:
            print(f"  {line}", file=sys.stderr, flush=True)

    try:
        for flow in flows:
            for pass_ in passes:
                began = time.monotonic()
                run = await asyncio.to_thread(bench.start, flow["id"], pass_, flow["split"])
                log(f"{run.run} {flow['id']} {pass_}")
                try:
                    claim, steps = await drive(browser, run, log, options.snapshots)
                except Exception as e:  # the browser broke: no claim, a fresh one next run
                    print(json.dumps({"run": run.run, "flow": flow["id"], "pass": pass_, "error": repr(e)}),
                          file=sys.stderr, flush=True)
                    claim, steps = "none", -1
                    await browser.close()
                if options.fresh_mcp:
                    await browser.close()
                else:
                    # A fresh page for the next run: closing the browser drops its context.
                    with contextlib.suppress(Exception):
                        await browser.call("browser_close", {})
                with contextlib.suppress(BenchError):
                    await asyncio.to_thread(run.claim, claim)
                await asyncio.to_thread(run.end)
                print(json.dumps({"run": run.run, "flow": flow["id"], "pass": pass_, "claim": claim,
                                  "steps": steps, "seconds": round(time.monotonic() - began, 1)}), flush=True)
    finally:
        await browser.close()
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench", required=True, help="the bench's agent address")
    parser.add_argument("--flow", action="append", default=[], help="a flow id (repeat); default every flow of --split")
    parser.add_argument("--passes", default="yes-to-all,no-at-commit")
    parser.add_argument("--split", default="development", choices=["development", "held-out", "all"])
    parser.add_argument("--name", default="keyword-agent", help="the agent's name in the records")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--fresh-mcp", action="store_true", help="one Playwright MCP per run instead of one for all")
    parser.add_argument("--verbose", action="store_true", help="each step on stderr")
    parser.add_argument("--snapshots", action="store_true", help="with --verbose, every snapshot too")
    options = parser.parse_args()
    bench = Bench(options.bench, options.name)
    flows = bench.flows(None if options.split == "all" else options.split)
    if options.flow:
        known = {f["id"]: f for f in flows}
        missing = [f for f in options.flow if f not in known]
        if missing:
            parser.error(f"no such flow in split {options.split}: {', '.join(missing)}")
        flows = [known[f] for f in options.flow]
    asyncio.run(run_all(options, bench, flows, [p for p in options.passes.split(",") if p]))


if __name__ == "__main__":
    main()
