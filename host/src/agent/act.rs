//! One browser action: the facts gathered by the host's own calls, the one
//! safety decision, the human's yes bound to this action alone, the action
//! run, and the page looked at again.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Instant;

use serde_json::Value;

use super::profile::{BrowserAction, Outcome, Refusal, describe};
use super::state::{OpenDialog, State, millis, timed};
use super::step::{Step, end, rejected};
use super::{Agent, Event};
use crate::approval::{Answer, ApprovalRequest};
use crate::browser::guard::{self, BlockedRequest, GuardMode};
use crate::browser::{ToolOutput, facts, tools as mcp};
use crate::error::Error;
use crate::exit::ErrorClass;
use crate::page::{ElementFacts, Snapshot, origin_of};
use crate::plugin::{self, ToolCallView};
use crate::safety::commit_page::{self, CommitPage};
use crate::safety::{
    self, Decision, DialogFacts, Facts, PlanKnowledge, PluginAnswer, Policy, RefusalCode,
};

/// How many times one action is put to the human again because its element
/// changed between the question and the answer; then the run ends.
const MAX_REASKS: u32 = 2;

/// What the host learned about an action before deciding.
#[derive(Debug, Default)]
struct Gathered {
    /// The target's (or the focused element's) facts from the DOM.
    dom: Option<ElementFacts>,
    /// Words the action carries: text typed, options, the key.
    carried: Vec<String>,
    plugin: Option<PluginAnswer>,
    commit_page: Option<CommitPage>,
}

