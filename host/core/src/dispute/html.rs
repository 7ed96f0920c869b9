//! The letter as one self-contained HTML page (styles and pictures inline,
//! a policy that forbids scripts and fetches), laid out for A4 or Letter so
//! the browser prints it as it is. Every value from a page, a plugin or the
//! person is escaped before it meets a template.

use std::fmt::Write as _;

use base64::Engine as _;
use chrono::{DateTime, Utc};

use super::words::{self, Words};
use super::{Ending, Facts, Language, Recipient, Request, ShotKind, law};
use crate::audit::Finding;
use crate::receipt::html_escape as escape;

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
        Recipient::Bank => escape(w.bank),
        Recipient::Merchant => format!("{}\n{}", escape(service), escape(w.merchant_dept)),
        Recipient::Regulator => escape(words::regulator(request.jurisdiction, lang)),
    };
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"{code}\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">\
         <title>{subject}</title><style>{STYLE}</style></head><body>\n\
         <p class=\"sender\">{name}\n{address}</p>\n<p class=\"recipient\">{recipient}</p>\n\
         <p class=\"date\">{today}</p>\n<h1 id=\"subject\">{subject}</h1>\n\
         <p>{account}</p>\n<p>{salutation}</p>\n<p id=\"opening\">{opening}</p>\n<p id=\"ask\">{ask}</p>\n",
        code = lang.code(),
        subject = filled(subject),
        name = escape(name),
        address = escape(w.address_blank),
        today = escape(&words::day(lang, &today)),
        account = escape(w.account_blank),
        salutation = escape(w.salutation),
        opening = filled(opening),
        ask = filled(ask),
    );
    facts_html(&mut out, facts, request, w);
    if request.to == Recipient::Regulator {
        findings_html(&mut out, facts, request, w);
    }
    proof_html(&mut out, facts, w);
    let enclosed = if facts.proof.receipts.is_empty() {
        fill(w.on_request, &[("run", &facts.run_id)])
    } else {
        escape(w.enclosed)
    };
    let _ = write!(
        out,
        "<p>{closing}</p>\n<p class=\"sign\">{name}</p>\n<p id=\"enclosed\">{enclosed}</p>\n",
        closing = escape(w.closing),
        name = escape(name),
    );
    pictures_html(&mut out, facts, w);
    let _ = write!(
        out,
        "<p class=\"note\" id=\"not-advice\">{}</p>\n</body></html>\n",
        escape(w.not_advice)
    );
    out
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

/// `template` with each `{key}` replaced by its value, escaped.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = escape(template);
    for (key, value) in values {
        out = out.replace(&format!("{{{key}}}"), &escape(value));
    }
    out
}

fn row(out: &mut String, label: &str, value: &str) {
    let _ = write!(out, "<dt>{}</dt><dd>{value}</dd>", escape(label));
}

fn facts_html(out: &mut String, facts: &Facts, request: &Request, w: &Words) {
    let lang = request.language;
    let _ = write!(out, "<h2>{}</h2>\n<dl id=\"facts\">", escape(w.facts));
    row(out, w.service, &escape(&facts.display_name));
    row(
        out,
        w.account_page,
        &format!("<code>{}</code>", escape(&facts.account_page)),
    );
    let mut quote = None;
    match &facts.ending {
        Ending::Cancelled {
            approved_at,
            confirmed_at,
            confirmation,
        } => {
            if let Some(at) = approved_at {
                row(out, w.approved_at, &escape(&moment(lang, at)));
            }
            row(out, w.confirmed_at, &escape(&moment(lang, confirmed_at)));
            row(
                out,
                w.confirmation_page,
                &format!("<code>{}</code>", escape(&confirmation.url)),
            );
            quote = Some((w.confirmation_words, confirmation.text.clone()));
        }
        Ending::NoWayOut {
            ended_at,
            said,
            url,
        } => {
            row(out, w.attempted_at, &escape(&moment(lang, ended_at)));
            row(out, w.stopped_on, &format!("<code>{}</code>", escape(url)));
            quote = Some((w.site_said, said.clone()));
        }
        Ending::SignInWall { ended_at, url } => {
            row(out, w.attempted_at, &escape(&moment(lang, ended_at)));
            row(out, w.stopped_on, &format!("<code>{}</code>", escape(url)));
        }
    }
    if request.to != Recipient::Regulator {
        let charges = if request.charges.is_empty() {
            escape(w.charges_blank)
        } else {
            request
                .charges
                .iter()
                .map(|c| escape(c))
                .collect::<Vec<_>>()
                .join("<br>")
        };
        row(out, w.charges, &charges);
    }
    out.push_str("</dl>\n");
    if let Some((label, words)) = quote.filter(|(_, q)| !q.trim().is_empty()) {
        let _ = write!(
            out,
            "<p>{}:</p>\n<blockquote id=\"quote\">{}</blockquote>\n",
            escape(label),
            escape(words.trim())
        );
    }
}

