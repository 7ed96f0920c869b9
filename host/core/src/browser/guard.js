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
  const GRACE_MS = /*GRACE_MS*/0;
  const OWED_MS = /*OWED_MS*/0;
  // How long a released request the browser never reports on (one sent as
  // its page unloaded) is waited for.
  const UNSEEN_MS = 2000;
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
      // As UTF-8 first (`k%C3%BCndigen` is "kündigen"); byte by byte where
      // that fails (a lone `%FF`).
      try { next = decodeURIComponent(cur); } catch (e) {
        try { next = cur.replace(/%([0-9a-fA-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16))); } catch (e2) { break; }
      }
      if (next === cur) break;
      out.push(next);
      cur = next;
    }
    return out;
  };
  // A service with no plugin owns its whole registrable domain over https
  // (`plugin/generic.rs`, `Generic::covers`).
  const onSite = (g, url) => {
    let u;
    try { u = new URL(url); } catch (e) { return false; }
    if (u.protocol !== 'https:') return false;
    const host = u.hostname.toLowerCase();
    return g.rules.sites.some((d) => host === d || host.endsWith('.' + d));
  };
  const compile = (rules) => ({
    origins: rules.origins.map((o) => originOf(o) || String(o).toLowerCase()),
    sites: (rules.sites || []).map((d) => String(d).toLowerCase()),
    commit: rules.commit.map((c) => ({ method: c.method, re: new RegExp(c.regex, 'i'), why: c.why })),
    words: rules.words.map((w) => new RegExp(w, 'iu')),
    harmless: rules.harmless.map((h) => ({ step: h.step, method: h.method, host: h.host.toLowerCase(), re: new RegExp(h.regex, 'i') })),
    reading: Object.fromEntries(Object.entries(rules.reading).map(([k, v]) => [k, new RegExp(v, 'u')])),
  });

  // What a request says it does, by the floor's request reading
  // (`safety/floor/request.rs`, whose tables test these very regexes):
  // 'commits', 'billing', 'confirms' or null. Words are the lowercased
  // text split at anything that is not a letter or a digit.
  const SPLIT = /[^\p{L}\p{N}]+/u;
  const readText = (r, text) => {
    const tokens = String(text).toLowerCase().split(SPLIT).filter((t) => t.length > 0);
    const any = (re) => tokens.some((t) => re.test(t));
    if (r.whole.test(tokens.join(' '))) return 'commits';
    const stem = any(r.stems);
    if (stem && (any(r.acts) || any(r.act_words))) return 'commits';
    const billing = any(r.billing_acts);
    const doing = any(r.acts) || any(r.act_words) || any(r.asks);
    if (billing && (any(r.billing_things) || doing)) return 'billing';
    if (stem && any(r.asks)) return 'confirms';
    return null;
  };
  // `_method=delete` (Rails, Laravel, Symfony): the method the server
  // acts on, whatever the browser sends.
  const OVERRIDE = /(?:^|[?&\s{,"'])_method["']?\s*[=:]\s*["']?(delete|put|patch)/i;
  const methodOf = (request) => {
    const method = request.method().toUpperCase();
    let body = '';
    try { body = request.postData() || ''; } catch (e) { body = ''; }
    let query = '';
    try { query = new URL(request.url()).search; } catch (e) { query = ''; }
    const m = OVERRIDE.exec(spellings(query).pop() + ' ' + spellings(body.slice(0, 4000)).pop());
    return m ? m[1].toUpperCase() : method;
  };
  // The sign-in a person sends at a wall: a post whose fields carry a
  // password, or only who they are (an e-mail-first sign-in) and the
  // form's own hidden fields.
  const SECRET_FIELD = /^(?:pass|passwd|password|pwd|passcode|passphrase|pin|otp|mfa|totp)(?:[_-]?\w*)?$/i;
  const WHO_FIELD = /^(?:e-?mail|username|user|login|identifier|userid|user_id|account|phone|remember(?:[_-]?me)?|next|return_to|returnto|redirect|redirect_uri|continue|csrf\w*|_csrf\w*|authenticity_token|_token|xsrf\w*|state|nonce|utf8)$/i;
  const fieldsOf = (body) => {
    const trimmed = body.trim();
    if (trimmed.startsWith('{')) {
      try { return Object.entries(JSON.parse(trimmed)).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]); } catch (e) { return null; }
    }
    try { return Array.from(new URLSearchParams(trimmed).entries()); } catch (e) { return null; }
  };
  const signsIn = (request) => {
    let body = '';
    try { body = request.postData() || ''; } catch (e) { return false; }
    const fields = fieldsOf(body);
    if (!fields || fields.length === 0) return false;
    if (fields.some(([k, v]) => SECRET_FIELD.test(k) && v.length > 0)) return true;
    return fields.every(([k]) => WHO_FIELD.test(k)) && fields.some(([k, v]) => /^(?:e-?mail|username|user|login|identifier|phone)$/i.test(k) && v.length > 0);
  };

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

  // Whether a navigation the guard lets pass has its redirects walked
  // first (`passHops`): a route sees only the first URL of a chain, so a
  // harmless link that redirects to a commit would otherwise commit
  // unseen. Every navigation's GET (a page or a frame), approved or not.
  const hopByHop = (g, request) => request.method().toUpperCase() === 'GET'
    && request.isNavigationRequest()
    && request.url().startsWith('http');

  // What `request` says it does, for a person: null for a page or an
  // ordinary request. `loads`: a top-level page load (not a redirect hop),
  // where asking words only name the page that asks.
  const says = (g, request, loads) => {
    const reading = readText(g.rules.reading, personText(request));
    if (reading === 'commits') return 'reads as a commit';
    if (reading === 'billing') return 'reads as a change to what the person pays';
    if (reading === 'confirms' && !loads) return 'reads as confirming the cancellation';
    return null;
  };

  // The request an approved action's question showed the person ("submits
  // a form: POST …/cancel") that had not left when the action's call ended
  // and the guard re-armed: a script that submits a moment after the
  // choice, or a busy machine. The yes was given to it, so it goes, once,
  // recorded as that yes's, if it comes before the next action is set
  // (`mode` clears it) and within OWED_MS. Only that method and address:
  // anything else the page sends is judged as ever. Never a redirect hop,
  // never while the person signs in.
  const address = (url, anyQuery) => {
    try {
      const u = new URL(url);
      u.hash = '';
      if (anyQuery) u.search = '';
      return u.href;
    } catch (e) { return null; }
  };
  const sameAddress = (owed, url) => {
    const a = address(url, owed.any_query);
    return a !== null && a === address(owed.url, owed.any_query);
  };
  const takeOwed = (g, mode, method, url, hop) => {
    const owed = g.owed;
    if (!owed || hop || mode.approved || mode.person) return null;
    if (Date.now() > owed.until) { g.owed = null; return null; }
    if (String(method).toUpperCase() !== owed.method || !sameAddress(owed, url)) return null;
    g.owed = null;
    return ['late'];
  };

  // What to do with `request` (`hop`: the next URL of a redirect chain):
  // ['pass'], ['hold', why], ['stop', why], or ['release'] (an approved
  // action's, recorded).
  const judge = (g, request, hop) => {
    const mode = g.mode;
    const sent = request.method().toUpperCase();
    const method = methodOf(request);
    const url = request.url();
    const forms = spellings(url);
    const pattern = commitPattern(g, method, forms) || commitPattern(g, sent, forms);
    const document = request.isNavigationRequest();
    const top = isTop(request);
    // A page loaded: not a redirect hop, except while the person signs in
    // (their sign-in's answer is where it sends them).
    const loads = document && top && (!hop || Boolean(mode.person));
    const said = says(g, request, loads);
    const safe = SAFE.includes(method);
    const changes = !safe || said !== null || pattern !== null;
    const how = method === sent ? method : sent + ' (as ' + method + ')';
    if (mode.approved && (!hop || mode.commits)) return changes ? ['release'] : ['pass'];
    if (mode.person) {
      // The person signs in while the host waits: their sign-in goes, and
      // the pages they load; nothing else that changes anything (the
      // page's scripts run too, and nobody is asked now).
      const why = ', sent while the person signed in';
      if (pattern) return ['stop', pattern + why];
      if (said) return ['stop', 'a ' + how + ' request that ' + said + why];
      if (safe) return ['pass'];
      if (sent === 'POST' && method === 'POST' && signsIn(request)) return ['pass'];
      return ['stop', 'a ' + how + ' request that is not the sign-in' + why];
    }
    if (pattern) return ['hold', pattern + (hop ? ' (a redirect)' : '')];
    // A beacon nothing waits for (analytics as a page unloads): stopped,
    // never asked about, unless it says it commits or changes a bill.
    if (changes && !said && request.resourceType() === 'ping') return ['stop', 'a beacon (' + how + ') that nothing waits for'];
    const ours = g.rules.origins.includes(originOf(url)) || onSite(g, url);
    if (!changes) {
      // After a yes, the page the approved request leads to loads.
      if (mode.navs && !mode.approved && !g.settling && loads && ours) return ['hold', 'a navigation away from a page that commits', 'read'];
      return ['pass'];
    }
    if (safe || hop) return ['hold', 'a ' + how + ' request that ' + said + (ours ? '' : ' (to another site)') + (hop ? ' (a redirect)' : '')];
    // A harmless request the plugin's plan expects of this very step: one
    // exact host, method and path, never on a page that commits. The load
    // checks keep commit words out of the declared path, but its `*` can
    // still stand for one (`/survey*` covers `/survey?next=unsubscribe`):
    // a URL that reads as a commit is never spared. The body is not read
    // here: a survey's answers name the cancellation they are about.
    if (mode.step !== null && method === sent && !g.rules.words.some((re) => forms.some((u) => re.test(u)))) {
      const host = hostOf(url);
      const path = pathOf(url);
      for (const h of g.rules.harmless) {
        if (h.step === mode.step && h.method === method && h.host === host && h.re.test(path)) return ['pass'];
      }
    }
    // What pays for what is said (the host never makes such a change
    // without a yes before the action, and aborts it unasked).
    const bills = said !== null && said.includes('pays') ? ' that ' + said : '';
    if (ours) return ['hold', (document ? 'a form submission to the service' : 'a ' + how + ' request to the service') + bills];
    const words = text(request);
    if (said || g.rules.words.some((re) => re.test(words))) return ['hold', 'a ' + how + ' request to another site that reads as a commit'];
    return ['stop', 'a ' + how + ' request to another site'];
  };

  // The layer that sees every request: the DevTools protocol's Fetch
  // domain on a browser-level session. A route sees neither the hops of a
  // redirect nor what a page sends as it unloads (a beacon on `pagehide`, a
  // keepalive fetch on `visibilitychange`) nor a shared worker's requests;
  // Fetch pauses each of them, before anything is sent, whatever the target
  // (measured with Playwright 1.64 and Chromium 156: every hop, beacons and
  // keepalives at unload even as the page closes, a shared worker's post).
  // Each is judged here by the same rules: passed, released, stopped, or
  // held and put to the person. Without it (a browser that offers no such
  // session) the route judges, walking redirects with HEAD.
  const watchEveryRequest = async (g) => {
    const browser = ctx.browser();
    if (!browser || typeof browser.newBrowserCDPSession !== 'function') return null;
    const cdp = await browser.newBrowserCDPSession();
    // A browser-level session sees every context: on a browser the person
    // attached (`--cdp-endpoint`), their own tabs too. Only this context's
    // targets are judged; another context's requests go on untouched. A
    // request whose frame is not known to be another's is judged (fail
    // closed). A page target's id is its main frame's.
    let mine = '';
    try {
      const own = await ctx.newCDPSession(page);
      const { targetInfo } = await own.send('Target.getTargetInfo');
      mine = targetInfo.browserContextId || '';
      await own.detach().catch(() => {});
    } catch (e) { mine = ''; }
    const tops = new Set();
    const others = new Set();
    const findTops = async () => {
      try {
        const { targetInfos } = await cdp.send('Target.getTargets');
        for (const t of targetInfos) {
          if (mine !== '' && t.browserContextId && t.browserContextId !== mine) others.add(t.targetId);
          else if (t.type === 'page') tops.add(t.targetId);
        }
      } catch (e) { /* keep what is known */ }
    };
    await findTops();
    cdp.on('Fetch.requestPaused', (e) => { paused(g, cdp, e, tops, others, findTops).catch(() => {}); });
    await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
    return cdp;
  };
  // A paused request's body: inline, or in entries of base64 bytes.
  const pausedBody = (r) => {
    if (typeof r.postData === 'string') return r.postData;
    if (Array.isArray(r.postDataEntries)) {
      return r.postDataEntries.map((p) => (p.bytes ? Buffer.from(p.bytes, 'base64').toString('utf8') : '')).join('');
    }
    return null;
  };
  const paused = async (g, cdp, e, tops, others, findTops) => {
    // Judged under the mode in force when it paused: an approved action's
    // own request is not held because the guard re-armed while this
    // handler waited on the browser below.
    const mode = g.mode;
    const go = () => cdp.send('Fetch.continueRequest', { requestId: e.requestId }).catch(() => {});
    const fail = () => cdp.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'Aborted' }).catch(() => {});
    const url = e.request.url;
    const hop = Boolean(e.redirectedRequestId);
    const document = e.resourceType === 'Document';
    // Where a request the person let go (or an approved action sent) is
    // redirected to is its own answer: its GET hops load as pages.
    if (hop && g.answered.has(e.redirectedRequestId) && e.request.method === 'GET') {
      g.answered.add(e.requestId);
      return go();
    }
    if (e.frameId && !tops.has(e.frameId) && !others.has(e.frameId)) await findTops();
    if (e.frameId && others.has(e.frameId)) return go();
    const top = document && tops.has(e.frameId);
    const request = {
      method: () => e.request.method,
      url: () => url,
      isNavigationRequest: () => document,
      frame: () => ({ parentFrame: () => (top ? null : 'a frame') }),
      postData: () => pausedBody(e.request),
      resourceType: () => String(e.resourceType || '').toLowerCase(),
    };
    let verdict = takeOwed(g, mode, e.request.method, url, hop);
    if (!verdict) {
      try {
        verdict = judge({ ...g, mode }, request, hop);
      } catch (err) {
        // Fail closed: a request the guard cannot judge is held.
        verdict = mode.approved && !hop ? ['release'] : ['hold', 'a request the guard could not judge (' + String(err).slice(0, 200) + ')'];
      }
    }
    const entry = { method: e.request.method, url: url.slice(0, URL_CHARS), navigation: top };
    if (verdict[0] === 'pass') return go();
    if (verdict[0] === 'release' || verdict[0] === 'late') {
      keepReleased(g, verdict[0], { ...entry, action: mode.action || '' });
      answer(g, e.requestId);
      return go();
    }
    if (verdict[0] === 'stop') {
      if (g.stopped.length < KEEP) g.stopped.push({ ...entry, why: verdict[1] }); else g.dropped += 1;
      return fail();
    }
    if (g.held.length >= KEEP) { g.dropped += 1; return fail(); }
    const id = g.next++;
    const method = e.request.method;
    // Once released: Playwright's own report that it finished (bounded:
    // what a page sent as it unloaded is never reported), and the page.
    const settled = () => new Promise((resolve) => {
      const seen = (r) => { if (r.url() === url && r.method() === method) done(); };
      const done = () => {
        ctx.off('requestfinished', seen);
        ctx.off('requestfailed', seen);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, UNSEEN_MS);
      ctx.on('requestfinished', seen);
      ctx.on('requestfailed', seen);
    }).then(() => (top ? page.waitForLoadState('load').catch(() => {}) : undefined));
    const decided = new Promise((resolve) => g.waiting.set(id, { resolve, settled }));
    keepHeld(g, { ...entry, id, why: verdict[1], body: summary(request), action: g.mode.action || '' });
    if (await decided) {
      // A page load let go from a page that commits is a read: its
      // redirects are judged still.
      if (verdict[2] !== 'read') answer(g, e.requestId);
      return go();
    }
    return fail();
  };
  // A request held: kept for the host, and every call watching for one
  // (`watch.js`, beside the action's call) woken at once, so the person is
  // asked while the action still waits on it. When it was held is sent
  // too: the host measures how soon the question followed.
  const keepHeld = (g, entry) => {
    g.held.push({ ...entry, at: Date.now() });
    for (const wake of (g.watchers || []).splice(0)) wake();
  };
  // A request let go: an approved action's ('release'), or the one an
  // earlier yes was shown, sent late ('late', `takeOwed`), kept apart so
  // the host records it as that yes's.
  const keepReleased = (g, kind, entry) => {
    const list = kind === 'late' ? g.late : g.released;
    if (list.length < KEEP) list.push(entry); else g.dropped += 1;
  };
  // Requests let go, whose redirects are their answers (bounded: only the
  // latest are kept).
  const answer = (g, id) => {
    if (g.answered.size >= KEEP) g.answered.clear();
    g.answered.add(id);
  };

  // A WebSocket message: by its words alone (the socket's address names
  // the channel, not the step).
  const judgeMessage = (g, request) => {
    const mode = g.mode;
    const reading = readText(g.rules.reading, request.postData());
    const said = reading === 'commits' ? 'reads as a commit'
      : reading === 'billing' ? 'reads as a change to what the person pays'
        : reading === 'confirms' ? 'reads as confirming the cancellation' : null;
    if (said === null) return ['pass'];
    if (mode.approved) return ['release'];
    if (mode.person) return ['stop', 'a WebSocket message that ' + said + ', sent while the person signed in'];
    return ['hold', 'a WebSocket message that ' + said];
  };

  let g = ctx[KEY];
  const fresh = !g;
  if (!g) {
    g = { mode: OP.mode, rules: compile(RULES), stopped: [], held: [], released: [], dropped: 0, next: 1, waiting: new Map(), settling: false, answered: new Set(), watchers: [], owed: null, late: [] };
    // Every URL, whatever its scheme: a glob could miss one.
    g.matcher = () => true;
    g.handler = async (route) => {
      const request = route.request();
      // Decided already, by the DevTools layer that sees every request
      // first (`watchEveryRequest`); the route judges only without it.
      if (g.cdp) {
        try { await route.fallback(); } catch (e) { /* the page went away */ }
        return;
      }
      let verdict = takeOwed(g, g.mode, request.method(), request.url(), false);
      if (!verdict) {
        try {
          verdict = judge(g, request, false);
        } catch (e) {
          // Fail closed: a request the guard cannot judge is held, not let through.
          verdict = g.mode.approved ? ['release'] : ['hold', 'a request the guard could not judge (' + String(e).slice(0, 200) + ')'];
        }
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
        // Once released: its answer, and the page it loads.
        const settled = async () => {
          const response = await request.response().catch(() => null);
          if (response) await response.finished().catch(() => null);
          if (request.isNavigationRequest()) await page.waitForLoadState('load').catch(() => {});
        };
        const decided = new Promise((resolve) => g.waiting.set(id, { resolve, settled }));
        keepHeld(g, { ...what, id, why, body, action: g.mode.action || '' });
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
      // it would have. A HEAD goes only to a URL judged a read: the first
      // one, which the browser would load anyway, and each hop the guard
      // let pass (many servers answer HEAD with their GET handler, so a
      // HEAD to a commit URL is the commit). A hop the person lets go ends
      // the walk: what follows it is its own answer. A server that answers
      // HEAD otherwise than GET is not walked.
      const passHops = async () => {
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
            frame: () => request.frame(),
            postData: () => null,
            resourceType: () => request.resourceType(),
          };
          let verdict;
          try { verdict = judge(g, hopRequest, true); } catch (e) { verdict = ['hold', 'a redirect the guard could not judge']; }
          const hopEntry = { method: 'GET', url: next.slice(0, URL_CHARS), navigation: isTop(request) };
          if (verdict[0] === 'stop') {
            if (g.stopped.length < KEEP) g.stopped.push({ ...hopEntry, why: verdict[1] + ' (a redirect)' }); else g.dropped += 1;
            return stop();
          }
          if (verdict[0] === 'hold') {
            if (!(await held(hopEntry, verdict[1], ''))) return stop();
            return pass();
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
      if (verdict[0] === 'pass') return hopByHop(g, request) ? passHops() : pass();
      if (verdict[0] === 'release' || verdict[0] === 'late') {
        keepReleased(g, verdict[0], { ...entry, action: g.mode.action || '' });
        return pass();
      }
      if (verdict[0] === 'stop') {
        if (g.stopped.length < KEEP) g.stopped.push({ ...entry, why: verdict[1] }); else g.dropped += 1;
        return stop();
      }
      if (!(await held(entry, verdict[1], summary(request)))) return stop();
      // A page load held only for leaving a page that commits is a read:
      // its redirects are walked like any. A request held for what it
      // says is not walked again (its HEAD would repeat it).
      return verdict[2] === 'read' && hopByHop(g, request) ? passHops() : pass();
    };
    // WebSockets: a route sees only the upgrade, never a message. Every
    // socket is proxied here instead: the server's messages go to the page
    // as they come; each of the page's is read like a request's body — a
    // message that reads as a commit (or a billing change) is held and put
    // to the person like any request, one that does not goes on. One
    // queue a socket, so a held message never lets a later one overtake it.
    g.sockets = async (ws) => {
      let server;
      try { server = ws.connectToServer(); } catch (e) { return; }
      server.onMessage((message) => { try { ws.send(message); } catch (e) { /* closed */ } });
      let queue = Promise.resolve();
      ws.onMessage((message) => {
        queue = queue.then(async () => {
          const body = typeof message === 'string' ? message : Buffer.from(message).toString('utf8');
          const request = {
            method: () => 'WS',
            url: () => ws.url(),
            isNavigationRequest: () => false,
            frame: () => null,
            postData: () => body,
            resourceType: () => 'websocket',
          };
          let verdict;
          try {
            verdict = judgeMessage(g, request);
          } catch (e) {
            verdict = g.mode.approved ? ['release'] : ['hold', 'a WebSocket message the guard could not judge'];
          }
          const entry = { method: 'WS', url: ws.url().slice(0, URL_CHARS), navigation: false };
          const send = () => { try { server.send(message); } catch (e) { /* closed */ } };
          if (verdict[0] === 'pass') return send();
          if (verdict[0] === 'release') {
            if (g.released.length < KEEP) g.released.push({ ...entry, action: g.mode.action || '' }); else g.dropped += 1;
            return send();
          }
          if (verdict[0] === 'stop') {
            if (g.stopped.length < KEEP) g.stopped.push({ ...entry, why: verdict[1] }); else g.dropped += 1;
            return undefined;
          }
          if (g.held.length >= KEEP) { g.dropped += 1; return undefined; }
          const id = g.next++;
          const decided = new Promise((resolve) => g.waiting.set(id, { resolve, settled: null }));
          keepHeld(g, { ...entry, id, why: verdict[1], body: summary(request), action: g.mode.action || '' });
          if (await decided) send();
          return undefined;
        }).catch(() => {});
      });
    };
    Object.defineProperty(ctx, KEY, { value: g, configurable: false, enumerable: false, writable: false });
    await ctx.route(g.matcher, g.handler);
    g.cdp = await watchEveryRequest(g).catch(() => null);
    if (typeof ctx.routeWebSocket === 'function') await ctx.routeWebSocket(() => true, g.sockets);
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

  // Owed (`takeOwed`) from the re-arm after an approved action whose
  // question showed a request the action had not sent; the next action's
  // mode ends it.
  if (OP.op === 'install' || OP.op === 'mode') g.owed = null;
  if (OP.op === 'rearm') {
    const shown = OP.owed;
    const sent = shown && g.released.some((r) => r.method === shown.method && sameAddress(shown, r.url));
    g.owed = shown && !sent ? { ...shown, until: Date.now() + OWED_MS } : null;
  }
  if (OP.op === 'install' || OP.op === 'mode' || OP.op === 'rearm' || OP.op === 'settle') {
    clearTimeout(g.expiry);
    g.mode = OP.mode;
    // An approved mode lasts as long as one action's call can: should the
    // call that re-arms never come (the host lost the server, or died), the
    // guard closes itself, holding navigations too, as on a page that
    // commits.
    if (OP.mode.approved) {
      const opened = g.mode;
      g.expiry = setTimeout(() => {
        if (g.mode === opened) g.mode = { approved: false, action: '', navs: true, step: null };
      }, OP.mode.for_ms);
    }
  }
  if (OP.op === 'install') { g.stopped = []; g.held = []; g.released = []; g.late = []; g.dropped = 0; }
  if (OP.op === 'settle') {
    // The person answered the held requests `ids`: each released (or
    // aborted), the guard already re-armed above, in this one call, so
    // nothing else goes under this yes. Until the released requests are
    // answered and their pages loaded (bounded, for a server that never
    // answers), the page the approved request leads to loads as a read;
    // anything else that changes state is held and reported below.
    g.settling = OP.allow;
    try {
      const waits = [];
      for (const id of OP.ids) {
        const waiting = g.waiting.get(id);
        if (!waiting) continue;
        g.waiting.delete(id);
        // Watched before it goes, so that a quick answer is not missed.
        const done = OP.allow && waiting.settled ? waiting.settled() : null;
        waiting.resolve(OP.allow);
        if (done) waits.push(done);
      }
      if (waits.length > 0) {
        // And a moment after the answer: a script that sends more when it
        // comes (`fetch(…).then(() => fetch(…))`) is held in this window.
        const settled = Promise.all(waits).then(() => new Promise((r) => setTimeout(r, GRACE_MS)));
        await Promise.race([settled, new Promise((r) => setTimeout(r, WAIT_MS))]);
      }
    } finally {
      g.settling = false;
    }
    // Asked about while the action that sent them still ran (`watch.js`),
    // they were never taken: answered now, they are no news.
    g.held = g.held.filter((h) => !OP.ids.includes(h.id));
  }
  if (OP.op === 'take' || OP.op === 'rearm' || OP.op === 'settle') {
    const answer = { fresh, layer: g.cdp ? 'devtools' : 'route', stopped: g.stopped, held: g.held, released: g.released, late: g.late, dropped: g.dropped };
    g.stopped = [];
    g.held = [];
    g.released = [];
    g.late = [];
    g.dropped = 0;
    reply(answer);
  }
  if (OP.op === 'decide') {
    const waiting = g.waiting.get(OP.id);
    if (!waiting) reply({ fresh, decided: false, status: 0 });
    g.waiting.delete(OP.id);
    const done = OP.allow && waiting.settled ? waiting.settled() : null;
    waiting.resolve(OP.allow);
    // The released request's answer, and the page it loads, before the
    // host looks again: bounded, for a server that never answers.
    if (done) await Promise.race([done, new Promise((r) => setTimeout(r, WAIT_MS))]);
    reply({ fresh, decided: true });
  }
  reply({ fresh, stopped: [], held: [], released: [], dropped: 0 });
}
