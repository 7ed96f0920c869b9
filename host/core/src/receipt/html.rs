//! The receipt as HTML: self-contained (styles and images inline, nothing
//! fetched, a policy that forbids scripts), and every page-supplied string
//! escaped by the template: the confirmation page must not be able to
//! script its receipt.

use std::path::Path;

use base64::Engine as _;
use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::{Approval, Receipt, cost, excerpt, times};
use crate::audit::{Audit, NOT_ADVICE};

/// Nothing is fetched and nothing runs: images are data URLs, the style is
/// inline.
pub(crate) const POLICY: &str = "default-src 'none'; img-src data:; style-src 'unsafe-inline'";

/// A PNG from the run folder as an inline image, or a note that it is gone.
fn image(path: Option<&Path>, alt: &str, id: &str) -> Markup {
    match path.and_then(|p| std::fs::read(p).ok()) {
        Some(bytes) => {
            let src = format!(
                "data:image/png;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(bytes)
            );
            html! { img id=(id) alt=(alt) src=(src); }
        }
        None => html! { p.missing { "(" (alt) " could not be taken)" } },
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
    let name = &r.display_name;
    let c = &r.confirmation;
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(POLICY);
                title { "Cancellation receipt: " (name) }
                // Our own constant stylesheet.
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1.ok { "✓ " (name) ": cancellation confirmed" }
                p {
                    "Cancelled by subterminator with the account holder's approval. The service's page \
                     confirmed it, and the " (r.plugin_id) " plugin verified that page."
                }
                dl {
                    dt { "Confirmed at (UTC)" } dd { (utc) }
                    dt { "Confirmed at (local)" } dd { (local) }
                    dt { "Confirmation page" } dd { code { (c.url) } }
                    dt { "Page title" } dd { (c.title) }
                }
                h2 { "What the page showed" }
                (image(c.screenshot.as_deref(), "Screenshot of the confirmation page", "confirmation"))
                pre #confirmation-text { (excerpt(&c.text)) }
                h2 { "Your approval" }
                @if r.approvals.is_empty() {
                    p { "No step of this run needed a yes." }
                }
                @for (n, a) in r.approvals.iter().enumerate() {
                    (approval_html(n + 1, a))
                }
                (audit_html(&r.audit))
                h2 { "How it was done" }
                dl {
                    dt { "Plugin" } dd { (r.plugin_id) " " (r.plugin_version) }
                    dt { "Plugin SHA-256" } dd { code { (r.plugin_sha256) } }
                    dt { "Model" } dd { (r.model) }
                    dt { "Turns" } dd { (r.turns) }
                    dt { "Steps taken" } dd { (r.steps.describe()) }
                    dt { "Tokens" } dd { (r.input_tokens) " in, " (r.output_tokens) " out" }
                    dt { "Cost" } dd { (cost(r)) }
                }
                h2 { "The record" }
                dl {
                    dt { "Run" } dd { code { (r.run_id) } }
                    dt { "Record fingerprint" }
                    dd { code { (r.fingerprint) } " (SHA-256 of transcript line " (r.lines) ")" }
                }
                (signature_html(r))
            }
        }
    }
    .into_string()
        + "\n"
}

/// Who signed, and how anyone checks it; the statement is shown whole, so
/// a person can see what the signature covers.
fn signature_html(r: &Receipt) -> Markup {
    let Some(signed) = &r.signed else {
        return html! {
            p #unsigned {
                "Not signed: this machine had no signing key. Check that the record is unchanged with "
                code { "subterminator runs verify " (r.run_id) } "."
            }
        };
    };
    let s = &signed.statement;
    let key = s.key.to_string();
    html! {
        h2 #signature { "Signature" }
        dl {
            dt { "Signed by" } dd { (s.signer) }
            dt { "Public key" } dd { code { (key) } }
            dt { "Signed at" } dd { (s.signed_at) }
            dt { "Record head" } dd { code { (s.head) } " (transcript line " (s.lines) ")" }
            dt { "Signature" } dd { code #signature-value { (signed.signature()) } }
        }
        p {
            "This file carries the record it was made from and a seal over every byte of it. Anyone \
             holding the public key can check it: "
            code { "subterminator runs verify receipt.html --key " (key) } "."
        }
        p.note { "The signature is over these words:" }
        pre #statement { (s.text()) }
    }
}

fn approval_html(n: usize, a: &Approval) -> Markup {
    let action = match &a.target {
        Some(t) => format!("{} {}", a.action, t),
        None => a.action.clone(),
    };
    html! {
        dl {
            dt { "Approval " (n) } dd { (action) }
            dt { "Why you were asked" } dd { (a.reason) }
            @if let Some(shows) = &a.shows {
                dt { "It showed" } dd { "“" (shows) "”" }
            }
            @if let Some(said) = &a.said {
                dt { "Also shown" } dd { (said) }
            }
            dt { "On" } dd { code { (a.url) } }
            dt { "Asked at" } dd { (a.asked_at) }
            dt { "Answered" } dd { (a.answer) " at " (a.answered_at) }
        }
        (image(
            a.screenshot.as_deref(),
            &format!("The page when approval {n} was asked"),
            &format!("approval-{n}"),
        ))
    }
}

/// What stood in the way: the screens, then each finding with its rules,
/// or "nothing in the way".
fn audit_html(audit: &Audit) -> Markup {
    let path: Vec<&str> = audit.screens.iter().map(|s| s.name.as_str()).collect();
    html! {
        h2 #audit { "What stood in the way" }
        p { (audit.screens.len()) " screen(s) before the final step: " (path.join(" → ")) "." }
        @if audit.is_clean() {
            p #audit-clean { "Nothing in the way." }
        } @else {
            ul #findings {
                @for f in &audit.findings {
                    li.finding data-kind=(f.kind.id()) {
                        strong { (f.kind.title()) } " on “" (f.screen) "” (" code { (f.url) } "): "
                        (f.sentence())
                        br;
                        span.rules {
                            @for (i, rule) in f.rules.iter().enumerate() {
                                @if i > 0 { br; }
                                (rule.name()) ": " (rule.says())
                            }
                        }
                    }
                }
            }
        }
        p.note { (NOT_ADVICE) }
    }
}
