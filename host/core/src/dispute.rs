//! The letter for when a cancellation is ignored or refused: to the bank
//! (a charge after the cancellation), to the merchant, or to a regulator
//! (each obstacle the audit found, with the rule that names it), in English
//! or German, as HTML the browser prints to PDF.
//!
//! A letter states only what the run's own record shows, and only from a
//! record that verifies: a letter built on a changed record would be
//! confidently wrong in the one place it must not be. Two kinds of run
//! qualify: a verified cancellation, and a run that stopped because the
//! site offered no way out (phone or chat only, a sign-in the person could
//! not pass). Anything else proves neither, and is refused with why.

mod html;
mod law;
mod words;

use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde_json::Value;

use crate::audit::{self, Audit, RecordView};
use crate::receipt::{self, Approval, Confirmation, Receipt};
use crate::record::integrity;
use crate::signing::Signed;
pub use html::letter;

/// Characters of the confirmation's words a letter quotes.
const MAX_QUOTE_CHARS: usize = 1_200;

/// Who the letter is to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recipient {
    Bank,
    Regulator,
    Merchant,
}

impl FromStr for Recipient {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        named(
            s,
            &[
                ("bank", Recipient::Bank),
                ("regulator", Recipient::Regulator),
                ("merchant", Recipient::Merchant),
            ],
            "a recipient",
        )
    }
}

/// `text` as one of `table`'s names, or an error listing them.
fn named<T: Copy>(text: &str, table: &[(&str, T)], what: &str) -> Result<T, String> {
    table
        .iter()
        .find(|(name, _)| *name == text)
        .map(|(_, value)| *value)
        .ok_or_else(|| {
            let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
            let (last, rest) = names.split_last().unwrap_or((&"", &[]));
            format!("{text:?} is not {what}: {} or {last}", rest.join(", "))
        })
}

/// Whose rules a regulator's letter names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Jurisdiction {
    UsCa,
    Us,
    Eu,
    Uk,
    De,
}

impl FromStr for Jurisdiction {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        named(
            s,
            &[
                ("us-ca", Jurisdiction::UsCa),
                ("us", Jurisdiction::Us),
                ("eu", Jurisdiction::Eu),
                ("uk", Jurisdiction::Uk),
                ("de", Jurisdiction::De),
            ],
            "a jurisdiction",
        )
    }
}

/// The letter's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    En,
    De,
}

impl FromStr for Language {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        named(
            s,
            &[("en", Language::En), ("de", Language::De)],
            "a language of the letters",
        )
    }
}

impl Language {
    pub fn code(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::De => "de",
        }
    }
}

/// What the person asks for, beyond the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub to: Recipient,
    pub jurisdiction: Jurisdiction,
    pub language: Language,
    /// The sender's name; a bracketed blank to fill in when not given.
    pub name: Option<String>,
    /// The charges disputed, as the person writes them ("2026-12-05 EUR
    /// 15.49"); `scan --since-cancel` lists them.
    pub charges: Vec<String>,
}

impl Request {
    /// The defaults go together: German for Germany, Germany for German.
    pub fn new(
        to: Recipient,
        jurisdiction: Option<Jurisdiction>,
        language: Option<Language>,
    ) -> Self {
        let jurisdiction = jurisdiction.unwrap_or(match language {
            Some(Language::De) => Jurisdiction::De,
            _ => Jurisdiction::Us,
        });
        let language = language.unwrap_or(match jurisdiction {
            Jurisdiction::De => Language::De,
            _ => Language::En,
        });
        Self {
            to,
            jurisdiction,
            language,
            name: None,
            charges: Vec::new(),
        }
    }
}

/// Why no letter can be written from a run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DisputeError {
    #[error(
        "its record does not verify ({0}); a letter states what the record shows, so none is written from a changed record"
    )]
    RecordChanged(String),
    #[error(
        "it ended {0}: that shows neither a cancellation nor a way out refused, so there is nothing a letter could state (a letter is written for a verified cancellation, or a run stopped at a phone-only, chat-only or sign-in page)"
    )]
    Nothing(String),
    #[error("it cannot be read: {0}")]
    Unreadable(String),
}

/// How the run ended, as the letter states it.
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    /// The service confirmed the cancellation on its page.
    Cancelled {
        /// When the person said yes to the step that commits.
        approved_at: Option<String>,
        confirmed_at: String,
        confirmation: Confirmation,
    },
    /// The site offered no way to cancel online.
    NoWayOut {
        ended_at: String,
        /// What the site said instead, as the plugin read it.
        said: String,
        url: String,
    },
    /// The run stopped at a sign-in the person could not pass.
    SignInWall { ended_at: String, url: String },
}

/// A picture the letter encloses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shot {
    pub what: ShotKind,
    pub path: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShotKind {
    Confirmation,
    Approval,
    Stopped,
}

/// What makes the letter's facts checkable.
#[derive(Debug, Clone, PartialEq)]
pub struct Proof {
    /// The signer's statement of the sealed record; none for an unsigned
    /// record.
    pub signed: Option<Signed>,
    pub head: String,
    pub lines: u64,
    /// The receipt files and their SHA-256.
    pub receipts: Vec<(String, String)>,
}

/// Everything a letter states, read from one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Facts {
    pub run_id: String,
    pub service: String,
    pub display_name: String,
    /// The page the run started on: the account page.
    pub account_page: String,
    pub ending: Ending,
    pub approvals: Vec<Approval>,
    pub audit: Audit,
    pub shots: Vec<Shot>,
    pub proof: Proof,
}

