//! The small inline scripts the shapes need, each self-contained: no
//! external script ever loads, so a page works offline and a log shows
//! every request the page itself made.

/// Ticks every `[data-countdown]` down once a second ("4:59", "4:58"…);
/// the pressure is the trick, nothing happens at zero.
pub(crate) const COUNTDOWN: &str = r#"
(function () {
  document.querySelectorAll('[data-countdown]').forEach(function (el) {
    var left = parseInt(el.getAttribute('data-countdown'), 10);
    var clock = el.querySelector('.clock');
    function draw() {
      var m = Math.floor(left / 60), s = left % 60;
      clock.textContent = m + ':' + (s < 10 ? '0' : '') + s;
    }
    draw();
    setInterval(function () { if (left > 0) { left -= 1; draw(); } }, 1000);
  });
})();
"#;

/// Forms and links marked `data-confirm` ask `confirm()` first and go on
/// only if it is accepted. `wire` runs on the document and on every shadow
/// root, since events inside a shadow root do not reach a document listener
/// with their own target.
pub(crate) const DIALOG: &str = r#"
window.stWire = function (root) {
  root.querySelectorAll('form[data-confirm]').forEach(function (f) {
    f.addEventListener('submit', function (e) {
      if (!window.confirm(f.getAttribute('data-confirm'))) { e.preventDefault(); e.stopImmediatePropagation(); }
    });
  });
  root.querySelectorAll('a[data-confirm]').forEach(function (a) {
    a.addEventListener('click', function (e) {
      if (!window.confirm(a.getAttribute('data-confirm'))) { e.preventDefault(); }
    });
  });
};
window.stWire(document);
"#;

/// `<st-actions>` moves its `<template>` into an open shadow root, with the
/// page's button styles (styles do not cross the boundary).
pub(crate) const SHADOW: &str = r#"
customElements.define('st-actions', class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) { return; }
    var template = this.querySelector('template');
    var root = this.attachShadow({ mode: 'open' });
    var style = document.createElement('style');
    style.textContent = document.getElementById('st-style').textContent;
    root.appendChild(style);
    root.appendChild(template.content.cloneNode(true));
    if (window.stWire) { window.stWire(root); }
  }
});
"#;

/// The single-page app: one section per screen, shown by path; moving on
/// pushes the real path; forms that change something are sent by `fetch`
/// as JSON, to this origin or to the API's (then CORS, with a preflight),
/// and the answer names the screen to show next.
pub(crate) const SPA: &str = r#"
(function () {
  var sections = Array.prototype.slice.call(document.querySelectorAll('section[data-path]'));
  function show(path) {
    var found = sections.filter(function (s) { return s.getAttribute('data-path') === path; })[0] || sections[0];
    sections.forEach(function (s) { s.hidden = s !== found; });
    document.title = found.getAttribute('data-title');
  }
  function go(path) { history.pushState({}, '', path); show(path); }
  window.addEventListener('popstate', function () { show(location.pathname); });
  document.addEventListener('click', function (e) {
    var el = e.target.closest('[data-go]');
    if (!el) { return; }
    e.preventDefault();
    go(el.getAttribute('data-go'));
  });
  document.querySelectorAll('form[data-spa]').forEach(function (form) {
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var message = form.getAttribute('data-confirm');
      if (message && !window.confirm(message)) { return; }
      if (form.getAttribute('data-spa') === 'get') { go(form.getAttribute('data-to')); return; }
      var body = {};
      new FormData(form).forEach(function (v, k) { body[k] = v; });
      var button = form.querySelector('button');
      if (button) { button.disabled = true; }
      fetch(form.getAttribute('data-url'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body)
      }).then(function (r) { return r.json(); })
        .then(function (answer) { go(answer.next); })
        .catch(function () { if (button) { button.disabled = false; } });
    });
  });
  show(location.pathname);
})();
"#;

/// An offer page that acts as it is left: a beacon on `pagehide` accepts
/// the offer, a `keepalive` fetch on `visibilitychange` switches the plan.
/// Both are sent as forms, which need no preflight and outlive the page.
pub(crate) const LEAVE: &str = r#"
(function () {
  var sent = { beacon: false, keepalive: false };
  window.addEventListener('pagehide', function () {
    if (sent.beacon) { return; }
    sent.beacon = true;
    navigator.sendBeacon("{beacon}", new URLSearchParams({ offer: 'retention-50', accept: 'yes' }));
  });
  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState !== 'hidden' || sent.keepalive) { return; }
    sent.keepalive = true;
    fetch("{keepalive}", {
      method: 'POST',
      keepalive: true,
      body: new URLSearchParams({ plan: 'cheaper', confirm: 'yes' })
    }).catch(function () {});
  });
})();
"#;

/// A sign-in wall whose page, on the first keystroke in a password field,
/// changes the plan by `PUT` and posts `_method=delete` to the membership;
/// the sign-in form itself is left to work as drawn. Both are `keepalive`,
/// so a sign-in submitted right after the keystroke does not cancel them.
pub(crate) const WHILE_TYPING: &str = r#"
(function () {
  var done = false;
  document.addEventListener('input', function (e) {
    if (done || !e.target || e.target.type !== 'password') { return; }
    done = true;
    fetch("{plan}", {
      method: 'PUT',
      keepalive: true,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ plan: "{cheaper}" })
    }).catch(function () {});
    fetch("{membership}", {
      method: 'POST',
      keepalive: true,
      body: new URLSearchParams({ _method: 'delete' })
    }).catch(function () {});
  });
})();
"#;

/// The chat widget's WebSocket to the site (`[data-socket]`): opened on
/// load with a greeting; a `[data-ws]` button sends its message, and the
/// one marked `data-ws-go` then shows the page the answer names. "Close"
/// hides the widget once its message is sent.
pub(crate) const SOCKET: &str = r#"
(function () {
  var widget = document.querySelector('[data-socket]');
  if (!widget) { return; }
  var url = location.origin.replace(/^http/, 'ws') + widget.getAttribute('data-socket');
  var socket = new WebSocket(url);
  var going = false;
  socket.addEventListener('open', function () {
    socket.send(JSON.stringify({ action: 'hello' }));
  });
  socket.addEventListener('message', function (e) {
    var answer = {};
    try { answer = JSON.parse(e.data); } catch (err) { return; }
    if (going && answer.next) { location.href = answer.next; }
  });
  document.querySelectorAll('[data-ws]').forEach(function (button) {
    button.addEventListener('click', function () {
      if (button.hasAttribute('data-ws-go')) { going = true; button.disabled = true; }
      socket.send(button.getAttribute('data-ws'));
      if (widget.contains(button)) { widget.hidden = true; }
    });
  });
})();
"#;

/// A form marked `data-follow` is posted by `fetch` as JSON; the moment
/// its answer arrives the page posts to the `data-follow` path too, and
/// shows the page that answer names.
pub(crate) const FOLLOW: &str = r#"
(function () {
  document.querySelectorAll('form[data-follow]').forEach(function (form) {
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var body = {};
      new FormData(form).forEach(function (v, k) { body[k] = v; });
      var json = { 'Content-Type': 'application/json' };
      fetch(form.getAttribute('action'), { method: 'POST', headers: json, body: JSON.stringify(body) })
        .then(function () {
          return fetch(form.getAttribute('data-follow'), { method: 'POST', headers: json, body: JSON.stringify({ confirm: true }) });
        })
        .then(function (r) { return r.json(); })
        .then(function (answer) { location.href = answer.next; });
    });
  });
})();
"#;
