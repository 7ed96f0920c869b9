//! The receipt of a verified cancellation: what was cancelled, when, what
//! the page said, and that the person approved it. Built from the run's
//! own record (read back through its hash chain), written as
//! `receipt.html` (self-contained, images inline), `receipt.md`, and
//! `receipt.pdf` printed by the same browser. Each carries the run's audit
//! (`crate::audit`): what the flow put in the way, or nothing.

mod html;
mod markdown;
pub mod seal;

pub(crate) use html::POLICY as HTML_POLICY;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Local, Utc};
use serde_json::{Value, json};

use crate::audit::{self, Audit, RecordView};
use crate::browser::{Browser, BrowserError, BrowserOptions, UserData, thrown, tools as mcp};
use crate::error::{Error, Result};
use crate::record::{TRANSCRIPT_FILE, chain, integrity};
use crate::signing::{Signed, Signer};

pub const RECEIPT_HTML: &str = crate::record::runs::RECEIPT_HTML;
pub const RECEIPT_MD: &str = "receipt.md";
pub const RECEIPT_PDF: &str = "receipt.pdf";
pub const CONFIRMATION_PNG: &str = "confirmation.png";
pub const CONFIRMATION_TXT: &str = "confirmation.txt";
/// The page a run stopped on when the site offered no way out.
pub const FINAL_PNG: &str = "final.png";

/// Characters of the confirmation page's text the receipt shows; the whole
/// text is in `confirmation.txt`.
const MAX_RECEIPT_TEXT_CHARS: usize = 4_000;
/// Characters of page text saved at all: a page is not a book.
const MAX_SAVED_TEXT_CHARS: usize = 200_000;

/// Start the answers the confirmation's read and the receipt's page throw.
const CONFIRMATION_MARK: &str = "subterminator-confirmation:";
const PRINT_MARK: &str = "subterminator-printed:";

/// The confirmation page as the host read it after the plugin verified it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Confirmation {
    pub url: String,
    pub title: String,
    pub text: String,
    /// `confirmation.png` in the run folder, when the screenshot was taken.
    pub screenshot: Option<PathBuf>,
}

/// One approval: what the person was shown, what they answered, and when.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Approval {
    pub asked_at: String,
    pub answered_at: String,
    pub reason: String,
    pub action: String,
    pub target: Option<String>,
    pub shows: Option<String>,
    pub url: String,
    pub said: Option<String>,
    pub answer: String,
    pub screenshot: Option<PathBuf>,
}

/// A run's browser steps by who proposed them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Steps {
    pub plan: u64,
    pub remembered: u64,
    pub model: u64,
}

impl Steps {
    /// "4 by the plugin's plan, 1 by the model": the parts that took any.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = [
            (self.plan, "by the plugin's plan"),
            (self.remembered, "by the remembered path"),
            (self.model, "by the model"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, who)| format!("{n} {who}"))
        .collect();
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(", ")
        }
    }
}

/// Everything a receipt says.
#[derive(Debug, Clone, PartialEq)]
pub struct Receipt {
    pub run_id: String,
    pub service: String,
    pub display_name: String,
    pub finished: DateTime<Utc>,
    pub confirmation: Confirmation,
    pub approvals: Vec<Approval>,
    pub plugin_id: String,
    pub plugin_version: String,
    pub plugin_sha256: String,
    pub model: String,
    pub turns: u64,
    /// Who took the browser steps: the plugin's plan, the remembered path,
    /// the model (issue 32: the model only where the others stop).
    pub steps: Steps,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: Option<f64>,
    /// The hash of the transcript's last line when the receipt was made:
    /// the record from here back cannot change without `runs verify` saying so.
    pub fingerprint: String,
    pub lines: u64,
    /// What the flow put between the person and the cancellation.
    pub audit: Audit,
    /// The transcript up to `fingerprint`, as written: each receipt file
    /// carries it, so the chain can be checked from the receipt alone.
    pub record: String,
    /// The signer's statement of `fingerprint`, shown in the receipt; none
    /// when this machine has no key to sign with.
    pub signed: Option<Signed>,
}

