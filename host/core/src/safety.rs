//! The one safety decision: for a proposed browser action, proceed, ask the
//! human (with a reason) or refuse (with a code).
//!
//! [`assess`] is pure. It weighs the facts the agent gathered — the action,
//! whether it changes anything, the element the host resolved, where it
//! leads, the service's origins, the plugin's answer — and nothing else, so
//! every rule can be shown in a table test. It fails closed: a state-changing
//! action runs unasked only when a rule positively says it is safe.

pub mod commit_page;
pub mod ended;
pub mod floor;
pub mod plan;
pub mod success;
mod verification;

use serde::Serialize;
use subterminator_sdk::glob::Glob;

use crate::browser::guard::GuardMode;
use crate::browser::tools as mcp;
use crate::page::{Element, ElementFacts, Snapshot, origin_of};
pub use commit_page::CommitPage;
pub use plan::{PlanKnowledge, PlanMark};
pub use verification::{Evidence, Verification, judge_success};

/// Why an action was refused, as the model is told it: a browser error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RefusalCode {
    /// Arguments that are not valid JSON or do not match the tool's schema.
    InvalidParams,
    /// A ref that is not in the latest snapshot.
    RefInvalid,
    ElementDisabled,
    ElementObscured,
    ElementNotVisible,
    /// The browser could not do it, or the host's rules forbid it here.
    ActionFailed,
    Timeout,
    /// The human said no and gave the model words to go on with.
    HumanRejected,
}

impl RefusalCode {
    pub const fn as_str(self) -> &'static str {
        match self {
            RefusalCode::InvalidParams => "invalid_params",
            RefusalCode::RefInvalid => "ref_invalid",
            RefusalCode::ElementDisabled => "element_disabled",
            RefusalCode::ElementObscured => "element_obscured",
            RefusalCode::ElementNotVisible => "element_not_visible",
            RefusalCode::ActionFailed => "action_failed",
            RefusalCode::Timeout => "timeout",
            RefusalCode::HumanRejected => "human_rejected",
        }
    }
}

impl std::fmt::Display for RefusalCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the service plugin said about the action.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum PluginAnswer {
    /// Not consulted: read-only actions are never put to the plugin.
    #[default]
    NotAsked,
    /// No reason to ask.
    NoObjection,
    /// A reason the human must approve first.
    Ask(String),
    /// The plugin failed (trap, timeout, out of memory); why.
    Failed(String),
}

/// The human's settings that bear on the decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// False only under `--no-checkpoint` (tests only).
    pub checkpoints: bool,
}

/// Everything [`assess`] weighs, gathered by the agent.
#[derive(Debug, Clone)]
pub struct Facts<'a> {
    /// The Playwright MCP tool the action runs.
    pub tool: &'a str,
    /// Whether the action changes nothing (a snapshot, a screenshot).
    pub read_only: bool,
    /// The element the host resolved from the latest snapshot.
    pub target: Option<&'a Element>,
    /// The target's facts as the DOM has them, read by the host; for a key
    /// press, the focused element's. `None` when they could not be read.
    pub dom: Option<&'a ElementFacts>,
    /// Words the action carries: text typed, options chosen, the key.
    pub carried: Vec<&'a str>,
    /// For navigation: where to.
    pub navigate_to: Option<&'a str>,
    /// Whether the action only goes back in history.
    pub goes_back: bool,
    /// For a dialog: whether the action accepts it, and what it says.
    pub dialog: Option<DialogFacts<'a>>,
    /// The page the action would run on.
    pub page: &'a Snapshot,
    /// `scheme://host:port` of every site the service may visit.
    pub allowed_origins: &'a [String],
    /// For a service no plugin knows (`cancel <address>`): the site whose
    /// every https origin it may visit. Leaving it asks the person, with
    /// why a flow may rightly go elsewhere, instead of being refused.
    pub site: Option<&'a crate::plugin::generic::Generic>,
    /// Where the run started: navigating back there needs no yes.
    pub start_url: &'a str,
    /// The service's display name, for messages.
    pub service: &'a str,
    pub plan: PlanKnowledge<'a>,
    /// The plugin's commit URL patterns: a request to one commits.
    pub commit_urls: &'a [String],
    pub plugin: PluginAnswer,
    /// Why the page is a commit page, when it is.
    pub commit_page: Option<&'a CommitPage>,
    /// Whether this is the host's own press on the button that closes an
    /// overlay it found (`page::overlay`), never a driver's move.
    pub dismissal: bool,
}