impl Facts {
    /// Reads a run: its record must verify, and it must have ended in a
    /// way a letter can state.
    pub fn read(dir: &Path) -> Result<Self, DisputeError> {
        let verified =
            integrity::verify(dir).map_err(|m| DisputeError::RecordChanged(m.to_string()))?;
        let view = RecordView::read(dir).map_err(|e| DisputeError::Unreadable(e.to_string()))?;
        let audit = audit::audit(&view);
        let made = Receipt::from_record(dir, confirmation(dir))
            .map_err(|e| DisputeError::Unreadable(e.to_string()))?;
        let text = std::fs::read_to_string(dir.join(crate::record::TRANSCRIPT_FILE))
            .map_err(|e| DisputeError::Unreadable(e.to_string()))?;
        let links =
            integrity::read_chain(&text).map_err(|m| DisputeError::RecordChanged(m.to_string()))?;
        let of_type = |kind: &str| {
            links
                .iter()
                .rev()
                .find(|l| l.event.get("type").and_then(Value::as_str) == Some(kind))
                .cloned()
        };
        let started = of_type("run_started");
        let finished = of_type("finished").ok_or_else(|| {
            DisputeError::Nothing("without a result (the run did not finish)".to_owned())
        })?;
        let result = finished.event.get("result").cloned().unwrap_or(Value::Null);
        let field = |key: &str| {
            result
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let flag = |key: &str| result.get(key).and_then(Value::as_bool) == Some(true);
        let reason = field("reason");
        let url = field("final_url");
        let ending = if flag("success") && flag("verified") {
            let approved_at = made
                .approvals
                .iter()
                .rev()
                .find(|a| a.answer == "approved")
                .map(|a| a.answered_at.clone());
            Ending::Cancelled {
                approved_at,
                confirmed_at: finished.time.clone(),
                confirmation: made.confirmation.clone(),
            }
        } else if reason == "cannot_cancel_here" {
            Ending::NoWayOut {
                ended_at: finished.time.clone(),
                said: field("error"),
                url,
            }
        } else if reason == "auth_required" {
            Ending::SignInWall {
                ended_at: finished.time.clone(),
                url,
            }
        } else {
            return Err(DisputeError::Nothing(if reason.is_empty() {
                "without a reason".to_owned()
            } else {
                format!("as {reason}, not a verified cancellation")
            }));
        };
        let shots = shots(dir, &ending, &made.approvals);
        let receipts = verified
            .files
            .iter()
            .filter(|f| f.path.starts_with("receipt."))
            .map(|f| (f.path.clone(), f.sha256.clone()))
            .collect();
        let start = |key: &str| {
            started
                .as_ref()
                .and_then(|l| l.event.get(key))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let account_page = [start("local_copy"), start("start_url")]
            .into_iter()
            .find(|u| !u.is_empty())
            .unwrap_or_default();
        Ok(Facts {
            run_id: made.run_id.clone(),
            service: made.service.clone(),
            display_name: made.display_name.clone(),
            account_page,
            ending,
            approvals: made.approvals,
            audit,
            shots,
            proof: Proof {
                signed: verified.signed,
                head: verified.head,
                lines: verified.lines,
                receipts,
            },
        })
    }
}

/// The confirmation page as the run saved it (`confirmation.txt`).
fn confirmation(dir: &Path) -> Confirmation {
    let Ok(saved) = std::fs::read_to_string(dir.join(receipt::CONFIRMATION_TXT)) else {
        return Confirmation::default();
    };
    let (head, text) = saved.split_once("\n\n").unwrap_or((saved.as_str(), ""));
    let line = |prefix: &str| {
        head.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_default()
            .to_owned()
    };
    let shot = dir.join(receipt::CONFIRMATION_PNG);
    Confirmation {
        url: line("URL: "),
        title: line("Title: "),
        text: crate::text::truncate(text.trim_end(), MAX_QUOTE_CHARS, "…").into_owned(),
        screenshot: shot.is_file().then_some(shot),
    }
}

/// The pictures that show what happened, those the run took.
fn shots(dir: &Path, ending: &Ending, approvals: &[Approval]) -> Vec<Shot> {
    let mut found = Vec::new();
    match ending {
        Ending::Cancelled { confirmation, .. } => {
            if let Some(path) = &confirmation.screenshot {
                found.push(Shot {
                    what: ShotKind::Confirmation,
                    path: path.clone(),
                });
            }
            if let Some(path) = approvals.iter().rev().find_map(|a| a.screenshot.clone()) {
                found.push(Shot {
                    what: ShotKind::Approval,
                    path,
                });
            }
        }
        Ending::NoWayOut { .. } | Ending::SignInWall { .. } => {
            let path = dir.join(receipt::FINAL_PNG);
            if path.is_file() {
                found.push(Shot {
                    what: ShotKind::Stopped,
                    path,
                });
            }
        }
    }
    found
}

/// The letter's file name: `dispute-bank-en.html`.
pub fn file_name(request: &Request, extension: &str) -> String {
    let to = match request.to {
        Recipient::Bank => "bank",
        Recipient::Regulator => "regulator",
        Recipient::Merchant => "merchant",
    };
    format!("dispute-{to}-{}.{extension}", request.language.code())
}

#[cfg(test)]
mod tests;
