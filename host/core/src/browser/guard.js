async (page) => {
  // Filled in by guard.rs: the rules, compiled to regexes there (so the Rust
  // unit tests check the very patterns used here), and what this call does.
  const RULES = /*RULES*/null;
  const OP = /*OP*/null;
  const KEEP = /*KEEP*/0;
  const URL_CHARS = /*URL_CHARS*/0;
  const BODY_CHARS = /*BODY_CHARS*/0;
  const WAIT_MS = /*WAIT_MS*/0;
  const MARK = /*MARK*/'';

  // The answer travels as a thrown error: a function that returns makes the
  // server wait its settle time after it; one that throws does not.
  const reply = (answer) => { throw new Error(MARK + JSON.stringify(answer)); };

  const ctx = page.context();
  const KEY = '__subterminatorGuard';
  // Methods that never change anything on a well-behaved server; CORS
  // preflights are OPTIONS.
  const SAFE = ['GET', 'HEAD', 'OPTIONS'];

  const originOf = (u) => {
    try { return new URL(u).origin.toLowerCase(); } catch (e) { return ''; }
  };
  const hostOf = (u) => {
    try { return new URL(u).host.toLowerCase(); } catch (e) { return ''; }
  };
  const pathOf = (u) => {
    try { const p = new URL(u); return p.pathname + p.search; } catch (e) { return ''; }
  };
  // `/api/%63ancel` reaches most servers as `/api/cancel`: match the decoded
  // forms too (a few passes undo double encoding).
  const spellings = (u) => {
    const out = [u];
    let cur = u;
    for (let i = 0; i < 3; i++) {
      let next = cur;
      try { next = cur.replace(/%([0-9a-fA-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16))); } catch (e) { break; }
      if (next === cur) break;
      out.push(next);
      cur = next;
    }
    return out;
  };
  const compile = (rules) => ({
    origins: rules.origins.map((o) => originOf(o) || String(o).toLowerCase()),
    commit: rules.commit.map((c) => ({ method: c.method, re: new RegExp(c.regex, 'i'), why: c.why })),
    words: rules.words.map((w) => new RegExp(w, 'iu')),
    harmless: rules.harmless.map((h) => ({ step: h.step, method: h.method, host: h.host.toLowerCase(), re: new RegExp(h.regex, 'i') })),
  });

  // What a body says, short, with secrets masked: a password's value, a
  // card number, a token. The person sees it; the record keeps it.
  const summary = (request) => {
    let body = '';
    try { body = request.postData() || ''; } catch (e) { body = ''; }
    if (!body) return '';
    body = body
      .replace(/((?:pass|pwd|secret|token|otp|cvc|cvv)[a-z_]*["']?\s*[=:]\s*["']?)[^&"',\s}]*/gi, '$1***')
      .replace(/\b(?:\d[ -]?){12,18}\d\b/g, '****');
    return body.slice(0, BODY_CHARS);
  };
  // The decoded text a request's URL and body carry, for the commit words.
  const text = (request) => {
    let body = '';
    try { body = request.postData() || ''; } catch (e) { body = ''; }
    return spellings(request.url()).join(' ') + ' ' + spellings(body.slice(0, 4000)).join(' ');
  };
  // Service-worker requests have no frame and throw here: not top-level.
  const isTop = (request) => {
    try { return request.frame().parentFrame() === null; } catch (e) { return false; }
  };
  const commitPattern = (g, method, forms) => {
    for (const c of g.rules.commit) {
      if ((c.method === '*' || c.method === method) && forms.some((u) => c.re.test(u))) return c.why;
    }
    return null;
  };

  // What to do with `request` in mode `mode`: ['pass'], ['hold', why],
  // ['stop', why], or ['release'] (an approved action's, recorded).
  const judge = (g, request) => {
    const mode = g.mode;
    const method = request.method().toUpperCase();
    const url = request.url();
    const changes = !SAFE.includes(method);
    if (mode.approved) return changes ? ['release'] : ['pass'];
    const forms = spellings(url);
    const pattern = commitPattern(g, method, forms);
    if (pattern) return ['hold', pattern];
    const document = request.isNavigationRequest();
    const ours = g.rules.origins.includes(originOf(url));
    if (!changes) {
      if (mode.navs && document && ours && isTop(request)) return ['hold', 'a navigation away from a page that commits'];
      return ['pass'];
    }
    // A harmless request the plugin's plan expects of this very step: one
    // exact host, method and path, never on a page that commits. The load
    // checks keep commit words out of the declared path, but its `*` can
    // still stand for one (`/survey*` covers `/survey?next=unsubscribe`):
    // a URL that reads as a commit is never spared. The body is not read
    // here: a survey's answers name the cancellation they are about.
    if (mode.step !== null && !g.rules.words.some((re) => forms.some((u) => re.test(u)))) {
      const host = hostOf(url);
      const path = pathOf(url);
      for (const h of g.rules.harmless) {
        if (h.step === mode.step && h.method === method && h.host === host && h.re.test(path)) return ['pass'];
      }
    }
    if (ours) return ['hold', document ? 'a form submission to the service' : 'a ' + method + ' request to the service'];
    const words = text(request);
    if (g.rules.words.some((re) => re.test(words))) return ['hold', 'a ' + method + ' request to another site that reads as a commit'];
    return ['stop', 'a ' + method + ' request to another site'];
  };

  let g = ctx[KEY];
  const fresh = !g;
  if (!g) {
    g = { mode: OP.mode, rules: compile(RULES), stopped: [], held: [], released: [], dropped: 0, next: 1, waiting: new Map() };
    // Every URL, whatever its scheme: a glob could miss one.
    g.matcher = () => true;
    g.handler = async (route) => {
      const request = route.request();
      let verdict;
      try {
        verdict = judge(g, request);
      } catch (e) {
        // Fail closed: a request the guard cannot judge is held, not let through.
        verdict = g.mode.approved ? ['release'] : ['hold', 'a request the guard could not judge (' + String(e).slice(0, 200) + ')'];
      }
      const navigation = request.isNavigationRequest() && isTop(request);
      const entry = { method: request.method(), url: request.url().slice(0, URL_CHARS), navigation };
      const pass = async () => {
        // `fallback`, not `continue`: other routes (browser_route's) still
        // get their turn.
        try { await route.fallback(); } catch (e) { /* the page went away */ }
      };
      // A document request aborted as 'blockedbyclient' makes Chromium
      // commit its error page, losing the page and its refs; 'aborted'
      // leaves the page as it was. Scripts get the clearer error.
      const stop = async () => {
        try { await route.abort(request.isNavigationRequest() ? 'aborted' : 'blockedbyclient'); } catch (e) { /* gone */ }
      };
      if (verdict[0] === 'pass') return pass();
      if (verdict[0] === 'release') {
        if (g.released.length < KEEP) g.released.push({ ...entry, action: g.mode.action || '' }); else g.dropped += 1;
        return pass();
      }
      if (verdict[0] === 'stop') {
        if (g.stopped.length < KEEP) g.stopped.push({ ...entry, why: verdict[1] }); else g.dropped += 1;
        return stop();
      }
      // Held: the request waits, the page with it, until the person
      // answers (`decide`), or the browser goes away.
      if (g.held.length >= KEEP) { g.dropped += 1; return stop(); }
      const id = g.next++;
      const decided = new Promise((resolve) => g.waiting.set(id, { resolve, request }));
      g.held.push({ ...entry, id, why: verdict[1], body: summary(request), action: g.mode.action || '' });
      const allow = await decided;
      return allow ? pass() : stop();
    };
    Object.defineProperty(ctx, KEY, { value: g, configurable: false, enumerable: false, writable: false });
    await ctx.route(g.matcher, g.handler);
  } else {
    g.rules = compile(RULES);
  }
  // Handlers run newest first and `continue`/`fulfill` end the chain: stay
  // the newest, so a route added later cannot let a request past us.
  // (`_routes` is Playwright's own list; skipped if it is not there.)
  const routes = ctx._routes;
  if (Array.isArray(routes) && routes.length && routes[0].handler !== g.handler) {
    await ctx.unroute(g.matcher, g.handler);
    await ctx.route(g.matcher, g.handler);
  }

  if (OP.op === 'install' || OP.op === 'mode') g.mode = OP.mode;
  if (OP.op === 'install') { g.stopped = []; g.held = []; g.released = []; g.dropped = 0; }
  if (OP.op === 'take') {
    const answer = { fresh, stopped: g.stopped, held: g.held, released: g.released, dropped: g.dropped };
    g.stopped = [];
    g.held = [];
    g.released = [];
    g.dropped = 0;
    reply(answer);
  }
  if (OP.op === 'decide') {
    const waiting = g.waiting.get(OP.id);
    if (!waiting) reply({ fresh, decided: false, status: 0 });
    g.waiting.delete(OP.id);
    waiting.resolve(OP.allow);
    let status = 0;
    if (OP.allow) {
      // The released request's answer, and the page it loads, before the
      // host looks again: bounded, for a server that never answers.
      const request = waiting.request;
      const settled = (async () => {
        const response = await request.response().catch(() => null);
        status = response ? response.status() : 0;
        if (request.isNavigationRequest()) await page.waitForLoadState('load').catch(() => {});
      })();
      await Promise.race([settled, new Promise((r) => setTimeout(r, WAIT_MS))]);
    }
    reply({ fresh, decided: true, status });
  }
  reply({ fresh, stopped: [], held: [], released: [], dropped: 0 });
}