/// A dialog the page opened, as the model wants to answer it.
#[derive(Debug, Clone, Copy)]
pub struct DialogFacts<'a> {
    pub accept: bool,
    /// `confirm`, `alert`, `prompt`, `beforeunload`.
    pub kind: &'a str,
    pub message: &'a str,
    /// Whether the action that opened it needed a yes.
    pub opened_by_commit: bool,
}

/// The decision, with its reason, and everything running the action needs
/// (as codex's `AutoApprove { sandbox_type }`): an action that proceeds
/// unasked carries the guard it runs under. The default is to ask.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Run it, unapproved, under `guard`; the reason goes into the run
    /// record.
    Proceed {
        reason: String,
        #[serde(skip)]
        guard: GuardMode,
    },
    /// Ask the human first, for this reason.
    Ask { reason: String },
    /// Never run it; the model is told why.
    Refuse { code: RefusalCode, message: String },
}

impl Default for Decision {
    fn default() -> Self {
        Decision::Ask {
            reason: "no rule said this action is safe".into(),
        }
    }
}

/// Decides one proposed action from its facts: the one call that says
/// whether it runs, asks or is refused, and, when it runs unasked, under
/// which guard.
pub fn assess(facts: &Facts<'_>, policy: Policy) -> Decision {
    match judge(facts, policy) {
        Judgement::Proceed(reason) => Decision::Proceed {
            reason,
            guard: unapproved_guard(facts),
        },
        Judgement::Ask(reason) => Decision::Ask { reason },
        Judgement::Refuse { code, message } => Decision::Refuse { code, message },
    }
}

/// [`assess`] before the guard is added.
enum Judgement {
    Proceed(String),
    Ask(String),
    Refuse { code: RefusalCode, message: String },
}

impl From<Decision> for Judgement {
    fn from(decision: Decision) -> Self {
        match decision {
            Decision::Proceed { reason, .. } => Judgement::Proceed(reason),
            Decision::Ask { reason } => Judgement::Ask(reason),
            Decision::Refuse { code, message } => Judgement::Refuse { code, message },
        }
    }
}

fn judge(facts: &Facts<'_>, policy: Policy) -> Judgement {
    if let Some(refused) = off_limits(facts) {
        return refused.into();
    }
    if facts.read_only {
        return Judgement::Proceed("the action changes nothing".into());
    }
    if !policy.checkpoints {
        return Judgement::Proceed(
            "checkpoints are off (--no-checkpoint, for testing only)".into(),
        );
    }
    let ask = Judgement::Ask;
    if let Some(dialog) = &facts.dialog {
        return assess_dialog(facts, dialog);
    }
    if let Some(url) = facts.navigate_to {
        return match navigation_needs_yes(facts, url) {
            Some(reason) => ask(reason),
            None => Judgement::Proceed("a link on this page, on the service's own site".into()),
        };
    }
    if facts.target.is_some() && facts.dom.is_none() && facts.tool != mcp::PRESS_KEY {
        return ask("the host could not read what this element really is".into());
    }
    if let Some(target) = facts.target {
        if let Some(reason) = commit_page::element_needs_yes(
            target,
            facts.dom,
            &facts.carried,
            facts.page,
            facts.plan,
            &facts.plugin,
        ) {
            return ask(reason);
        }
        if let Some(dom) = facts.dom
            && NAMED_BY_CONTENT.contains(&target.role.as_str())
            && names_disagree(&target.name, &dom.visible_text)
        {
            return ask(format!(
                "its accessible name \"{}\" is not the text it shows, \"{}\"",
                target.name, dom.visible_text
            ));
        }
    } else if let Some(reason) = carried_needs_yes(facts) {
        return ask(reason);
    }
    if let Some(dom) = facts.dom
        && let Some(url) = dom.form_action.as_deref().or(dom.href.as_deref())
        && let Some(pattern) = matching_pattern(facts.commit_urls, url)
    {
        return ask(format!(
            "it leads to {url}, which the plugin lists as committing ({pattern})"
        ));
    }
    let exempt = plan_exempt(facts);
    let in_place = dismisses_in_place(facts);
    let answers = answers_in_place(facts);
    if let Some(page) = facts.commit_page
        && !exempt
        && !in_place
        && !answers
    {
        return ask(format!(
            "this page commits ({}: {}), so every change on it needs a yes",
            page.because_of, page.reason
        ));
    }
    Judgement::Proceed(if exempt {
        "a step the plugin's plan says is not irreversible".into()
    } else if in_place && facts.commit_page.is_some() {
        "it closes an overlay in place: no form, no link, and the guard stops any request".into()
    } else if answers && facts.commit_page.is_some() {
        "it answers a question on the page and sends nothing; the guard holds whatever it might"
            .into()
    } else {
        "nothing on this page commits".into()
    })
}

