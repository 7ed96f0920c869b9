async (page) => {
  // Filled in by guard.rs: the rules, compiled to regexes there (so the Rust
  // unit tests check the very patterns used here), and what this call does.
  const RULES = /*RULES*/null;
  const OP = /*OP*/null;
  const KEEP = /*KEEP*/0;
  const URL_CHARS = /*URL_CHARS*/0;
  const BODY_CHARS = /*BODY_CHARS*/0;
  // Hops of a redirect chain walked, as many as Chromium follows; and how
  // long one HEAD may take before the navigation goes unwalked.
  const MAX_HOPS = 20;
  const HEAD_MS = 10000;
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
  // A request's path, and its query and body without the addresses in
  // them, decoded: what it asks the server to do, for the person mode.
  const ADDRESSES = /(?:[a-z][a-z0-9+.-]*:\/\/|\/)[^\s&"'<>,;]*/gi;
  const personText = (request) => {
    let body = '';
    try { body = request.postData() || ''; } catch (e) { body = ''; }
    let path = '';
    let query = '';
    try { const u = new URL(request.url()); path = u.pathname; query = u.search; } catch (e) { path = request.url(); }
    // Decoded as far as it goes first: an address written `%2Faccount`
    // is one too.
    const rest = spellings(query + ' ' + body.slice(0, 4000)).pop().replace(ADDRESSES, ' ');
    return spellings(path).join(' ') + ' ' + rest;
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

  // Whether a request the guard lets pass has its redirects walked first
  // (`passHops`): a route sees only the first URL of a chain, so a harmless
  // link that redirects to a commit URL would otherwise commit unseen. Only
  // while no action is approved, and only a navigation's GET (a page or a
  // frame): a script that wants a commit URL can ask for it outright,
  // where it is judged.
  const hopByHop = (g, request) => !g.mode.approved && !g.mode.person
    && request.method().toUpperCase() === 'GET'
    && request.isNavigationRequest()
    && request.url().startsWith('http');

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
    if (mode.person) {
      // The person signs in while the host waits: their requests go, but
      // not one that reads as a commit (the page's scripts run too, and
      // nobody is asked now). What a request does is in its path, its
      // query and its fields; a return address in them (a sign-in form's
      // `return_to=/account/cancel`) only says where the person goes back.
      if (pattern) return ['stop', pattern + ', sent while the person signed in'];
      if (changes && g.rules.words.some((re) => re.test(personText(request)))) {
        return ['stop', 'a ' + method + ' request that reads as a commit, sent while the person signed in'];
      }
      return ['pass'];
    }
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
      // Held: the request waits, the page with it, until the person
      // answers (`decide`), or the browser goes away. True for a yes.
      const held = async (what, why, body) => {
        if (g.held.length >= KEEP) { g.dropped += 1; return false; }
        const id = g.next++;
        const decided = new Promise((resolve) => g.waiting.set(id, { resolve, request }));
        g.held.push({ ...what, id, why, body, action: g.mode.action || '' });
        return decided;
      };
      // Redirects, hop by hop. The route is called for the first URL of a
      // chain only, and a 3xx fulfilled here is followed by the browser
      // unseen too (Playwright issues 23301, 33882); a page fulfilled from
      // here is not the page the browser would have loaded (a local copy's
      // calls to its API on another loopback origin failed from one). So
      // before a navigation goes, its chain is walked from here with HEAD
      // requests, redirects off: each next hop judged as the browser would
      // send it, held (and put to the person) or stopped like any request,
      // and the page left where it was on a no. Then the browser goes, as
      // it would have. A server that answers HEAD otherwise than GET is not
      // walked. `allowed`: the person let this navigation go, and a
      // navigation away from a page that commits is not asked about again
      // for each hop.
      const passHops = async (allowed) => {
        let url = request.url();
        for (let hop = 0; hop < MAX_HOPS; hop++) {
          let next = null;
          try {
            const response = await route.fetch({ url, method: 'HEAD', maxRedirects: 0, timeout: HEAD_MS });
            const status = response.status();
            const location = response.headers()['location'];
            if (status >= 300 && status < 400 && location) next = new URL(location, url).href;
          } catch (e) { next = null; }
          if (!next) break;
          const hopRequest = {
            method: () => 'GET',
            url: () => next,
            isNavigationRequest: () => true,
            frame: () => (allowed ? { parentFrame: () => 'a hop the person let go' } : request.frame()),
            postData: () => null,
            resourceType: () => request.resourceType(),
          };
          let verdict;
          try { verdict = judge(g, hopRequest); } catch (e) { verdict = ['hold', 'a redirect the guard could not judge']; }
          const hopEntry = { method: 'GET', url: next.slice(0, URL_CHARS), navigation: isTop(request) };
          if (verdict[0] === 'stop') {
            if (g.stopped.length < KEEP) g.stopped.push({ ...hopEntry, why: verdict[1] + ' (a redirect)' }); else g.dropped += 1;
            return stop();
          }
          if (verdict[0] === 'hold') {
            if (!(await held(hopEntry, verdict[1] + ' (a redirect)', ''))) return stop();
            allowed = true;
          }
          url = next;
        }
        return pass();
      };
      // A document request aborted as 'blockedbyclient' makes Chromium
      // commit its error page, losing the page and its refs; 'aborted'
      // leaves the page as it was. Scripts get the clearer error.
      const stop = async () => {
        try { await route.abort(request.isNavigationRequest() ? 'aborted' : 'blockedbyclient'); } catch (e) { /* gone */ }
      };
      if (verdict[0] === 'pass') return hopByHop(g, request) ? passHops(false) : pass();
      if (verdict[0] === 'release') {
        if (g.released.length < KEEP) g.released.push({ ...entry, action: g.mode.action || '' }); else g.dropped += 1;
        return pass();
      }
      if (verdict[0] === 'stop') {
        if (g.stopped.length < KEEP) g.stopped.push({ ...entry, why: verdict[1] }); else g.dropped += 1;
        return stop();
      }
      if (!(await held(entry, verdict[1], summary(request)))) return stop();
      return hopByHop(g, request) ? passHops(true) : pass();
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
