//! The receipt as HTML (self-contained: styles and images inline, nothing
//! fetched) and as a short Markdown note. Every page-supplied string is
//! escaped: the confirmation page must not be able to script its receipt.

use std::fmt::Write as _;
use std::path::Path;

use base64::Engine as _;
use chrono::Local;

use super::{Approval, Receipt, excerpt};

/// How a cost is written; unknown when the model's price is not listed.
fn cost(receipt: &Receipt) -> String {
    match receipt.cost_usd {
        Some(c) => format!("${c:.4}"),
        None => "unknown (no list price for this model)".to_owned(),
    }
}

fn times(receipt: &Receipt) -> (String, String) {
    (
        receipt.finished.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
        receipt
            .finished
            .with_timezone(&Local)
            .format("%Y-%m-%d %H:%M:%S %:z")
            .to_string(),
    )
}

fn escape(text: &str) -> String {
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
code{font-size:.85rem;overflow-wrap:anywhere}.ok{color:#0a6b2d}.missing{color:#a00}";

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
    let _ = write!(
        out,
        "<h2>How it was done</h2>\n<dl>\
         <dt>Plugin</dt><dd>{id} {version}</dd><dt>Plugin SHA-256</dt><dd><code>{sha}</code></dd>\
         <dt>Model</dt><dd>{model}</dd><dt>Turns</dt><dd>{turns}</dd>\
         <dt>Tokens</dt><dd>{input} in, {output} out</dd><dt>Cost</dt><dd>{cost}</dd></dl>\n\
         <h2>The record</h2>\n<dl><dt>Run</dt><dd><code>{run}</code></dd>\
         <dt>Record fingerprint</dt><dd><code>{fingerprint}</code> (SHA-256 of transcript line {lines})</dd></dl>\n\
         <p>Check that the record is unchanged with <code>subterminator runs verify {run}</code>.</p>\n\
         </body></html>\n",
        id = escape(&r.plugin_id),
        version = escape(&r.plugin_version),
        sha = escape(&r.plugin_sha256),
        model = escape(&r.model),
        turns = r.turns,
        input = r.input_tokens,
        output = r.output_tokens,
        cost = escape(&cost(r)),
        run = escape(&r.run_id),
        fingerprint = escape(&r.fingerprint),
        lines = r.lines,
    );
    out
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

pub fn markdown(r: &Receipt) -> String {
    let (utc, local) = times(r);
    let c = &r.confirmation;
    let mut out = format!(
        "# {name}: cancellation confirmed\n\n\
         - Confirmed at: {utc} ({local})\n\
         - Confirmation page: {url}\n\
         - Page title: {title}\n",
        name = r.display_name,
        url = c.url,
        title = c.title,
    );
    for (n, a) in r.approvals.iter().enumerate() {
        let target = a.target.as_deref().unwrap_or_default();
        let _ = writeln!(
            out,
            "- Approval {}: {} {target} on {}: asked {}, {} {}",
            n + 1,
            a.action,
            a.url,
            a.asked_at,
            a.answer,
            a.answered_at
        );
    }
    let _ = write!(
        out,
        "- Plugin: {} {} (sha256 {})\n\
         - Model: {}; {} turns; {} input and {} output tokens; cost {}\n\
         - Run: {} (record fingerprint {})\n\n\
         The page said:\n\n> {}\n\n\
         Full receipt with screenshots: receipt.html (and receipt.pdf). \
         Check the record with `subterminator runs verify {}`.\n",
        r.plugin_id,
        r.plugin_version,
        r.plugin_sha256,
        r.model,
        r.turns,
        r.input_tokens,
        r.output_tokens,
        cost(r),
        r.run_id,
        r.fingerprint,
        excerpt(&c.text).replace('\n', "\n> "),
        r.run_id,
    );
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::receipt::Confirmation;

    fn receipt(text: &str) -> Receipt {
        Receipt {
            run_id: "20261123T101500Z-netflix-1a2b3c4d".into(),
            service: "netflix".into(),
            display_name: "Netflix".into(),
            finished: chrono::Utc::now(),
            confirmation: Confirmation {
                url: "https://www.netflix.com/cancelplan/confirm".into(),
                title: "Cancelled".into(),
                text: text.into(),
                screenshot: None,
            },
            approvals: vec![Approval {
                action: "browser_click".into(),
                target: Some("button \"Finish <Cancellation>\"".into()),
                answer: "approved".into(),
                ..Approval::default()
            }],
            plugin_id: "netflix".into(),
            plugin_version: "0.2.0".into(),
            plugin_sha256: "ab12".into(),
            model: "offline policy (no model)".into(),
            turns: 5,
            input_tokens: 0,
            output_tokens: 0,
            cost_usd: Some(0.0),
            fingerprint: "f".repeat(64),
            lines: 40,
        }
    }

    #[test]
    fn page_text_cannot_script_the_receipt() {
        let html = html(&receipt(
            "<script>alert(1)</script><img src=https://evil.example/x>",
        ));
        assert!(!html.contains("<script>"));
        assert!(!html.contains("<img src=https"));
        assert!(html.contains("&lt;script&gt;"));
        assert!(html.contains("Finish &lt;Cancellation&gt;"));
        assert!(html.contains("default-src 'none'"));
    }

    #[test]
    fn both_forms_name_the_run_and_its_fingerprint() {
        let r = receipt("Your membership ends on December 16.");
        for text in [html(&r), markdown(&r)] {
            assert!(text.contains(&r.run_id));
            assert!(text.contains(&r.fingerprint));
            assert!(text.contains("Your membership ends on December 16."));
            assert!(text.contains("$0.0000"));
        }
    }
}
