//! The dark-pattern audit of a run: what the flow put between the person
//! and the cancellation, as facts the host observed — the screens before
//! the final step, offers the run went past, a way on worded to shame,
//! options selected before anyone touched them, controls the host's DOM
//! probe found hard to see, a question the flow would not go on without,
//! and a service that could only be cancelled by phone or chat. Each
//! finding names the rule that speaks to it (`rules`).
//!
//! A pure function of the record ([`RecordView`]): the receipt carries it,
//! `runs show` prints it, and both read the same run the same way. Nothing
//! here is a guess at intent: a finding quotes the element or the words
//! the page had, and where the run met it.

mod phrases;
mod rules;
mod screens;
mod view;

use serde::Serialize;
use serde_json::Value;

use crate::page::Element;
use crate::safety::floor::{self, Place, Strength};
pub use rules::{NOT_ADVICE, Rule};
use screens::{Screen, Walk, describe};
pub use view::{BROWSER_DIR, Moment, RecordView};

/// Characters of a quoted reason or page text a finding keeps.
const MAX_EVIDENCE_CHARS: usize = 300;

/// Roles a person presses or picks to go on or to stay.
const CONTROLS: &[&str] = &[
    "button",
    "link",
    "radio",
    "checkbox",
    "switch",
    "menuitem",
    "menuitemradio",
    "menuitemcheckbox",
    "tab",
];
/// Roles that hold a state before anyone touches them.
const CHECKABLE: &[&str] = &[
    "radio",
    "checkbox",
    "switch",
    "menuitemradio",
    "menuitemcheckbox",
];
/// Roles that ask the person something.
const QUESTIONS: &[&str] = &[
    "combobox",
    "listbox",
    "radio",
    "checkbox",
    "textbox",
    "spinbutton",
    "slider",
];
/// What the DOM probe reports of a control that is hard to see.
const HARD_TO_SEE: &[&str] = &["low_contrast", "hidden", "tiny"];
/// What the DOM probe reports of a field the form will not go on without.
const REQUIRED_FIELD: &str = "required";

/// Kinds of obstacle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// An element that would accept an offer or change the plan was on a
    /// page of the flow, and the run went past it.
    SaveOffer,
    /// The way on reads like "No, I don't want to save money".
    Confirmshaming,
    /// A radio or checkbox to pause, keep or take an offer was checked
    /// before the person or the run touched it.
    Preselected,
    /// The DOM probe measured a control as low-contrast, hidden or tiny.
    HardToSee,
    /// A question the flow would not go on without.
    CompulsorySurvey,
    /// The run ended as "cannot be cancelled here", sent to a phone or a
    /// chat.
    PhoneOrChatOnly,
}

impl Kind {
    /// The kind as JSON names it: `save-offer`.
    pub fn id(self) -> &'static str {
        match self {
            Kind::SaveOffer => "save-offer",
            Kind::Confirmshaming => "confirmshaming",
            Kind::Preselected => "preselected",
            Kind::HardToSee => "hard-to-see",
            Kind::CompulsorySurvey => "compulsory-survey",
            Kind::PhoneOrChatOnly => "phone-or-chat-only",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Kind::SaveOffer => "Save offer on the way out",
            Kind::Confirmshaming => "Confirmshaming",
            Kind::Preselected => "Pre-selected option",
            Kind::HardToSee => "Hard-to-see control",
            Kind::CompulsorySurvey => "Compulsory survey",
            Kind::PhoneOrChatOnly => "Phone or chat only",
        }
    }

    /// The rules that speak to this kind of obstacle, the closest first.
    pub fn rules(self) -> &'static [Rule] {
        match self {
            Kind::SaveOffer => &[Rule::CaliforniaArl, Rule::FtcAmazon2025],
            Kind::Confirmshaming => &[Rule::UkDmcc, Rule::Rosca],
            Kind::Preselected => &[Rule::Rosca, Rule::UkDmcc],
            Kind::HardToSee => &[Rule::CaliforniaArl, Rule::Rosca],
            Kind::CompulsorySurvey => &[Rule::UkDmcc, Rule::Rosca],
            Kind::PhoneOrChatOnly => &[Rule::CaliforniaArl, Rule::Rosca],
        }
    }
}

