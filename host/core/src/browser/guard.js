async (page) => {
  // Filled in by guard.rs: the rules, compiled to regexes there (so the Rust
  // unit tests check the very patterns used here), and what this call does.
  const RULES = /*RULES*/null;
  const OP = /*OP*/null;
  const KEEP = /*KEEP*/0;
  const URL_CHARS = /*URL_CHARS*/0;
  const MARK = /*MARK*/'';

  // The answer travels as a thrown error: a function that returns makes the
  // server wait its settle time (500 ms) after it; one that throws does not.
  const reply = (answer) => { throw new Error(MARK + JSON.stringify(answer)); };

  const ctx = page.context();
  const KEY = '__subterminatorGuard';
  // Methods that never change anything on a well-behaved server; CORS
  // preflights are OPTIONS.
  const SAFE = ['GET', 'HEAD', 'OPTIONS'];

  const originOf = (u) => {
    try { return new URL(u).origin.toLowerCase(); } catch (e) { return ''; }
  };
  // `/api/%63ancel` reaches most servers as `/api/cancel`: match the decoded
  // forms too (a few passes undo double encoding).
  const spellings = (u) => {
    const out = [u];
    let cur = u;
    for (let i = 0; i < 3; i++) {
      const next = cur.replace(/%([0-9a-fA-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
      if (next === cur) break;
      out.push(next);
      cur = next;
    }
    return out;
  };
  const compile = (rules) => ({
    origins: rules.origins.map((o) => originOf(o) || String(o).toLowerCase()),
    commit: rules.commit.map((c) => ({ method: c.method, re: new RegExp(c.regex, 'i'), why: c.why })),
  });

  // Why `request` must be stopped in mode `mode`, or null to let it through.
  const judge = (g, request) => {
    const mode = g.mode;
    if (mode.open) return null;
    const method = request.method().toUpperCase();
    const url = request.url();
    const forms = spellings(url);
    for (const c of g.rules.commit) {
      if ((c.method === '*' || c.method === method) && forms.some((u) => c.re.test(u))) return c.why;
    }
    const document = request.isNavigationRequest();
    const ours = g.rules.origins.includes(originOf(url));
    if (mode.posts && !SAFE.includes(method)) {
      if (document) return 'a form submission';
      if (ours) return 'a ' + method + ' request to the service';
    }
    if (mode.navs && document && ours && isTop(request)) return 'a navigation';
    return null;
  };
  // Service-worker requests have no frame and throw here: not top-level.
  const isTop = (request) => {
    try { return request.frame().parentFrame() === null; } catch (e) { return false; }
  };

  let g = ctx[KEY];
  const fresh = !g;
  if (!g) {
    g = { mode: OP.mode, rules: compile(RULES), blocked: [], dropped: 0 };
    // Every URL, whatever its scheme: a glob could miss one.
    g.matcher = () => true;
    g.handler = async (route) => {
      const request = route.request();
      let why;
      try {
        why = judge(g, request);
      } catch (e) {
        // Fail closed: a request the guard cannot judge is not let through.
        why = g.mode.open ? null : 'a request the guard could not judge (' + String(e).slice(0, 200) + ')';
      }
      if (why === null) {
        // `fallback`, not `continue`: other routes (browser_route's) still
        // get their turn.
        try { await route.fallback(); } catch (e) { /* the page went away */ }
        return;
      }
      const navigation = request.isNavigationRequest() && isTop(request);
      if (g.blocked.length < KEEP) {
        g.blocked.push({ method: request.method(), url: request.url().slice(0, URL_CHARS), why, navigation });
      } else {
        g.dropped += 1;
      }
      // A document request aborted as 'blockedbyclient' makes Chromium
      // commit its error page, losing the page and its refs; 'aborted'
      // leaves the page as it was. Scripts get the clearer error.
      const reason = request.isNavigationRequest() ? 'aborted' : 'blockedbyclient';
      try { await route.abort(reason); } catch (e) { /* the page went away */ }
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
  if (OP.op === 'install') { g.blocked = []; g.dropped = 0; }
  if (OP.op === 'take') {
    const blocked = g.blocked;
    const dropped = g.dropped;
    g.blocked = [];
    g.dropped = 0;
    reply({ fresh, blocked, dropped });
  }
  reply({ fresh, blocked: [], dropped: 0 });
}
