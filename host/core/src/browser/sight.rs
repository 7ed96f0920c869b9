//! What a person can see of a page: its text, read from the DOM with the
//! host's own call, leaving out what is there only for a machine — text at
//! zero opacity, hidden, clipped away, off the page, zero-sized or tiny, or
//! in a colour too close to its background — and the page's language as it
//! declares it. The accessibility tree keeps all of those; a page that hides
//! "Your membership has been cancelled" in it must not pass for one that
//! shows it. Read in Playwright's isolated world, so a page cannot redefine
//! `getComputedStyle` or `getBoundingClientRect` for the reading either.

use serde::Deserialize;

use super::{Browser, BrowserError, thrown};

/// Most characters of visible text read back: a confirmation says what it
/// says early; a hostile page must not grow the answer without bound.
pub const MAX_SIGHT_CHARS: usize = 20_000;

/// Below this contrast ratio (WCAG's formula, 1 to 21) text counts as
/// colour on colour: 1.5 is far below what any page shows a reader.
pub const MIN_CONTRAST_RATIO: f64 = 1.5;

/// Text smaller than this, in CSS pixels, is not read by a person.
pub const MIN_FONT_PX: f64 = 6.0;

/// Starts the answer inside the error the script throws (`thrown.rs`).
const ANSWER_MARK: &str = "subterminator-sight:";

/// Runs in each frame: the visible text nodes, in document order.
const SIGHT_JS: &str = r#"() => {
  const MIN_CONTRAST = CONTRAST_LIMIT;
  const MIN_FONT = FONT_LIMIT;
  const CONTROLS = 'a[href], button, nav, select, option, summary, [role=button], [role=link], [role=navigation], [role=menu], [role=menuitem], [role=tab], [role=option]';
  const parse = (c) => {
    const m = /rgba?\(([^)]+)\)/.exec(c || '');
    if (!m) return null;
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0.5) return c;
    }
    return { r: 255, g: 255, b: 255, a: 1 };
  };
  const seen = new Map();
  const visible = (el) => {
    if (seen.has(el)) return seen.get(el);
    let ok = true;
    let opacity = 1;
    for (let e = el; e && ok; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.display === 'none' || cs.visibility === 'hidden' || cs.visibility === 'collapse') ok = false;
      opacity *= parseFloat(cs.opacity || '1');
      const clip = cs.clipPath || '';
      if (/inset\(\s*(50|100)%|circle\(\s*0|polygon\(\s*0px 0px\s*\)/.test(clip)) ok = false;
      if (cs.position === 'absolute' && /rect\(\s*0(px)?[ ,]+0(px)?[ ,]+0(px)?[ ,]+0(px)?\s*\)/.test(cs.clip || '')) ok = false;
    }
    if (ok && opacity < 0.1) ok = false;
    if (ok) {
      const r = el.getBoundingClientRect();
      const width = Math.max(document.documentElement.scrollWidth, window.innerWidth);
      const height = Math.max(document.documentElement.scrollHeight, window.innerHeight);
      if (r.width < 2 || r.height < 2) ok = false;
      else if (r.right + window.scrollX <= 0 || r.bottom + window.scrollY <= 0) ok = false;
      else if (r.left + window.scrollX >= width || r.top + window.scrollY >= height) ok = false;
    }
    if (ok) {
      const cs = getComputedStyle(el);
      if (parseFloat(cs.fontSize || '16') < MIN_FONT) ok = false;
      const fg = parse(cs.color);
      if (ok && fg) {
        const bg = background(el);
        const a = fg.a;
        const mixed = { r: fg.r * a + bg.r * (1 - a), g: fg.g * a + bg.g * (1 - a), b: fg.b * a + bg.b * (1 - a) };
        const l1 = lum(mixed), l2 = lum(bg);
        const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
        if (ratio < MIN_CONTRAST) ok = false;
      }
    }
    seen.set(el, ok);
    return ok;
  };
  const out = [];
  const root = document.body || document.documentElement;
  if (!root) return { text: '', lang: '' };
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  let total = 0;
  for (let n = walker.nextNode(); n && total < CHAR_LIMIT; n = walker.nextNode()) {
    const t = (n.nodeValue || '').replace(/\s+/g, ' ').trim();
    if (!t) continue;
    const el = n.parentElement;
    if (!el || ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'].includes(el.tagName)) continue;
    // A link, a button, a menu or the site's navigation is a way somewhere,
    // never what the page says has happened ("Cancelled State" as a link).
    if (el.closest(CONTROLS)) continue;
    if (!visible(el)) continue;
    out.push(t);
    total += t.length + 1;
  }
  return { text: out.join('\n'), lang: (document.documentElement.lang || '').toLowerCase() };
}"#;

/// What a person can see of the page now.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Sight {
    /// The visible text, one text node a line, frames after the page.
    pub text: String,
    /// The page's declared language (`<html lang>`), lowercased; empty when
    /// it declares none.
    pub lang: String,
}

/// Reads what a person can see of the page: the main frame and every
/// frame inside it, each in its own document.
pub async fn visible(browser: &Browser) -> Result<Sight, BrowserError> {
    let code = format!(
        "async (page) => {{ const parts = []; let lang = ''; for (const frame of page.frames()) {{ try {{ const read = await {read}; if (read === null) continue; const s = JSON.parse(read); if (frame === page.mainFrame()) lang = s.lang; if (s.text) parts.push(s.text); }} catch (e) {{}} }} throw new Error({mark:?} + JSON.stringify({{ text: parts.join('\\n').slice(0, {limit}), lang }})); }}",
        read = thrown::in_utility_world(
            thrown::Target::Document,
            &format!("() => JSON.stringify(({})())", script())
        ),
        mark = ANSWER_MARK,
        limit = MAX_SIGHT_CHARS,
    );
    let answer = thrown::read(browser, &code, ANSWER_MARK).await?;
    parse(answer.as_deref()).ok_or_else(|| BrowserError::Tool {
        tool: thrown::RUN_CODE.to_owned(),
        message: "the page's visible text could not be read".into(),
    })
}

fn script() -> String {
    SIGHT_JS
        .replace("CONTRAST_LIMIT", &MIN_CONTRAST_RATIO.to_string())
        .replace("FONT_LIMIT", &MIN_FONT_PX.to_string())
        .replace("CHAR_LIMIT", &MAX_SIGHT_CHARS.to_string())
}

/// The answer after [`ANSWER_MARK`] (the JSON has no newline; the stack
/// trace follows on later lines), or the whole text when no mark is there.
fn parse(answer: Option<&str>) -> Option<Sight> {
    let mut sight: Sight = serde_json::from_str(thrown::after(answer?, ANSWER_MARK)).ok()?;
    sight.text = crate::text::truncate(&sight.text, MAX_SIGHT_CHARS, "").into_owned();
    Some(sight)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn answers_table() {
        let thrown = format!(
            "Error: {ANSWER_MARK}{{\"text\":\"Your membership has been cancelled.\",\"lang\":\"de-de\"}}\n    at eval"
        );
        let sight = parse(Some(&thrown)).unwrap();
        assert_eq!(sight.text, "Your membership has been cancelled.");
        assert_eq!(sight.lang, "de-de");
        assert_eq!(parse(Some("not json")), None);
        assert_eq!(parse(None), None);
    }

    #[test]
    fn the_script_has_its_limits() {
        let s = script();
        for placeholder in ["CONTRAST_LIMIT", "FONT_LIMIT", "CHAR_LIMIT"] {
            assert!(!s.contains(placeholder), "{placeholder} left in");
        }
        assert!(s.contains("const MIN_CONTRAST = 1.5;"));
    }
}