/// Roles whose click picks an answer in place: nothing is submitted.
const ANSWER_ROLES: &[&str] = &["radio", "checkbox", "option", "menuitemradio"];

/// Whether the action only answers a question on the page: picks an
/// option, checks a radio button or a box. By itself it sends nothing; a
/// page script that sends on change is held by the guard, which for an
/// answer on a page that commits holds navigations too
/// ([`unapproved_guard`]). So a page that commits does
/// not make a survey's answer ask (issue 31: "a survey answer asks because
/// something else on its page would"); the submit that follows does, and a
/// target that itself reads as a commit still asks before.
fn answers_in_place(facts: &Facts<'_>) -> bool {
    match facts.tool {
        mcp::SELECT_OPTION => true,
        mcp::CLICK => facts
            .target
            .is_some_and(|t| ANSWER_ROLES.contains(&t.role.as_str())),
        _ => false,
    }
}

/// Whether the host's dismissal of an overlay presses a button that
/// can neither submit a form nor follow a link (a link to this very page,
/// `#`, stays in place). On a commit page that is the only press the host
/// makes unasked, and the guard stops every post and navigation it might
/// still start from a script.
fn dismisses_in_place(facts: &Facts<'_>) -> bool {
    let Some(dom) = facts.dom else {
        return false;
    };
    let same_page = |href: &str| {
        let strip = |u: &str| u.split('#').next().unwrap_or(u).to_owned();
        strip(href) == strip(&facts.page.url)
    };
    facts.dismissal
        && facts.tool == mcp::CLICK
        && dom.form_action.is_none()
        && dom.href.as_deref().is_none_or(same_page)
}

/// Whether the plan names the target as a step that is not irreversible:
/// the one way a plugin lowers the bar, below neither the strong signs nor
/// the network guard.
fn plan_exempt(facts: &Facts<'_>) -> bool {
    facts
        .target
        .is_some_and(|t| plan::mark(facts.plan, t, facts.dom) == PlanMark::NotIrreversible)
}

/// The guard this action runs under if it runs unapproved. The plan never
/// relaxes it: every state-changing request is held for the person, but
/// for the harmless ones the plugin declares for this action's plan step
/// (never on a page that commits); on a page that commits, top-level
/// navigations to the service are held too. The host's own press on an
/// overlay holds every navigation as well.
fn unapproved_guard(facts: &Facts<'_>) -> GuardMode {
    if facts.dismissal {
        return GuardMode::Guarded {
            hold_navigations: true,
            step: None,
        };
    }
    let commit_page = facts.commit_page.is_some();
    GuardMode::Guarded {
        // An answer on a page that commits proceeds unasked only because
        // it sends nothing: whatever it does send, a navigation included,
        // is held.
        hold_navigations: facts.commit_page.is_some_and(|p| p.final_step)
            || (commit_page && answers_in_place(facts)),
        step: match (commit_page, facts.target) {
            (false, Some(target)) => plan::step_of(facts.plan, target, facts.dom),
            _ => None,
        },
    }
}