/// One obstacle, as the page had it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub kind: Kind,
    /// The element (`button "Accept Offer"`) or the words, as the page or
    /// the plugin wrote them: page-supplied, escaped wherever shown.
    pub evidence: String,
    /// What else was observed: the phrase that matched, a measurement.
    pub detail: String,
    /// The page it was on: its first heading, else its URL.
    pub screen: String,
    pub url: String,
    pub rules: Vec<Rule>,
}

impl Finding {
    fn new(kind: Kind, evidence: String, detail: String, screen: &Screen) -> Self {
        Finding {
            kind,
            evidence: crate::text::truncate(&evidence, MAX_EVIDENCE_CHARS, "…").into_owned(),
            detail,
            screen: screen.name(),
            url: screen.url.clone(),
            rules: kind.rules().to_vec(),
        }
    }

    /// One plain sentence of what happened, evidence quoted as is.
    pub fn sentence(&self) -> String {
        let e = &self.evidence;
        match self.kind {
            Kind::SaveOffer => {
                format!(
                    "{e} offered to keep the subscription on other terms; the run went past it."
                )
            }
            Kind::Confirmshaming => format!("The way on was worded to shame leaving: {e}."),
            Kind::Preselected => format!("{e} was already selected when the page opened."),
            Kind::HardToSee => format!("{e} was hard to see ({}).", self.detail),
            Kind::CompulsorySurvey => {
                format!(
                    "The flow would not go on until {e} was answered ({}).",
                    self.detail
                )
            }
            Kind::PhoneOrChatOnly => {
                format!(
                    "There was no way to cancel online; the service sent the person to a phone or a chat (its plugin's words: \"{e}\")."
                )
            }
        }
    }
}

/// A page before the final step, as the audit lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScreenVisit {
    pub name: String,
    pub url: String,
}

/// What the flow put in the way.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Audit {
    /// The pages visited up to the one the approved step was taken on
    /// (every page, when nothing was approved).
    pub screens: Vec<ScreenVisit>,
    /// Whether an approved step was taken (the screens end there).
    pub committed: bool,
    /// Empty for a flow with nothing in the way.
    pub findings: Vec<Finding>,
}

impl Audit {
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }
}

/// The audit of a run's record.
pub fn audit(record: &RecordView) -> Audit {
    let walk = screens::walk(record);
    let mut findings = Vec::new();
    for (at, screen) in walk.before_commit().iter().enumerate() {
        if screen.in_flow {
            save_offers(&walk, at, screen, &mut findings);
            shaming(&walk, at, screen, &mut findings);
            preselected(screen, &mut findings);
            compulsory(&walk, at, screen, &mut findings);
        }
        hard_to_see(screen, &mut findings);
    }
    phone_or_chat(&walk, &mut findings);
    let mut seen = std::collections::HashSet::new();
    findings.retain(|f| seen.insert((f.kind, f.evidence.clone())));
    Audit {
        screens: walk
            .before_commit()
            .iter()
            .map(|s| ScreenVisit {
                name: s.name(),
                url: s.url.clone(),
            })
            .collect(),
        committed: walk.commit.is_some(),
        findings,
    }
}

fn is(element: &Element, roles: &[&str]) -> bool {
    roles.contains(&element.role.as_str())
}

fn billing_change(text: &str) -> Option<&'static str> {
    floor::sign_in_text(text, Place::Target)
        .filter(|s| s.strength == Strength::BillingChange)
        .map(|s| s.phrase)
}

