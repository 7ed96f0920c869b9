//! The letter as one self-contained HTML page (styles and pictures inline,
//! a policy that forbids scripts and fetches), laid out for A4 or Letter so
//! the browser prints it as it is. Every value from a page, a plugin or the
//! person is escaped by the template.

use base64::Engine as _;
use chrono::{DateTime, Utc};
use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::words::{self, Words};
use super::{Ending, Facts, Language, Recipient, Request, ShotKind, law};
use crate::audit::Finding;
use crate::receipt::HTML_POLICY;
// One pass: a value that holds `{key}` stays as it is, so a page cannot
// reach into the letter's other values. Plain text; the template escapes.
use subterminator_sdk::text::fill;

const STYLE: &str = "@page{size:auto;margin:18mm 18mm 20mm}\
body{font-family:Georgia,'Times New Roman',serif;font-size:11pt;line-height:1.45;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#000}\
.sender,.recipient{white-space:pre-line}.recipient{margin:1.5rem 0}.date{text-align:right}\
h1{font-size:12pt;margin:1.5rem 0 1rem}h2{font-size:11pt;margin:1.4rem 0 .4rem;border-bottom:1px solid #999;break-after:avoid}\
dl{display:grid;grid-template-columns:13rem 1fr;gap:.2rem 1rem;margin:.4rem 0}dt{color:#333}dd{margin:0;overflow-wrap:anywhere}\
blockquote{margin:.4rem 0 .4rem 1rem;padding-left:.8rem;border-left:3px solid #999;white-space:pre-wrap}\
code{font-family:'DejaVu Sans Mono',monospace;font-size:8.5pt;overflow-wrap:anywhere}\
figure{margin:.8rem 0;break-inside:avoid}img{max-width:100%;max-height:120mm;border:1px solid #999}\
figcaption{font-size:9pt;color:#333}.finding{margin:.5rem 0;break-inside:avoid}.rule{font-size:9.5pt;margin-left:1rem}\
.note{font-size:9pt;color:#333;margin-top:1.5rem}.sign{margin-top:2rem}";

/// The letter for `facts`, as `request` asks; `today` is the letter's date.
pub fn letter(facts: &Facts, request: &Request, today: DateTime<Utc>) -> String {
    let lang = request.language;
    let w = words::of(lang);
    let name = request.name.as_deref().unwrap_or(w.name_blank);
    let service = &facts.display_name;
    let (date, time) = when(facts, lang);
    let obstacle = match &facts.ending {
        Ending::SignInWall { .. } => w.no_way_sign_in,
        _ => w.no_way_phone,
    };
    let filled = |template: &str| {
        fill(
            template,
            &[
                ("service", service),
                ("date", &date),
                ("time", &time),
                ("account", &facts.account_page),
                ("obstacle", obstacle),
            ],
        )
    };
    let cancelled = matches!(facts.ending, Ending::Cancelled { .. });
    let (subject, opening, ask) = match (request.to, cancelled) {
        (Recipient::Bank, true) => (
            w.subject_bank_cancelled,
            w.open_bank_cancelled,
            w.ask_bank_cancelled,
        ),
        (Recipient::Bank, false) => (w.subject_bank_no_way, w.open_bank_no_way, w.ask_bank_no_way),
        (Recipient::Merchant, true) => (
            w.subject_merchant_cancelled,
            w.open_merchant_cancelled,
            w.ask_merchant_cancelled,
        ),
        (Recipient::Merchant, false) => (
            w.subject_merchant_no_way,
            w.open_merchant_no_way,
            w.ask_merchant_no_way,
        ),
        (Recipient::Regulator, true) => (
            w.subject_regulator,
            w.open_regulator_cancelled,
            w.ask_regulator,
        ),
        (Recipient::Regulator, false) => (
            w.subject_regulator,
            w.open_regulator_no_way,
            w.ask_regulator,
        ),
    };
    let recipient = match request.to {
        Recipient::Bank => w.bank.to_owned(),
        Recipient::Merchant => format!("{service}\n{}", w.merchant_dept),
        Recipient::Regulator => words::regulator(request.jurisdiction, lang).to_owned(),
    };
    let subject = filled(subject);
    let enclosed = if facts.proof.receipts.is_empty() {
        fill(w.on_request, &[("run", &facts.run_id)])
    } else {
        w.enclosed.to_owned()
    };
    html! {
        (DOCTYPE)
        html lang=(lang.code()) {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(HTML_POLICY);
                title { (subject) }
                // Our own constant stylesheet.
                style { (PreEscaped(STYLE)) }
            }
            body {
                p.sender { (name) "\n" (w.address_blank) }
                p.recipient { (recipient) }
                p.date { (words::day(lang, &today)) }
                h1 #subject { (subject) }
                p { (w.account_blank) }
                p { (w.salutation) }
                p #opening { (filled(opening)) }
                p #ask { (filled(ask)) }
                (facts_html(facts, request, w))
                @if request.to == Recipient::Regulator {
                    (findings_html(facts, request, w))
                }
                (proof_html(facts, w))
                p { (w.closing) }
                p.sign { (name) }
                p #enclosed { (enclosed) }
                (pictures_html(facts, w))
                p.note #not-advice { (w.not_advice) }
            }
        }
    }
    .into_string()
        + "\n"
}