/// Whether `name` and `text` say different things. Icons (`×`, `›`) and
/// texts that contain each other agree; a page that labels a button "Go
/// back" while it shows "Finish Cancellation" does not.
pub fn names_disagree(name: &str, text: &str) -> bool {
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let (name, text) = (norm(name), norm(text));
    let letters = text.chars().filter(|c| c.is_alphanumeric()).count();
    !name.is_empty()
        && letters >= MIN_DISAGREEING_TEXT_CHARS
        && !name.contains(&text)
        && !text.contains(&name)
}

/// Roles whose accessible name normally is the text they show. A textbox
/// or a dropdown is named by its label and shows its value: no disagreement.
const NAMED_BY_CONTENT: &[&str] = &[
    "button",
    "link",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
];

/// Shorter visible texts (icons, arrows) never count as disagreeing.
const MIN_DISAGREEING_TEXT_CHARS: usize = 3;

/// A key press or typing with no target: judged by the focused element and
/// the words it carries.
fn carried_needs_yes(facts: &Facts<'_>) -> Option<String> {
    let heads = commit_page::headings(facts.page);
    let mut texts = facts.carried.clone();
    if let Some(dom) = facts.dom {
        texts.push(dom.visible_text.as_str());
    }
    let judged = floor::judge_each(&texts, &facts.page.title, &heads, &facts.page.url);
    judged.target.map(|_| {
        format!(
            "it carries \"{}\", which may commit",
            facts.carried.join("\", \"")
        )
    })
}

fn assess_dialog(facts: &Facts<'_>, dialog: &DialogFacts<'_>) -> Judgement {
    if !dialog.accept || matches!(dialog.kind, "alert" | "beforeunload") {
        return Judgement::Proceed("dismissing a dialog, or one that only informs".into());
    }
    let says = floor::sign_in_text(dialog.message, floor::Place::Target);
    if dialog.opened_by_commit || facts.commit_page.is_some() || says.is_some() {
        return Judgement::Ask(format!(
            "accepting this {} dialog (\"{}\") may complete what the page asked about",
            dialog.kind, dialog.message
        ));
    }
    Judgement::Proceed("a dialog that nothing on the page commits with".into())
}

fn navigation_needs_yes(facts: &Facts<'_>, url: &str) -> Option<String> {
    if floor::sign_in_url(url).is_some() {
        return Some(format!("the address {url} reads as a step that commits"));
    }
    if let Some(pattern) = matching_pattern(facts.commit_urls, url) {
        return Some(format!(
            "{url} is an address the plugin lists as committing ({pattern})"
        ));
    }
    match &facts.plugin {
        PluginAnswer::Ask(_) => return Some(commit_page::PLUGIN_ASKS.into()),
        PluginAnswer::Failed(why) => {
            return Some(format!(
                "the service plugin could not judge it ({why}), so asking to be safe"
            ));
        }
        PluginAnswer::NoObjection | PluginAnswer::NotAsked => {}
    }
    let same = |a: &str, b: &str| a.trim_end_matches('/') == b.trim_end_matches('/');
    let linked = facts
        .page
        .elements
        .iter()
        .filter_map(|e| e.url.as_deref())
        .any(|href| same(href, url) || resolves_to(facts.page.url.as_str(), href, url));
    if linked || same(url, facts.start_url) {
        return None;
    }
    Some(format!(
        "{url} is neither a link on this page nor where the run started"
    ))
}