impl Agent<'_> {
    pub(super) async fn browser_call(
        &mut self,
        tool: &str,
        args: &Value,
        state: &mut State,
    ) -> Result<Step, Error> {
        let action = match self.profile.translate(tool, args, &state.snapshot) {
            Ok(action) => action,
            Err(refusal) => return Ok(self.refuse(tool, &refusal, state)),
        };
        let runs = action.mcp_tool.clone().unwrap_or_else(|| tool.to_owned());
        if let Some(refusal) = dialog_refusal(&runs, &action, state) {
            return Ok(self.refuse(tool, &refusal, state));
        }
        let judging = Instant::now();
        let gathered = self.gather(tool, args, &runs, &action, state).await?;
        let mut decision = self.decide(&runs, &action, &gathered, state);
        state.timing.safety += judging.elapsed();
        let target = action.target.as_ref().map(describe);
        let mut approved = false;
        let mut reasks = 0;
        loop {
            match decision {
                Decision::Refuse { code, message } => {
                    return Ok(self.refuse(tool, &Refusal::new(code, message), state));
                }
                Decision::Proceed { .. } if action.read_only => {}
                Decision::Proceed { reason } => self.reporter.emit(Event::CheckpointPassed {
                    turn: state.turn,
                    reason,
                }),
                Decision::Ask { reason } => {
                    let request = ApprovalRequest {
                        reason,
                        action: runs.clone(),
                        target: target.clone(),
                        shows: gathered.dom.as_ref().map(|d| d.visible_text.clone()),
                        details: details(&runs, &action, &gathered),
                        url: state.snapshot.url.clone(),
                        screenshot: self.screenshot(state).await,
                    };
                    match self.ask(request, state).await {
                        Answer::Approved => {}
                        Answer::Rejected => {
                            let what = format!("{runs} {}", target.clone().unwrap_or_default());
                            return Ok(end(rejected(
                                state.turn,
                                &format!("the human did not approve {}", what.trim()),
                            )));
                        }
                        Answer::Feedback(feedback) => {
                            let refusal = Refusal::new(
                                RefusalCode::HumanRejected,
                                format!("User feedback: {feedback}"),
                            );
                            return Ok(self.refuse(tool, &refusal, state));
                        }
                    }
                    // The yes was given to what the human saw: if the page
                    // changed the element since, it is asked about again.
                    if let Some(changed) = self.changed_since(&action, &gathered, state).await? {
                        reasks += 1;
                        if reasks > MAX_REASKS {
                            return Ok(end(rejected(
                                state.turn,
                                "the element kept changing after each approval",
                            )));
                        }
                        decision = Decision::Ask {
                            reason: format!(
                                "the element changed after you were asked ({changed}); asking again"
                            ),
                        };
                        continue;
                    }
                    approved = true;
                }
            }
            break;
        }
        self.reporter.emit(Event::ToolCall {
            turn: state.turn,
            tool: runs.clone(),
            target,
            arguments: action.mcp_args.clone(),
        });
        let exempt = action.target.as_ref().is_some_and(|t| {
            safety::plan::mark(self.plan_knowledge(), t, gathered.dom.as_ref())
                == safety::PlanMark::NotIrreversible
        });
        let mode = if approved {
            GuardMode::Open
        } else {
            GuardMode::Guarded {
                block_posts: !exempt,
                block_navigations: gathered.commit_page.is_some() && !exempt,
            }
        };
        self.execute(tool, &action, mode, &gathered, state).await
    }

    /// The one safety decision, from the facts gathered.
    fn decide(
        &self,
        runs: &str,
        action: &BrowserAction,
        gathered: &Gathered,
        state: &State,
    ) -> Decision {
        let plan = self.plan_knowledge();
        let dialog = state.dialog.as_ref().and_then(|open| {
            (runs == mcp::HANDLE_DIALOG).then(|| DialogFacts {
                accept: action.mcp_args.get("accept").and_then(Value::as_bool) == Some(true),
                kind: &open.dialog.kind,
                message: &open.dialog.message,
                opened_by_commit: open.opened_by_commit,
            })
        });
        let facts = Facts {
            tool: runs,
            read_only: action.read_only,
            target: action.target.as_ref(),
            dom: gathered.dom.as_ref(),
            carried: gathered.carried.iter().map(String::as_str).collect(),
            navigate_to: action.navigate_to.as_deref(),
            goes_back: runs == mcp::NAVIGATE_BACK,
            dialog,
            page: &state.snapshot,
            allowed_origins: &state.allowed_origins,
            start_url: &self.options.start_url,
            service: &self.service.metadata.display_name,
            plan,
            commit_urls: &self.service.metadata.commit_url_patterns,
            plugin: gathered.plugin.clone().unwrap_or(PluginAnswer::NotAsked),
            commit_page: gathered.commit_page.as_ref(),
        };
        safety::assess(
            &facts,
            Policy {
                checkpoints: self.options.checkpoints,
            },
        )
    }

    /// What the plugin's plan may tell the host: nothing, for API 0.1.0.
    pub(super) fn plan_knowledge(&self) -> PlanKnowledge<'_> {
        if self.service.api_version == crate::plugin::ApiVersion::V0_1_0.as_str() {
            PlanKnowledge::None
        } else {
            PlanKnowledge::Marked(&self.service.plan)
        }
    }

    /// Reads the facts a state-changing action is judged on, with the
    /// host's own calls. A read-only action costs nothing here.
    async fn gather(
        &mut self,
        tool: &str,
        args: &Value,
        runs: &str,
        action: &BrowserAction,
        state: &mut State,
    ) -> Result<Gathered, Error> {
        if action.read_only || !self.options.checkpoints {
            return Ok(Gathered::default());
        }
        let dom = self.dom_facts(runs, action, state).await?;
        let view = ToolCallView {
            action: tool.to_owned(),
            arguments: args.clone(),
            target: action.target.clone(),
            facts: dom.clone(),
        };
        let plugin = self.checkpoint(view, state).await;
        let commit_page = self.commit_page(state).await;
        Ok(Gathered {
            carried: carried(&action.mcp_args),
            dom,
            plugin: Some(plugin),
            commit_page,
        })
    }

    /// The target's facts, or the focused element's for a key press. A
    /// failure to read them is a fact too (`None`), and `assess` asks.
    async fn dom_facts(
        &mut self,
        runs: &str,
        action: &BrowserAction,
        state: &mut State,
    ) -> Result<Option<ElementFacts>, Error> {
        let read = match &action.target {
            Some(target) => match &target.reference {
                Some(reference) => {
                    let description = describe(target);
                    timed(
                        &mut state.timing.browser,
                        facts::of_element(self.browser, reference, &description),
                    )
                    .await
                    .map(Some)
                }
                None => Ok(None),
            },
            None if runs == mcp::PRESS_KEY => {
                timed(&mut state.timing.browser, facts::of_focused(self.browser)).await
            }
            None => Ok(None),
        };
        match read {
            Ok(facts) => Ok(facts),
            Err(e) if e.class() == ErrorClass::Failure => {
                tracing::debug!("cannot read the element's facts: {e}");
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The plugin's word on one call; a failure is a fact too.
    async fn checkpoint(&self, view: ToolCallView, state: &State) -> PluginAnswer {
        let snapshot = state.snapshot.clone();
        let said = plugin::call_blocking(&self.service.plugin, move |p| {
            p.checkpoint(&view, &snapshot)
        })
        .await;
        self.plugin_answer(said)
    }

    /// A plugin's reason is shown as the plugin's words, apart from the
    /// host's own: a plugin cannot pose as the host.
    fn plugin_answer(
        &self,
        said: Result<Option<String>, crate::plugin::PluginError>,
    ) -> PluginAnswer {
        match said {
            Ok(Some(reason)) => PluginAnswer::Ask(format!(
                "{} plugin says: {reason}",
                self.service.metadata.display_name
            )),
            Ok(None) => PluginAnswer::NoObjection,
            Err(e) => PluginAnswer::Failed(e.to_string()),
        }
    }

    /// Whether the page is a commit page: every actionable element put to
    /// the floor and to the plugin, once per page.
    pub(super) async fn commit_page(&mut self, state: &mut State) -> Option<CommitPage> {
        let print = fingerprint(&state.snapshot);
        if let Some((seen, verdict)) = &state.commit_page
            && *seen == print
        {
            return verdict.clone();
        }
        let snapshot = state.snapshot.clone();
        let views: Vec<(usize, ToolCallView)> = snapshot
            .elements
            .iter()
            .enumerate()
            .filter(|(_, e)| commit_page::is_actionable(e))
            .map(|(i, e)| {
                let action = if e.role == "combobox" || e.role == "listbox" {
                    mcp::SELECT_OPTION
                } else {
                    mcp::CLICK
                };
                let view = ToolCallView {
                    action: action.to_owned(),
                    arguments: Value::Object(serde_json::Map::new()),
                    target: Some(e.clone()),
                    facts: None,
                };
                (i, view)
            })
            .collect();
        let count = snapshot.elements.len();
        let page = snapshot.clone();
        let answers = plugin::call_blocking(&self.service.plugin, move |p| {
            Ok(views
                .into_iter()
                .map(|(i, view)| (i, p.checkpoint(&view, &page)))
                .collect::<Vec<_>>())
        })
        .await;
        let mut by_element = vec![PluginAnswer::NotAsked; count];
        match answers {
            Ok(answers) => {
                for (i, said) in answers {
                    if let Some(slot) = by_element.get_mut(i) {
                        *slot = self.plugin_answer(said);
                    }
                }
            }
            Err(e) => by_element.fill(PluginAnswer::Failed(e.to_string())),
        }
        let verdict = commit_page::commit_page(&snapshot, self.plan_knowledge(), &by_element);
        state.commit_page = Some((print, verdict.clone()));
        verdict
    }

    /// Why the element no longer is what the human approved, if it is not.
    async fn changed_since(
        &mut self,
        action: &BrowserAction,
        gathered: &Gathered,
        state: &mut State,
    ) -> Result<Option<String>, Error> {
        let (Some(before), Some(target)) = (&gathered.dom, &action.target) else {
            return Ok(None);
        };
        let Some(reference) = &target.reference else {
            return Ok(None);
        };
        let description = describe(target);
        let now = timed(
            &mut state.timing.browser,
            facts::of_element(self.browser, reference, &description),
        )
        .await;
        let now = match now {
            Ok(now) => now,
            Err(e) if e.class() == ErrorClass::Failure => {
                return Ok(Some(format!("it can no longer be read: {e}")));
            }
            Err(e) => return Err(e.into()),
        };
        Ok(facts_changed(before, &now))
    }

    async fn execute(
        &mut self,
        tool: &str,
        action: &BrowserAction,
        mode: GuardMode,
        gathered: &Gathered,
        state: &mut State,
    ) -> Result<Step, Error> {
        let started = Instant::now();
        let runs = action.mcp_tool.clone().unwrap_or_else(|| tool.to_owned());
        let changes = !action.read_only && action.mcp_tool.is_some();
        // While a dialog is open the server runs nothing but the answer to
        // it, the guard's calls included: the guard stays as the action that
        // opened the dialog left it (open, when that action was approved).
        let answers_dialog = runs == mcp::HANDLE_DIALOG;
        let mut mode = mode;
        let mut guard_note = None;
        let (output, failure) = loop {
            if changes
                && !answers_dialog
                && let Err(why) = self.set_guard(mode, state).await?
            {
                let refusal = Refusal::new(RefusalCode::ActionFailed, why);
                return Ok(self.refuse(tool, &refusal, state));
            }
            self.reporter.busy("Working in the browser…");
            let outcome = match &action.mcp_tool {
                Some(mcp_tool) => Some(
                    timed(
                        &mut state.timing.browser,
                        self.browser.call(mcp_tool, action.mcp_args.clone()),
                    )
                    .await,
                ),
                None => None,
            };
            let (output, failure) = match outcome {
                Some(Ok(output)) => (Some(output), None),
                Some(Err(e)) if e.class() == ErrorClass::Failure => (None, Some(e)),
                Some(Err(e)) => return Err(e.into()),
                None => (None, None),
            };
            let dialog_opened = output.as_ref().is_some_and(|o| !o.dialogs.is_empty());
            if mode == GuardMode::Open {
                if changes && failure.is_none() {
                    state.approved_commit = true;
                }
                // Re-armed at once, so that a page's timer cannot post later
                // under this one action's yes; after the dialog it opened,
                // when it opened one.
                if !dialog_opened
                    && let Err(why) = self.set_guard(guard::INITIAL_MODE, state).await?
                {
                    tracing::warn!("{why}");
                }
                break (output, failure);
            }
            if dialog_opened {
                // Nothing can be asked of the guard until the dialog is
                // answered; the answer's own turn takes what it stopped.
                break (output, failure);
            }
            let blocked = if changes {
                self.take_blocked(state).await?
            } else {
                Vec::new()
            };
            if blocked.is_empty() {
                break (output, failure);
            }
            self.reporter.emit(Event::GuardBlocked {
                turn: state.turn,
                requests: blocked.clone(),
            });
            let request = ApprovalRequest {
                reason: format!(
                    "the browser stopped {} this action sent without your yes; nothing reached the site. Approve to run the action again and let it through",
                    describe_blocked(&blocked)
                ),
                action: runs.clone(),
                target: action.target.as_ref().map(describe),
                shows: gathered.dom.as_ref().map(|d| d.visible_text.clone()),
                details: details(&runs, action, gathered),
                url: state.snapshot.url.clone(),
                screenshot: self.screenshot(state).await,
            };
            match self.ask(request, state).await {
                Answer::Approved => mode = GuardMode::Open,
                Answer::Rejected => {
                    return Ok(end(rejected(
                        state.turn,
                        &format!("the human did not approve {}", describe_blocked(&blocked)),
                    )));
                }
                Answer::Feedback(feedback) => {
                    guard_note = Some(format!(
                        "The browser stopped {} that this action sent without the human's approval; nothing was sent. User feedback: {feedback}",
                        describe_blocked(&blocked)
                    ));
                    break (output, failure);
                }
            }
        };
        if action.mcp_tool.as_deref() == Some(mcp::HANDLE_DIALOG) && failure.is_none() {
            state.dialog = None;
        }
        let dialog = self
            .settle_dialogs(output.as_ref(), mode == GuardMode::Open, state)
            .await?;
        if dialog.is_none() {
            state.snapshot = timed(
                &mut state.timing.browser,
                self.profile.look(self.browser, output.as_ref()),
            )
            .await?;
            if let Some(ended) = self.watch_auth(state).await? {
                return Ok(end(ended));
            }
        }
        let page = self.profile.observe(&state.snapshot);
        let default_output = ToolOutput::default();
        let report_on = match (&failure, &output) {
            (Some(e), _) => Outcome::Failed(e),
            (None, Some(o)) => Outcome::Done(o),
            (None, None) => Outcome::Done(&default_output),
        };
        let mut content = self.profile.report(&report_on, &page);
        if let Some(note) = guard_note {
            content.push_str(&format!("\n{note}"));
        }
        if let Some(open) = &dialog {
            content.push_str(&format!(
                "\nA {} dialog is open: \"{}\". Nothing else works until it is answered: \
                 call browser_handle_dialog with accept true or false.",
                open.dialog.kind, open.dialog.message
            ));
        }
        if let Some(origin) = origin_of(&state.snapshot.url)
            && !state.allowed_origins.contains(&origin)
        {
            content.push_str(&format!(
                "\nNote: this page is outside {}'s sites ({origin}). Go back.",
                self.service.metadata.display_name
            ));
        }
        self.reporter.emit(Event::ToolResult {
            turn: state.turn,
            tool: tool.to_owned(),
            ok: failure.is_none(),
            error: failure.as_ref().map(ToString::to_string),
            url: state.snapshot.url.clone(),
            elapsed_ms: millis(started),
            page: Some(page),
        });
        Ok(Step::Continue {
            content,
            is_error: failure.is_some(),
        })
    }

    /// Dialogs an action left open. An alert only informs and a
    /// `beforeunload` only asks to leave: the host answers both itself, so
    /// neither stalls a run. A confirm or prompt is page state the model sees
    /// and answers, through the same decision as any action.
    async fn settle_dialogs(
        &mut self,
        output: Option<&ToolOutput>,
        approved: bool,
        state: &mut State,
    ) -> Result<Option<OpenDialog>, Error> {
        let Some(output) = output else {
            return Ok(state.dialog.clone());
        };
        let mut dialogs = output.dialogs.clone();
        for _ in 0..MAX_AUTO_DIALOGS {
            let Some(first) = dialogs.first().cloned() else {
                state.dialog = None;
                return Ok(None);
            };
            if !matches!(first.kind.as_str(), "alert" | "beforeunload") {
                let open = OpenDialog {
                    dialog: first,
                    opened_by_commit: approved,
                };
                state.dialog = Some(open.clone());
                return Ok(Some(open));
            }
            self.reporter.emit(Event::DialogAnswered {
                turn: state.turn,
                kind: first.kind.clone(),
                message: first.message.clone(),
                accepted: true,
            });
            let answered = timed(
                &mut state.timing.browser,
                self.browser
                    .call(mcp::HANDLE_DIALOG, serde_json::json!({ "accept": true })),
            )
            .await?;
            dialogs = answered.dialogs;
        }
        Ok(None)
    }
}

impl Agent<'_> {
    /// Puts `mode` in force before an action. `Ok(Err(why))` when it could
    /// not be: the action must not run unguarded.
    async fn set_guard(
        &mut self,
        mode: GuardMode,
        state: &mut State,
    ) -> Result<Result<(), String>, Error> {
        let Some(guard) = &state.guard else {
            return Ok(Ok(()));
        };
        let started = Instant::now();
        let set = timed(
            &mut state.timing.browser,
            guard.set_mode(self.browser, mode),
        )
        .await;
        state.timing.safety += started.elapsed();
        match set {
            Ok(()) => Ok(Ok(())),
            Err(e) if e.class() == ErrorClass::Failure => Ok(Err(format!(
                "The network guard could not be set ({e}); nothing was done. Try the action again."
            ))),
            Err(e) => Err(e.into()),
        }
    }

    /// What the guard stopped during the action just run. A guard that
    /// cannot say counts as having stopped something unknown: the human is
    /// asked rather than the run going on as if nothing happened.
    async fn take_blocked(&mut self, state: &mut State) -> Result<Vec<BlockedRequest>, Error> {
        let Some(guard) = &state.guard else {
            return Ok(Vec::new());
        };
        let started = Instant::now();
        let taken = timed(&mut state.timing.browser, guard.take_blocked(self.browser)).await;
        state.timing.safety += started.elapsed();
        match taken {
            Ok(blocked) => Ok(blocked),
            Err(e) if e.class() == ErrorClass::Failure => Ok(vec![BlockedRequest {
                method: "?".into(),
                url: state.snapshot.url.clone(),
                why: format!("requests the guard could not report ({e})"),
                navigation: false,
            }]),
            Err(e) => Err(e.into()),
        }
    }
}

/// The stopped requests in words, for the person.
fn describe_blocked(blocked: &[BlockedRequest]) -> String {
    let parts: Vec<String> = blocked
        .iter()
        .take(MAX_BLOCKED_SHOWN)
        .map(|b| format!("{} ({} {})", b.why, b.method, b.url))
        .collect();
    let more = blocked.len().saturating_sub(MAX_BLOCKED_SHOWN);
    if more > 0 {
        format!("{} and {more} more", parts.join(", "))
    } else {
        parts.join(", ")
    }
}

/// Stopped requests named in a prompt; the rest are counted.
const MAX_BLOCKED_SHOWN: usize = 3;

/// How many alerts in a row the host answers by itself before it lets the
/// next look fail: a page that opens alerts forever must not hold the run.
const MAX_AUTO_DIALOGS: usize = 5;

/// While a dialog is open, nothing but answering it works; with none open,
/// there is nothing to answer.
fn dialog_refusal(runs: &str, action: &BrowserAction, state: &State) -> Option<Refusal> {
    match (&state.dialog, runs == mcp::HANDLE_DIALOG) {
        (Some(open), false) if !action.read_only || action.mcp_tool.is_some() => {
            Some(Refusal::new(
                RefusalCode::ActionFailed,
                format!(
                    "A {} dialog is open (\"{}\"). Answer it first: browser_handle_dialog with accept true or false.",
                    open.dialog.kind, open.dialog.message
                ),
            ))
        }
        (None, true) => Some(Refusal::new(
            RefusalCode::ActionFailed,
            "No dialog is open.",
        )),
        _ => None,
    }
}

/// The words an action carries, from its Playwright arguments.
fn carried(args: &Value) -> Vec<String> {
    let mut words = Vec::new();
    for key in ["text", "key", "promptText"] {
        if let Some(text) = args.get(key).and_then(Value::as_str) {
            words.push(text.to_owned());
        }
    }
    if let Some(values) = args.get("values").and_then(Value::as_array) {
        words.extend(values.iter().filter_map(Value::as_str).map(str::to_owned));
    }
    if args.get("submit").and_then(Value::as_bool) == Some(true) {
        words.push("Enter".to_owned());
    }
    words
}

/// The action's arguments in words, for the approval prompt.
fn details(runs: &str, action: &BrowserAction, gathered: &Gathered) -> Option<String> {
    let args = &action.mcp_args;
    let mut parts = Vec::new();
    if let Some(text) = args.get("text").and_then(Value::as_str) {
        parts.push(format!("text \"{text}\""));
    }
    if args.get("submit").and_then(Value::as_bool) == Some(true) {
        parts.push("then Enter (submits)".to_owned());
    }
    if let Some(key) = args.get("key").and_then(Value::as_str) {
        parts.push(format!("key \"{key}\""));
    }
    if let Some(values) = args.get("values").and_then(Value::as_array) {
        let values: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
        parts.push(format!("option \"{}\"", values.join("\", \"")));
    }
    if let Some(url) = &action.navigate_to {
        parts.push(format!("destination {url}"));
    }
    if runs == mcp::HANDLE_DIALOG {
        let accept = args.get("accept").and_then(Value::as_bool) == Some(true);
        parts.push(if accept { "accept" } else { "dismiss" }.to_owned());
    }
    if let Some(dom) = &gathered.dom {
        if let Some(action) = &dom.form_action {
            let method = dom.form_method.as_deref().unwrap_or("get").to_uppercase();
            parts.push(format!("submits a form: {method} {action}"));
        } else if let Some(href) = &dom.href {
            parts.push(format!("leads to {href}"));
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// What changed between two readings of an element, if anything a person
/// would care about did.
fn facts_changed(before: &ElementFacts, now: &ElementFacts) -> Option<String> {
    if before.visible_text != now.visible_text {
        return Some(format!(
            "it showed \"{}\", now \"{}\"",
            before.visible_text, now.visible_text
        ));
    }
    if before.href != now.href {
        return Some("the link now leads elsewhere".into());
    }
    if before.form_action != now.form_action || before.form_method != now.form_method {
        return Some("its form now submits elsewhere".into());
    }
    None
}

/// Identifies a page's state: the same address and tree mean the same
/// commit-page verdict.
fn fingerprint(snapshot: &Snapshot) -> u64 {
    let mut hasher = DefaultHasher::new();
    snapshot.url.hash(&mut hasher);
    snapshot.title.hash(&mut hasher);
    snapshot.content.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use serde_json::json;

    #[test]
    fn carried_words_table() {
        let cases = [
            (
                json!({"text": "hello", "submit": true}),
                vec!["hello", "Enter"],
            ),
            (json!({"key": "Enter"}), vec!["Enter"]),
            (
                json!({"values": ["Yes, cancel", "x"]}),
                vec!["Yes, cancel", "x"],
            ),
            (json!({"target": "e1"}), vec![]),
        ];
        for (args, want) in cases {
            assert_eq!(carried(&args), want, "{args}");
        }
    }

    #[test]
    fn changes_that_matter() {
        let before = ElementFacts {
            visible_text: "Keep membership".into(),
            tag: "button".into(),
            form_action: Some("https://x/keep".into()),
            form_method: Some("post".into()),
            ..ElementFacts::default()
        };
        assert_eq!(facts_changed(&before, &before.clone()), None);
        let reworded = ElementFacts {
            visible_text: "Finish Cancellation".into(),
            ..before.clone()
        };
        assert!(facts_changed(&before, &reworded).is_some());
        let moved = ElementFacts {
            form_action: Some("https://x/cancel".into()),
            ..before.clone()
        };
        assert!(facts_changed(&before, &moved).is_some());
    }
}