impl Receipt {
    /// Reads the run's transcript so far (checking its chain) and the
    /// confirmation the host captured.
    pub fn from_record(dir: &Path, confirmation: Confirmation) -> Result<Self> {
        let path = dir.join(TRANSCRIPT_FILE);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Error::io("cannot read the transcript", &path, e))?;
        let links = integrity::read_chain(&text).map_err(|m| {
            Error::Configuration(format!("cannot make a receipt from a broken record: {m}"))
        })?;
        Ok(Receipt {
            record: text,
            ..from_links(dir, &links, confirmation)
        })
    }

    /// Signs the record's head as this receipt names it.
    pub fn sign(&mut self, signer: &Signer) {
        let statement =
            signer.statement(&self.run_id, &self.service, &self.fingerprint, self.lines);
        self.signed = Some(signer.sign(statement));
    }

    /// A receipt file's bytes with the record and the seal in them, when
    /// the receipt is signed.
    fn sealed(&self, bytes: Vec<u8>, signer: Option<&Signer>) -> Vec<u8> {
        match (&self.signed, signer) {
            (Some(signed), Some(signer)) => {
                seal::seal(bytes, &self.record, &signed.statement, signer)
            }
            _ => bytes,
        }
    }

    /// Seals `receipt.pdf` once printed (the browser writes it whole).
    pub fn seal_pdf(&self, path: &Path, signer: Option<&Signer>) -> Result<()> {
        if self.signed.is_none() || signer.is_none() {
            return Ok(());
        }
        let bytes =
            std::fs::read(path).map_err(|e| Error::io("cannot read the receipt", path, e))?;
        std::fs::write(path, self.sealed(bytes, signer))
            .map_err(|e| Error::io("cannot seal the receipt", path, e))
    }
}