/// Whether the link `href` on the page at `base` leads to `url`.
fn resolves_to(base: &str, href: &str, url: &str) -> bool {
    let Ok(base) = url::Url::parse(base) else {
        return false;
    };
    match (base.join(href), url::Url::parse(url)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The first of `patterns` that `url` matches (`*` matches any run of
/// characters), ignoring case.
pub fn matching_pattern<'p>(patterns: &'p [String], url: &str) -> Option<&'p str> {
    patterns
        .iter()
        .find(|p| Glob::new(p).matches(url))
        .map(String::as_str)
}

/// The host's own rules, whatever the plugin says: no leaving the service's
/// sites, and no acting on a page outside them.
fn off_limits(facts: &Facts<'_>) -> Option<Decision> {
    let allowed = |origin: &String| {
        facts.allowed_origins.contains(origin) || facts.site.is_some_and(|s| s.covers(origin))
    };
    if let Some(url) = facts.navigate_to {
        return match origin_of(url) {
            Some(origin) if allowed(&origin) => None,
            Some(origin) if facts.site.is_some() && may_ask_for(&origin) => Some(Decision::Ask {
                reason: leaving(facts, &origin),
            }),
            Some(origin) => Some(Decision::Refuse {
                code: RefusalCode::ActionFailed,
                message: format!(
                    "Navigation to {origin} is not allowed for {}. Allowed: {}.",
                    facts.service,
                    facts.allowed_origins.join(", ")
                ),
            }),
            None => Some(Decision::Refuse {
                code: RefusalCode::InvalidParams,
                message: format!("\"{url}\" is not an http(s) URL."),
            }),
        };
    }
    if let Some(refused) = types_a_secret(facts) {
        return Some(refused);
    }
    let outside = origin_of(&facts.page.url).filter(|o| !allowed(o));
    if let Some(origin) = &outside
        && facts.site.is_some()
        && may_ask_for(origin)
        && !facts.read_only
        && !facts.goes_back
    {
        return Some(Decision::Ask {
            reason: leaving(facts, origin),
        });
    }
    (outside.is_some() && !facts.read_only && !facts.goes_back).then(|| Decision::Refuse {
        code: RefusalCode::ActionFailed,
        message: format!(
            "This page ({}) is outside {}'s sites; go back or navigate to an allowed page first.",
            facts.page.url, facts.service
        ),
    })
}

/// Whether a run with no plugin may be let onto `origin` by a yes: https, or
/// plain http on this machine (practice sites); never plain http elsewhere.
fn may_ask_for(origin: &str) -> bool {
    origin.starts_with("https://")
        || url::Url::parse(origin).is_ok_and(|u| {
            u.scheme() == "http" && u.host_str().is_some_and(crate::plugin::bounds::is_loopback)
        })
}

/// Why a run with no plugin asks before it acts on another site: a flow may
/// rightly go on elsewhere, but never silently.
fn leaving(facts: &Facts<'_>, origin: &str) -> String {
    format!(
        "This goes on at {origin}, outside {}, where this run has not been. A cancellation \
         can rightly continue elsewhere (a billing provider such as PayPal's automatic \
         payments, an app store, the company's own account site), but only say yes if you \
         expect this subscription to be managed at {origin}. A yes lets the run act there \
         from now on.",
        facts.service
    )
}

/// The model never types into a password field, checkpoints or not:
/// signing in is the person's own step (the run pauses for it), and a
/// password in a tool call would reach the provider and the run record.
fn types_a_secret(facts: &Facts<'_>) -> Option<Decision> {
    let typing = facts.tool == mcp::TYPE
        || (facts.tool == mcp::PRESS_KEY && facts.carried.iter().any(|k| k.chars().count() == 1));
    let password = facts.dom.and_then(|d| d.input_type.as_deref()) == Some("password")
        || facts
            .target
            .is_some_and(|t| crate::page::mask::is_secret_name(&t.name));
    (typing && password).then(|| Decision::Refuse {
        code: RefusalCode::ActionFailed,
        message: "This is a password field: the model never types into one. Signing in is \
                  the person's own step; if the page needs it, say so with complete_task."
            .into(),
    })
}

#[cfg(test)]
mod tests;
