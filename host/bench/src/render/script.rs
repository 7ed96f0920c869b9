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
