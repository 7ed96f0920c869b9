//! One tool call, from validation to the result the model gets back.

use serde_json::{Value, json};

use super::state::{State, timed};
use super::toolset::{Outcome, Refusal};
use super::virtual_tools::{self, COMPLETE_TASK, REQUEST_HUMAN_APPROVAL};
use super::{Agent, Event, TaskReason, TaskResult, schema};
use crate::approval::{Answer, ApprovalRequest, Approver, Said};
use crate::error::Error;
use crate::llm::ToolCall;
use crate::plugin::Verdict;
use crate::safety::{self, RefusalCode, Verification};

/// What a turn leaves behind.
pub enum Turn {
    /// The tool result for the model; the loop goes on.
    Continue { content: String, is_error: bool },
    /// The run is over.
    End(Box<TaskResult>),
}

pub(super) fn end(result: TaskResult) -> Turn {
    Turn::End(Box::new(result))
}

/// Success claims refused in a row before the run ends as not verified,
/// instead of spending its remaining turns.
pub const MAX_REFUSED_CLAIMS: u32 = 3;

/// How much of the page a "not verified" ending quotes, in characters.
const QUOTE_CHARS: usize = 300;

impl Agent<'_> {
    /// The host's verification of the page as it is now: the plugin's
    /// verdict, the visible words, the run's approvals, and whether the page
    /// still offers a step that needs a yes.
    pub(super) async fn verification(&mut self, state: &mut State) -> Verification {
        let verdict = self.verify(&state.snapshot).await;
        self.judge(verdict, state)
    }

    /// [`Self::verification`] with the plugin's verdict already in hand.
    pub(super) fn judge(&self, verdict: Verdict, state: &State) -> Verification {
        let still = safety::commit_page::final_step_offered(&state.snapshot, self.plan_knowledge());
        let visible = safety::success::visible_text(&state.snapshot.content);
        safety::judge_success(&verdict, &visible, state.approved_commit, still.as_ref())
    }

    pub(super) async fn step(&mut self, call: &ToolCall, state: &mut State) -> Result<Turn, Error> {
        let args = match &call.arguments {
            Ok(args) => args.clone(),
            Err(invalid) => {
                let refusal = Refusal::new(
                    RefusalCode::InvalidParams,
                    format!(
                        "Your arguments were not valid JSON ({invalid}). Send one JSON object that matches the tool's schema."
                    ),
                );
                return Ok(self.refuse(&call.name, &refusal, state));
            }
        };
        let specs = match call.name.as_str() {
            COMPLETE_TASK | REQUEST_HUMAN_APPROVAL => virtual_tools::specs(),
            _ => self.toolset.tools(),
        };
        let Some(spec) = specs.iter().find(|s| s.name == call.name) else {
            let mut names: Vec<String> = self.toolset.tools().into_iter().map(|s| s.name).collect();
            names.extend(virtual_tools::specs().into_iter().map(|s| s.name));
            let refusal = Refusal::new(
                RefusalCode::InvalidParams,
                format!(
                    "There is no tool called {}. The tools are: {}.",
                    call.name,
                    names.join(", ")
                ),
            );
            return Ok(self.refuse(&call.name, &refusal, state));
        };
        if let Err(problems) = schema::validate(&args, &spec.input_schema) {
            let refusal = Refusal::new(
                RefusalCode::InvalidParams,
                format!(
                    "Invalid arguments for {}: {}. Nothing was done; call it again with valid arguments.",
                    call.name,
                    problems.join("; ")
                ),
            );
            return Ok(self.refuse(&call.name, &refusal, state));
        }
        match call.name.as_str() {
            COMPLETE_TASK => self.complete_task(&args, state).await,
            REQUEST_HUMAN_APPROVAL => self.requested_approval(&args, state).await,
            tool => self.browser_call(tool, &args, state).await,
        }
    }

    /// Refused before the browser: the model hears why, with the page as it is.
    pub(super) fn refuse(&mut self, tool: &str, refusal: &Refusal, state: &mut State) -> Turn {
        self.reporter.emit(Event::Refused {
            turn: state.turn,
            tool: tool.to_owned(),
            code: refusal.code.as_str().to_owned(),
            why: refusal.message.clone(),
        });
        let page = self.toolset.observe(&state.snapshot);
        Turn::Continue {
            content: self.toolset.report(&Outcome::Refused(refusal), &page),
            is_error: true,
        }
    }

    async fn complete_task(&mut self, args: &Value, state: &mut State) -> Result<Turn, Error> {
        let status = args
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let reason = args
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        self.reporter.emit(Event::ToolCall {
            turn: state.turn,
            tool: COMPLETE_TASK.into(),
            target: None,
            arguments: args.clone(),
        });
        if status == "failed" {
            // The model's judgement that the goal cannot be reached is trusted.
            return Ok(end(TaskResult::new(
                false,
                true,
                TaskReason::Completed,
                state.turn,
            )
            .with_error(reason)));
        }
        let verification = match &state.dialog {
            Some(open) => Verification::NotVerified(format!(
                "a {} dialog is still open (\"{}\")",
                open.dialog.kind, open.dialog.message
            )),
            None => {
                state.snapshot = timed(
                    &mut state.timing.browser,
                    self.toolset.look(self.browser, None),
                )
                .await?;
                self.mask_passwords(state).await;
                self.verification(state).await
            }
        };
        let detail = match &verification {
            Verification::Verified => String::new(),
            Verification::AlreadyCancelled => "it was already cancelled before this run".into(),
            Verification::NotVerified(why) => why.clone(),
        };
        self.reporter.emit(Event::Verification {
            turn: state.turn,
            verified: verification != Verification::NotVerified(detail.clone()),
            detail: detail.clone(),
        });
        match verification {
            Verification::Verified => {
                return Ok(end(TaskResult::new(
                    true,
                    true,
                    TaskReason::Completed,
                    state.turn,
                )));
            }
            Verification::AlreadyCancelled => {
                return Ok(end(TaskResult::new(
                    true,
                    true,
                    TaskReason::AlreadyCancelled,
                    state.turn,
                )
                .with_error(
                    "nothing was cancelled by this run: the page shows it was already cancelled",
                )));
            }
            Verification::NotVerified(_) => {}
        }
        state.refused_claims += 1;
        if state.refused_claims >= MAX_REFUSED_CLAIMS {
            let says = crate::text::truncate(
                &safety::success::visible_text(&state.snapshot.content),
                QUOTE_CHARS,
                crate::text::ELLIPSIS,
            )
            .into_owned();
            return Ok(end(TaskResult::new(
                false,
                false,
                TaskReason::VerificationFailed,
                state.turn,
            )
            .with_error(format!(
                "not verified after {MAX_REFUSED_CLAIMS} success claims ({detail}); the page says: \"{says}\""
            ))));
        }
        let page = self.toolset.observe(&state.snapshot);
        let message = virtual_tools::cannot_verify(&state.snapshot.url, &detail);
        Ok(Turn::Continue {
            content: self.toolset.unverified(&message, &page),
            is_error: true,
        })
    }

    async fn requested_approval(&mut self, args: &Value, state: &mut State) -> Result<Turn, Error> {
        let text = |k: &str| {
            args.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        self.reporter.emit(Event::ToolCall {
            turn: state.turn,
            tool: REQUEST_HUMAN_APPROVAL.into(),
            target: None,
            arguments: args.clone(),
        });
        let request = ApprovalRequest {
            reason: "the model asks for your approval".into(),
            said: Some(Said {
                who: "The model".into(),
                words: text("reason"),
            }),
            action: text("action"),
            target: None,
            url: state.snapshot.url.clone(),
            screenshot: self.screenshot(state).await,
            ..ApprovalRequest::default()
        };
        Ok(match self.ask(request, state).await {
            Answer::Approved => Turn::Continue {
                content: json!({ "approved": true, "message": null }).to_string(),
                is_error: false,
            },
            Answer::Rejected => end(rejected(state.turn, "the human said no")),
            Answer::Unavailable(why) => end(rejected(state.turn, &unavailable(&why))),
            Answer::Feedback(feedback) => Turn::Continue {
                content:
                    json!({ "approved": false, "message": format!("User feedback: {feedback}") })
                        .to_string(),
                is_error: true,
            },
        })
    }

    /// Shows the request and reads the answer; end of input means no.
    pub(super) async fn ask(&mut self, request: ApprovalRequest, state: &mut State) -> Answer {
        self.reporter.emit(Event::ApprovalAsked {
            turn: state.turn,
            request: request.clone(),
        });
        let answer = match &mut *self.approver {
            Approver::Console(console) => {
                self.reporter.prompt_approval(&request);
                let line = timed(&mut state.timing.human, console.read_answer()).await;
                Answer::parse(line.as_deref())
            }
            Approver::Queue(queue) => timed(&mut state.timing.human, queue.ask(request)).await,
        };
        self.reporter.emit(Event::ApprovalAnswered {
            turn: state.turn,
            answer: answer.clone(),
        });
        answer
    }

    /// A screenshot for the human; a failure only costs the picture.
    pub(super) async fn screenshot(&mut self, state: &mut State) -> Option<std::path::PathBuf> {
        let path = self.reporter.record()?.next_screenshot();
        let taken = timed(&mut state.timing.browser, self.browser.screenshot(&path)).await;
        match taken {
            Ok(path) => Some(path),
            Err(e) => {
                tracing::warn!("no screenshot for the approval: {e}");
                None
            }
        }
    }
}

/// Why a run ended when nobody could be asked.
pub(super) fn unavailable(why: &str) -> String {
    format!("nobody could approve it: {why}; nothing that needs a yes was done")
}

pub(super) fn rejected(turn: u32, why: &str) -> TaskResult {
    TaskResult::new(false, false, TaskReason::HumanRejected, turn).with_error(why.to_owned())
}
