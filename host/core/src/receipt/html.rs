//! The receipt as HTML: self-contained (styles and images inline, nothing
//! fetched, a policy that forbids scripts), and every page-supplied string
//! escaped: the confirmation page must not be able to script its receipt.

use std::fmt::Write as _;
use std::path::Path;

use base64::Engine as _;

use super::{Approval, Receipt, cost, excerpt, times};
use crate::audit::{Audit, NOT_ADVICE};

pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A PNG from the run folder as an inline image, or a note that it is gone.
fn image(path: Option<&Path>, alt: &str, id: &str) -> String {
    match path.and_then(|p| std::fs::read(p).ok()) {
        Some(bytes) => format!(
            "<img id=\"{id}\" alt=\"{}\" src=\"data:image/png;base64,{}\">",
            escape(alt),
            base64::engine::general_purpose::STANDARD.encode(bytes)
        ),
        None => format!(
            "<p class=\"missing\">({} could not be taken)</p>",
            escape(alt)
        ),
    }
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#111}\
h1{font-size:1.5rem}h2{font-size:1.1rem;margin-top:2rem;border-bottom:1px solid #ddd}\
dl{display:grid;grid-template-columns:11rem 1fr;gap:.3rem 1rem}dt{color:#555}dd{margin:0;overflow-wrap:anywhere}\
img{max-width:100%;border:1px solid #ccc}pre{white-space:pre-wrap;background:#f6f6f6;padding:.8rem;font-size:.85rem}\
code{font-size:.85rem;overflow-wrap:anywhere}.ok{color:#0a6b2d}.missing{color:#a00}\
.finding{margin:.6rem 0}.rules{color:#555;font-size:.9rem}.note{color:#555;font-size:.85rem}";

pub fn html(r: &Receipt) -> String {
    let (utc, local) = times(r);
    let name = escape(&r.display_name);
    let c = &r.confirmation;
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">\
         <title>Cancellation receipt: {name}</title><style>{STYLE}</style></head><body>\n\
         <h1 class=\"ok\">✓ {name}: cancellation confirmed</h1>\n\
         <p>Cancelled by subterminator with the account holder's approval. The service's page confirmed it, \
         and the {plugin} plugin verified that page.</p>\n<dl>\
         <dt>Confirmed at (UTC)</dt><dd>{utc}</dd><dt>Confirmed at (local)</dt><dd>{local}</dd>\
         <dt>Confirmation page</dt><dd><code>{url}</code></dd><dt>Page title</dt><dd>{title}</dd></dl>\n\
         <h2>What the page showed</h2>\n{shot}\n<pre id=\"confirmation-text\">{text}</pre>\n",
        plugin = escape(&r.plugin_id),
        url = escape(&c.url),
        title = escape(&c.title),
        shot = image(
            c.screenshot.as_deref(),
            "Screenshot of the confirmation page",
            "confirmation"
        ),
        text = escape(&excerpt(&c.text)),
    );
    out.push_str("<h2>Your approval</h2>\n");
    if r.approvals.is_empty() {
        out.push_str("<p>No step of this run needed a yes.</p>\n");
    }
    for (n, a) in r.approvals.iter().enumerate() {
        approval_html(&mut out, n + 1, a);
    }
    audit_html(&mut out, &r.audit);
    let _ = write!(
        out,
        "<h2>How it was done</h2>\n<dl>\
         <dt>Plugin</dt><dd>{id} {version}</dd><dt>Plugin SHA-256</dt><dd><code>{sha}</code></dd>\
         <dt>Model</dt><dd>{model}</dd><dt>Turns</dt><dd>{turns}</dd>\
         <dt>Steps taken</dt><dd>{steps}</dd>\
         <dt>Tokens</dt><dd>{input} in, {output} out</dd><dt>Cost</dt><dd>{cost}</dd></dl>\n\
         <h2>The record</h2>\n<dl><dt>Run</dt><dd><code>{run}</code></dd>\
         <dt>Record fingerprint</dt><dd><code>{fingerprint}</code> (SHA-256 of transcript line {lines})</dd></dl>\n\
         {signature}</body></html>\n",
        id = escape(&r.plugin_id),
        version = escape(&r.plugin_version),
        sha = escape(&r.plugin_sha256),
        model = escape(&r.model),
        turns = r.turns,
        steps = escape(&r.steps.describe()),
        input = r.input_tokens,
        output = r.output_tokens,
        cost = escape(&cost(r)),
        run = escape(&r.run_id),
        fingerprint = escape(&r.fingerprint),
        lines = r.lines,
        signature = signature_html(r),
    );
    out
}

/// Who signed, and how anyone checks it; the statement is shown whole, so
/// a person can see what the signature covers.
fn signature_html(r: &Receipt) -> String {
    let Some(signed) = &r.signed else {
        return format!(
            "<p id=\"unsigned\">Not signed: this machine had no signing key. Check that the record is unchanged with \
             <code>subterminator runs verify {}</code>.</p>\n",
            escape(&r.run_id)
        );
    };
    let s = &signed.statement;
    let key = escape(&s.key.to_string());
    format!(
        "<h2 id=\"signature\">Signature</h2>\n<dl><dt>Signed by</dt><dd>{signer}</dd>\
         <dt>Public key</dt><dd><code>{key}</code></dd><dt>Signed at</dt><dd>{at}</dd>\
         <dt>Record head</dt><dd><code>{head}</code> (transcript line {lines})</dd>\
         <dt>Signature</dt><dd><code id=\"signature-value\">{signature}</code></dd></dl>\n\
         <p>This file carries the record it was made from and a seal over every byte of it. Anyone holding the \
         public key can check it: <code>subterminator runs verify receipt.html --key {key}</code>.</p>\n\
         <p class=\"note\">The signature is over these words:</p>\n<pre id=\"statement\">{statement}</pre>\n",
        signer = escape(&s.signer),
        at = escape(&s.signed_at),
        head = escape(&s.head),
        lines = s.lines,
        signature = escape(&signed.signature()),
        statement = escape(&s.text()),
    )
}

fn approval_html(out: &mut String, n: usize, a: &Approval) {
    let action = match &a.target {
        Some(t) => format!("{} {}", a.action, t),
        None => a.action.clone(),
    };
    let _ = write!(
        out,
        "<dl><dt>Approval {n}</dt><dd>{action}</dd><dt>Why you were asked</dt><dd>{reason}</dd>",
        action = escape(&action),
        reason = escape(&a.reason),
    );
    if let Some(shows) = &a.shows {
        let _ = write!(out, "<dt>It showed</dt><dd>“{}”</dd>", escape(shows));
    }
    if let Some(said) = &a.said {
        let _ = write!(out, "<dt>Also shown</dt><dd>{}</dd>", escape(said));
    }
    let _ = write!(
        out,
        "<dt>On</dt><dd><code>{url}</code></dd><dt>Asked at</dt><dd>{asked}</dd>\
         <dt>Answered</dt><dd>{answer} at {answered}</dd></dl>\n{shot}\n",
        url = escape(&a.url),
        asked = escape(&a.asked_at),
        answer = escape(&a.answer),
        answered = escape(&a.answered_at),
        shot = image(
            a.screenshot.as_deref(),
            &format!("The page when approval {n} was asked"),
            &format!("approval-{n}"),
        ),
    );
}

/// What stood in the way: the screens, then each finding with its rules,
/// or "nothing in the way".
fn audit_html(out: &mut String, audit: &Audit) {
    out.push_str("<h2 id=\"audit\">What stood in the way</h2>\n");
    let path: Vec<String> = audit.screens.iter().map(|s| escape(&s.name)).collect();
    let _ = writeln!(
        out,
        "<p>{} screen(s) before the final step: {}.</p>",
        audit.screens.len(),
        path.join(" → ")
    );
    if audit.is_clean() {
        out.push_str("<p id=\"audit-clean\">Nothing in the way.</p>\n");
    } else {
        out.push_str("<ul id=\"findings\">\n");
        for f in &audit.findings {
            let rules: Vec<String> = f
                .rules
                .iter()
                .map(|r| format!("{}: {}", escape(r.name()), escape(r.says())))
                .collect();
            let _ = writeln!(
                out,
                "<li class=\"finding\" data-kind=\"{kind}\"><strong>{title}</strong> on “{screen}” \
                 (<code>{url}</code>): {sentence}<br><span class=\"rules\">{rules}</span></li>",
                kind = f.kind.id(),
                title = escape(f.kind.title()),
                screen = escape(&f.screen),
                url = escape(&f.url),
                sentence = escape(&f.sentence()),
                rules = rules.join("<br>"),
            );
        }
        out.push_str("</ul>\n");
    }
    let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(NOT_ADVICE));
}