fn save_offers(walk: &Walk, at: usize, screen: &Screen, out: &mut Vec<Finding>) {
    if !walk.went_past(at) {
        return;
    }
    for element in screen.elements(walk.views_before_commit(at)) {
        if is(element, CONTROLS)
            && !screen.touched(element)
            && let Some(phrase) =
                billing_change(&element.name).or_else(|| phrases::takes_offer(&element.name))
        {
            out.push(Finding::new(
                Kind::SaveOffer,
                describe(element),
                format!("\"{phrase}\""),
                screen,
            ));
        }
    }
}

fn shaming(walk: &Walk, at: usize, screen: &Screen, out: &mut Vec<Finding>) {
    for element in screen.elements(walk.views_before_commit(at)) {
        if is(element, CONTROLS)
            && let Some(phrase) = phrases::shaming(&element.name)
        {
            out.push(Finding::new(
                Kind::Confirmshaming,
                describe(element),
                format!("\"{phrase}\""),
                screen,
            ));
        }
    }
}

/// Read on the page as it arrived, before the run touched anything on it.
fn preselected(screen: &Screen, out: &mut Vec<Finding>) {
    for element in screen.views.first().into_iter().flatten() {
        if is(element, CHECKABLE)
            && element.has_state("checked")
            && let Some(phrase) =
                billing_change(&element.name).or_else(|| phrases::keeping(&element.name))
        {
            out.push(Finding::new(
                Kind::Preselected,
                describe(element),
                format!("\"{phrase}\""),
                screen,
            ));
        }
    }
}

fn hard_to_see(screen: &Screen, out: &mut Vec<Finding>) {
    for seen in &screen.observed {
        if HARD_TO_SEE.contains(&seen.kind.as_str()) {
            let detail = match seen.detail.as_str() {
                "" => seen.kind.replace('_', " "),
                d => format!("{}: {d}", seen.kind.replace('_', " ")),
            };
            out.push(Finding::new(
                Kind::HardToSee,
                seen.target.clone(),
                detail,
                screen,
            ));
        }
    }
}

/// A question on a page the run went past, where the page said it was
/// required, an action there failed for want of an answer, or the DOM
/// probe measured a required field.
fn compulsory(walk: &Walk, at: usize, screen: &Screen, out: &mut Vec<Finding>) {
    if !walk.went_past(at) {
        return;
    }
    let elements = screen.elements(walk.views_before_commit(at));
    let Some(question) = elements.iter().find(|e| is(e, QUESTIONS)) else {
        return;
    };
    let said = elements
        .iter()
        .flat_map(|e| [Some(e.name.as_str()), e.value.as_deref()])
        .flatten()
        .chain(screen.errors.iter().map(String::as_str))
        .find_map(phrases::required)
        .map(|phrase| format!("the page said \"{phrase}\""));
    let probed = screen
        .observed
        .iter()
        .find(|o| o.kind == REQUIRED_FIELD)
        .map(|o| format!("{} is required", o.target));
    let marked = elements
        .iter()
        .find(|e| is(e, QUESTIONS) && e.has_state(REQUIRED_FIELD))
        .map(|e| format!("{} is required", describe(e)));
    if let Some(detail) = said.or(probed).or(marked) {
        out.push(Finding::new(
            Kind::CompulsorySurvey,
            describe(question),
            detail,
            screen,
        ));
    }
}

fn phone_or_chat(walk: &Walk, out: &mut Vec<Finding>) {
    let Some(result) = &walk.finished else {
        return;
    };
    let ended_here = result.get("reason").and_then(Value::as_str) == Some("cannot_cancel_here");
    let why = result
        .get("error")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if let (true, Some(phrase), Some(last)) =
        (ended_here, phrases::phone_or_chat(why), walk.screens.last())
    {
        out.push(Finding::new(
            Kind::PhoneOrChatOnly,
            why.to_owned(),
            format!("\"{phrase}\""),
            last,
        ));
    }
}

#[cfg(test)]
mod tests;