fn from_links(dir: &Path, links: &[chain::Link], confirmation: Confirmation) -> Receipt {
    let of_type = |kind: &'static str| {
        links
            .iter()
            .filter(move |l| l.event.get("type").and_then(Value::as_str) == Some(kind))
    };
    let started = of_type("run_started").next().map(|l| &l.event);
    let finished = of_type("finished").next_back();
    let result = finished.and_then(|l| l.event.get("result"));
    let text = |v: Option<&Value>, key: &str| {
        v.and_then(|v| v.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let number = |v: Option<&Value>, key: &str| v.and_then(|v| v.get(key)).and_then(Value::as_u64);
    let plugin = started.and_then(|s| s.get("plugin"));
    let usage = result.and_then(|r| r.get("usage"));
    let steps = result.and_then(|r| r.get("steps"));
    let mut approvals: Vec<Approval> = Vec::new();
    for link in links {
        match link.event.get("type").and_then(Value::as_str) {
            Some("approval_asked") => {
                let request = link.event.get("request");
                approvals.push(Approval {
                    asked_at: link.time.clone(),
                    reason: text(request, "reason"),
                    action: text(request, "action"),
                    target: request
                        .and_then(|r| r.get("target"))
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    shows: request
                        .and_then(|r| r.get("shows"))
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    url: text(request, "url"),
                    said: request.and_then(|r| r.get("said")).map(|s| {
                        format!(
                            "{} says: \"{}\"",
                            text(Some(s), "who"),
                            text(Some(s), "words")
                        )
                    }),
                    screenshot: request
                        .and_then(|r| r.get("screenshot"))
                        .and_then(Value::as_str)
                        .map(PathBuf::from)
                        .filter(|p| p.starts_with(dir)),
                    ..Approval::default()
                });
            }
            Some("approval_answered") => {
                if let Some(last) = approvals.last_mut().filter(|a| a.answer.is_empty()) {
                    last.answered_at = link.time.clone();
                    last.answer = text(link.event.get("answer"), "answer");
                }
            }
            _ => {}
        }
    }
    let last = links.last();
    Receipt {
        run_id: dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        service: text(started, "service"),
        display_name: text(started, "display_name"),
        finished: finished
            .and_then(|l| DateTime::parse_from_rfc3339(&l.time).ok())
            .map_or_else(Utc::now, |t| t.with_timezone(&Utc)),
        confirmation,
        approvals,
        plugin_id: text(plugin, "id"),
        plugin_version: text(plugin, "version"),
        plugin_sha256: text(plugin, "sha256"),
        model: text(started, "model"),
        turns: number(result, "turns").unwrap_or(0),
        steps: Steps {
            plan: number(steps, "plan").unwrap_or(0),
            remembered: number(steps, "remembered").unwrap_or(0),
            model: number(steps, "model").unwrap_or(0),
        },
        input_tokens: number(usage, "input").unwrap_or(0),
        output_tokens: number(usage, "output").unwrap_or(0),
        cost_usd: result
            .and_then(|r| r.get("cost_usd"))
            .and_then(Value::as_f64),
        fingerprint: last.map(|l| l.hash.clone()).unwrap_or_default(),
        lines: last.map_or(0, |l| l.seq),
        audit: audit::audit(&RecordView::from_links(links, dir)),
        record: String::new(),
        signed: None,
    }
}

/// Saves the confirmation page: its screenshot and its visible text, URL
/// and title (`confirmation.txt`).
pub async fn capture(browser: &Browser, dir: &Path) -> Confirmation {
    let shot = dir.join(CONFIRMATION_PNG);
    let screenshot = match browser.screenshot(&shot).await {
        Ok(path) => Some(path),
        Err(e) => {
            tracing::warn!("no screenshot of the confirmation page: {e}");
            None
        }
    };
    // Thrown, not returned: no settle wait while the person waits for the
    // receipt (`browser/thrown.rs`).
    let code = format!(
        "async (page) => {{ const v = await page.evaluate(() => ({{ url: location.href, title: document.title, text: document.body ? document.body.innerText : '' }})); throw new Error({CONFIRMATION_MARK:?} + JSON.stringify(v)); }}"
    );
    let page = match thrown::read(browser, &code, CONFIRMATION_MARK).await {
        Ok(answer) => answer
            .and_then(|json| serde_json::from_str::<Value>(&json).ok())
            .unwrap_or_default(),
        Err(e) => {
            tracing::warn!("cannot read the confirmation page's text: {e}");
            Value::Null
        }
    };
    let field = |key: &str| page.get(key).and_then(Value::as_str).unwrap_or_default();
    let confirmation = Confirmation {
        url: field("url").to_owned(),
        title: crate::text::sanitize(field("title")),
        text: crate::text::truncate(field("text"), MAX_SAVED_TEXT_CHARS, "…").into_owned(),
        screenshot,
    };
    let saved = format!(
        "URL: {}\nTitle: {}\n\n{}\n",
        confirmation.url, confirmation.title, confirmation.text
    );
    let path = dir.join(CONFIRMATION_TXT);
    if let Err(e) = std::fs::write(&path, saved) {
        tracing::warn!("cannot save {}: {e}", path.display());
    }
    confirmation
}

/// Writes `receipt.html` and `receipt.md`, sealed by `signer` when the
/// receipt is signed; returns the HTML to print (the seal is the file's,
/// not the page's: the PDF gets its own).
pub fn write(dir: &Path, receipt: &Receipt, signer: Option<&Signer>) -> Result<String> {
    let html = html::html(receipt);
    let md = markdown::markdown(receipt);
    for (name, body) in [(RECEIPT_HTML, &html), (RECEIPT_MD, &md)] {
        let path = dir.join(name);
        std::fs::write(&path, receipt.sealed(body.clone().into_bytes(), signer))
            .map_err(|e| Error::io("cannot write the receipt", &path, e))?;
    }
    Ok(html)
}

/// Prints `html` to `dest` in `browser`: in a new tab, so the page the run
/// ended on stays as it was.
pub async fn print_pdf(browser: &Browser, html: &str, dest: &Path) -> Result<(), BrowserError> {
    browser.call(mcp::TABS, json!({ "action": "new" })).await?;
    let literal = serde_json::to_string(html).unwrap_or_default();
    // Thrown, not returned, as the confirmation's read (`browser/thrown.rs`).
    let write = format!(
        "async (page) => {{ const n = await page.evaluate(async (html) => {{ document.open(); document.write(html); document.close(); \
         await Promise.all(Array.from(document.images).map(i => i.decode().catch(() => null))); \
         return document.images.length; }}, {literal}); throw new Error({PRINT_MARK:?} + JSON.stringify(n)); }}"
    );
    let printed = match thrown::read(browser, &write, PRINT_MARK).await {
        Ok(_) => browser.pdf(dest).await,
        Err(e) => Err(e),
    };
    if let Err(e) = browser.call(mcp::TABS, json!({ "action": "close" })).await {
        tracing::debug!("closing the receipt's tab: {e}");
    }
    printed
}

/// Prints in a headless browser of its own, for a run whose browser could
/// not print (older Chromium builds print to PDF only when headless).
pub async fn print_pdf_headless(
    like: &BrowserOptions,
    html: &str,
    dest: &Path,
    scratch: PathBuf,
) -> Result<(), BrowserError> {
    let mut options = BrowserOptions::new(UserData::Isolated, scratch.clone());
    options.headless = true;
    options.executable_path.clone_from(&like.executable_path);
    options.command.clone_from(&like.command);
    let printer = Browser::start(options).await?;
    let printed = print_pdf(&printer, html, dest).await;
    if let Err(e) = printer.shutdown().await {
        tracing::warn!("receipt printer shutdown: {e}");
    }
    let _ = std::fs::remove_dir_all(scratch);
    printed
}

/// The receipt's text excerpt.
fn excerpt(text: &str) -> std::borrow::Cow<'_, str> {
    crate::text::truncate(text, MAX_RECEIPT_TEXT_CHARS, "…")
}

/// How a cost is written; unknown when the model's price is not listed.
fn cost(receipt: &Receipt) -> String {
    match receipt.cost_usd {
        Some(c) => format!("${c:.4}"),
        None => "unknown (no list price for this model)".to_owned(),
    }
}

/// When it was confirmed, in UTC and in the machine's time zone.
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

#[cfg(test)]
mod tests;