/// The day and the moment the letter turns on: the confirmation, or the
/// attempt that found no way out.
fn when(facts: &Facts, lang: Language) -> (String, String) {
    let at = match &facts.ending {
        Ending::Cancelled { confirmed_at, .. } => confirmed_at,
        Ending::NoWayOut { ended_at, .. } | Ending::SignInWall { ended_at, .. } => ended_at,
    };
    match parse(at) {
        Some(t) => (words::day(lang, &t), words::moment(lang, &t)),
        None => (at.clone(), at.clone()),
    }
}

fn parse(time: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(time)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

fn moment(lang: Language, time: &str) -> String {
    parse(time).map_or_else(|| time.to_owned(), |t| words::moment(lang, &t))
}

fn facts_html(facts: &Facts, request: &Request, w: &Words) -> Markup {
    let lang = request.language;
    let quote = match &facts.ending {
        Ending::Cancelled { confirmation, .. } => Some((w.confirmation_words, &confirmation.text)),
        Ending::NoWayOut { said, .. } => Some((w.site_said, said)),
        Ending::SignInWall { .. } => None,
    }
    .filter(|(_, q)| !q.trim().is_empty());
    html! {
        h2 { (w.facts) }
        dl #facts {
            dt { (w.service) } dd { (facts.display_name) }
            dt { (w.account_page) } dd { code { (facts.account_page) } }
            @match &facts.ending {
                Ending::Cancelled { approved_at, confirmed_at, confirmation } => {
                    @if let Some(at) = approved_at {
                        dt { (w.approved_at) } dd { (moment(lang, at)) }
                    }
                    dt { (w.confirmed_at) } dd { (moment(lang, confirmed_at)) }
                    dt { (w.confirmation_page) } dd { code { (confirmation.url) } }
                }
                Ending::NoWayOut { ended_at, url, .. } | Ending::SignInWall { ended_at, url } => {
                    dt { (w.attempted_at) } dd { (moment(lang, ended_at)) }
                    dt { (w.stopped_on) } dd { code { (url) } }
                }
            }
            @if request.to != Recipient::Regulator {
                dt { (w.charges) }
                dd {
                    @if request.charges.is_empty() {
                        (w.charges_blank)
                    }
                    @for (i, charge) in request.charges.iter().enumerate() {
                        @if i > 0 { br; }
                        (charge)
                    }
                }
            }
        }
        @if let Some((label, words)) = quote {
            p { (label) ":" }
            blockquote #quote { (words.trim()) }
        }
    }
}

fn findings_html(facts: &Facts, request: &Request, w: &Words) -> Markup {
    html! {
        h2 { (w.findings) }
        @if facts.audit.is_clean() {
            p { (w.no_findings) }
        }
        @for f in &facts.audit.findings {
            div.finding data-kind=(f.kind.id()) {
                strong { (words::kind_title(f.kind, request.language)) }
                " (" (w.found_on) " “" (f.screen) "”, " code { (f.url) } "): "
                (sentence(f, request.language))
                @for c in law::citations(f.kind, request.jurisdiction, request.language) {
                    div.rule { (c.name) ": " (c.says) }
                }
            }
        }
    }
}

/// What a finding observed, in the letter's language.
fn sentence(f: &Finding, lang: Language) -> String {
    match lang {
        Language::En => f.sentence(),
        Language::De => fill(
            words::kind_sentence_de(f.kind),
            &[("e", &f.evidence), ("d", &f.detail)],
        ),
    }
}

fn proof_html(facts: &Facts, w: &Words) -> Markup {
    let p = &facts.proof;
    let check = match &p.signed {
        Some(signed) => fill(
            if p.receipts.is_empty() {
                w.check_no_receipt
            } else {
                w.check_signed
            },
            &[
                ("key", &signed.statement.key.to_string()),
                ("run", &facts.run_id),
            ],
        ),
        None => w.check_unsigned.to_owned(),
    };
    html! {
        h2 { (w.record) }
        dl #proof {
            dt { (w.run) } dd { code { (facts.run_id) } }
            dt { (w.head) } dd { code { (p.head) } " (" (p.lines) " " (w.lines) ")" }
            @if let Some(signed) = &p.signed {
                dt { (w.signed_by) }
                dd { (signed.statement.signer) " (" code { (signed.statement.key.to_string()) } ")" }
                dt { (w.signed_at) } dd { (signed.statement.signed_at) }
                dt { (w.signature) } dd { code { (signed.signature()) } }
            }
            @if !p.receipts.is_empty() {
                dt { (w.receipt_files) }
                dd {
                    @for (i, (name, sha)) in p.receipts.iter().enumerate() {
                        @if i > 0 { br; }
                        (name) ": " code { (sha) }
                    }
                }
            }
        }
        p #check { (check) }
    }
}

fn pictures_html(facts: &Facts, w: &Words) -> Markup {
    if facts.shots.is_empty() {
        return html! {};
    }
    html! {
        h2 { (w.pictures) }
        @for shot in &facts.shots {
            @let caption = match shot.what {
                ShotKind::Confirmation => w.shot_confirmation,
                ShotKind::Approval => w.shot_approval,
                ShotKind::Stopped => w.shot_stopped,
            };
            figure {
                @match std::fs::read(&shot.path) {
                    Ok(bytes) => {
                        img alt=(caption)
                            src=(format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(bytes)));
                    }
                    Err(_) => { p { (w.shot_missing) } }
                }
                figcaption { (caption) }
            }
        }
    }
}