fn findings_html(out: &mut String, facts: &Facts, request: &Request, w: &Words) {
    let _ = writeln!(out, "<h2>{}</h2>", escape(w.findings));
    if facts.audit.is_clean() {
        let _ = writeln!(out, "<p>{}</p>", escape(w.no_findings));
        return;
    }
    for f in &facts.audit.findings {
        let _ = write!(
            out,
            "<div class=\"finding\" data-kind=\"{kind}\"><strong>{title}</strong> ({found_on} “{screen}”, <code>{url}</code>): {sentence}",
            kind = f.kind.id(),
            title = escape(words::kind_title(f.kind, request.language)),
            found_on = escape(w.found_on),
            screen = escape(&f.screen),
            url = escape(&f.url),
            sentence = sentence(f, request.language),
        );
        for c in law::citations(f.kind, request.jurisdiction, request.language) {
            let _ = write!(
                out,
                "<div class=\"rule\">{}: {}</div>",
                escape(c.name),
                escape(c.says)
            );
        }
        out.push_str("</div>\n");
    }
}

/// What a finding observed, in the letter's language, escaped.
fn sentence(f: &Finding, lang: Language) -> String {
    match lang {
        Language::En => escape(&f.sentence()),
        Language::De => fill(
            words::kind_sentence_de(f.kind),
            &[("e", &f.evidence), ("d", &f.detail)],
        ),
    }
}

fn proof_html(out: &mut String, facts: &Facts, w: &Words) {
    let p = &facts.proof;
    let _ = write!(out, "<h2>{}</h2>\n<dl id=\"proof\">", escape(w.record));
    row(
        out,
        w.run,
        &format!("<code>{}</code>", escape(&facts.run_id)),
    );
    row(
        out,
        w.head,
        &format!(
            "<code>{}</code> ({} {})",
            escape(&p.head),
            p.lines,
            escape(w.lines)
        ),
    );
    if let Some(signed) = &p.signed {
        let s = &signed.statement;
        row(
            out,
            w.signed_by,
            &format!(
                "{} (<code>{}</code>)",
                escape(&s.signer),
                escape(&s.key.to_string())
            ),
        );
        row(out, w.signed_at, &escape(&s.signed_at));
        row(
            out,
            w.signature,
            &format!("<code>{}</code>", escape(&signed.signature())),
        );
    }
    if !p.receipts.is_empty() {
        let files: Vec<String> = p
            .receipts
            .iter()
            .map(|(name, sha)| format!("{}: <code>{}</code>", escape(name), escape(sha)))
            .collect();
        row(out, w.receipt_files, &files.join("<br>"));
    }
    out.push_str("</dl>\n");
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
        None => escape(w.check_unsigned),
    };
    let _ = writeln!(out, "<p id=\"check\">{check}</p>");
}

fn pictures_html(out: &mut String, facts: &Facts, w: &Words) {
    if facts.shots.is_empty() {
        return;
    }
    let _ = writeln!(out, "<h2>{}</h2>", escape(w.pictures));
    for shot in &facts.shots {
        let caption = match shot.what {
            ShotKind::Confirmation => w.shot_confirmation,
            ShotKind::Approval => w.shot_approval,
            ShotKind::Stopped => w.shot_stopped,
        };
        let image = match std::fs::read(&shot.path) {
            Ok(bytes) => format!(
                "<img alt=\"{}\" src=\"data:image/png;base64,{}\">",
                escape(caption),
                base64::engine::general_purpose::STANDARD.encode(bytes)
            ),
            Err(_) => format!("<p>{}</p>", escape(w.shot_missing)),
        };
        let _ = writeln!(
            out,
            "<figure>{image}<figcaption>{}</figcaption></figure>",
            escape(caption)
        );
    }
}
