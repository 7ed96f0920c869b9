//! One tool call, from validation to the result the model gets back.

use std::time::Instant;

use serde_json::{Value, json};

use super::profile::{BrowserAction, Outcome, Refusal, describe};
use super::virtual_tools::{self, COMPLETE_TASK, REQUEST_HUMAN_APPROVAL};
use super::{
    Agent, Event, MAX_AUTH_PAUSES, State, TaskReason, TaskResult, millis, origin_of, schema, timed,
};
use crate::approval::{self, Answer, ApprovalRequest, Decision};
use crate::error::{Error, ErrorClass};
use crate::llm::ToolCall;
use crate::plugin::{self, ToolCallView, Verdict};

/// What a call leaves behind.
pub enum Step {
    /// The tool result for the model; the loop goes on.
    Continue { content: String, is_error: bool },
    /// The run is over.
    End(Box<TaskResult>),
}

fn end(result: TaskResult) -> Step {
    Step::End(Box::new(result))
}

impl Agent<'_> {
    pub(super) async fn step(&mut self, call: &ToolCall, state: &mut State) -> Result<Step, Error> {
        let args = match &call.arguments {
            Ok(args) => args.clone(),
            Err(invalid) => {
                let refusal = Refusal::new(
                    "invalid_params",
                    format!(
                        "Your arguments were not valid JSON ({invalid}). Send one JSON object that matches the tool's schema."
                    ),
                );
                return Ok(self.refuse(&call.name, &refusal, state));
            }
        };
        let specs = match call.name.as_str() {
            COMPLETE_TASK | REQUEST_HUMAN_APPROVAL => virtual_tools::specs(),
            _ => self.profile.tools(),
        };
        let Some(spec) = specs.iter().find(|s| s.name == call.name) else {
            let mut names: Vec<String> = self.profile.tools().into_iter().map(|s| s.name).collect();
            names.extend(virtual_tools::specs().into_iter().map(|s| s.name));
            let refusal = Refusal::new(
                "invalid_params",
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
                "invalid_params",
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
    fn refuse(&mut self, tool: &str, refusal: &Refusal, state: &mut State) -> Step {
        self.reporter.emit(Event::Refused {
            turn: state.turn,
            tool: tool.to_owned(),
            code: refusal.code.to_owned(),
            why: refusal.message.clone(),
        });
        let page = self.profile.observe(&state.snapshot);
        Step::Continue {
            content: self.profile.report(&Outcome::Refused(refusal), &page),
            is_error: true,
        }
    }

    async fn complete_task(&mut self, args: &Value, state: &mut State) -> Result<Step, Error> {
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
        state.snapshot = timed(
            &mut state.timing.browser,
            self.profile.look(self.browser, None),
        )
        .await?;
        let verdict = self.verify(&state.snapshot).await;
        let detail = match &verdict {
            Verdict::Success => String::new(),
            Verdict::Failure(why) => why.clone(),
            Verdict::Unknown => "no sign of success on the page".into(),
        };
        self.reporter.emit(Event::Verification {
            turn: state.turn,
            verified: verdict == Verdict::Success,
            detail: detail.clone(),
        });
        if verdict == Verdict::Success {
            return Ok(end(TaskResult::new(
                true,
                true,
                TaskReason::Completed,
                state.turn,
            )));
        }
        let page = self.profile.observe(&state.snapshot);
        let message = virtual_tools::cannot_verify(&state.snapshot.url, &detail);
        Ok(Step::Continue {
            content: self.profile.unverified(&message, &page),
            is_error: true,
        })
    }

    async fn requested_approval(&mut self, args: &Value, state: &mut State) -> Result<Step, Error> {
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
            reason: text("reason"),
            action: text("action"),
            target: None,
            url: state.snapshot.url.clone(),
            screenshot: self.screenshot(state).await,
        };
        Ok(match self.ask(request, state).await {
            Answer::Approved => Step::Continue {
                content: json!({ "approved": true, "message": null }).to_string(),
                is_error: false,
            },
            Answer::Rejected => end(rejected(state.turn, "the human said no")),
            Answer::Feedback(feedback) => Step::Continue {
                content:
                    json!({ "approved": false, "message": format!("User feedback: {feedback}") })
                        .to_string(),
                is_error: true,
            },
        })
    }

    async fn browser_call(
        &mut self,
        tool: &str,
        args: &Value,
        state: &mut State,
    ) -> Result<Step, Error> {
        let action = match self.profile.translate(tool, args, &state.snapshot) {
            Ok(action) => action,
            Err(refusal) => return Ok(self.refuse(tool, &refusal, state)),
        };
        if let Some(refusal) = self.off_limits(tool, &action, state) {
            return Ok(self.refuse(tool, &refusal, state));
        }
        let target = action.target.as_ref().map(describe);
        if !action.read_only {
            let view = ToolCallView {
                action: tool.to_owned(),
                arguments: args.clone(),
                target: action.target.clone(),
            };
            let snapshot = state.snapshot.clone();
            let plugin_says = plugin::call_blocking(&self.service.plugin, move |p| {
                p.checkpoint(&view, &snapshot)
            })
            .await;
            match approval::decide(self.options.checkpoints, plugin_says) {
                Decision::Proceed { reason } => self.reporter.emit(Event::CheckpointPassed {
                    turn: state.turn,
                    reason,
                }),
                Decision::Ask { reason } => {
                    let request = ApprovalRequest {
                        reason,
                        action: tool.to_owned(),
                        target: target.clone(),
                        url: state.snapshot.url.clone(),
                        screenshot: self.screenshot(state).await,
                    };
                    match self.ask(request, state).await {
                        Answer::Approved => {}
                        Answer::Rejected => {
                            let what = format!("{tool} {}", target.clone().unwrap_or_default());
                            return Ok(end(rejected(
                                state.turn,
                                &format!("the human did not approve {}", what.trim()),
                            )));
                        }
                        Answer::Feedback(feedback) => {
                            let refusal = Refusal::new(
                                "human_rejected",
                                format!("User feedback: {feedback}"),
                            );
                            return Ok(self.refuse(tool, &refusal, state));
                        }
                    }
                }
            }
        }
        self.reporter.emit(Event::ToolCall {
            turn: state.turn,
            tool: tool.to_owned(),
            target,
            arguments: args.clone(),
        });
        self.execute(tool, &action, state).await
    }

    /// The host's own rules, whatever the plugin says: no leaving the
    /// service's sites, and no acting on a page outside them.
    fn off_limits(&self, tool: &str, action: &BrowserAction, state: &State) -> Option<Refusal> {
        if let Some(url) = &action.navigate_to {
            return match origin_of(url) {
                Some(origin) if state.allowed_origins.contains(&origin) => None,
                Some(origin) => Some(Refusal::new(
                    "action_failed",
                    format!(
                        "Navigation to {origin} is not allowed for {}. Allowed: {}.",
                        self.service.metadata.display_name,
                        state.allowed_origins.join(", ")
                    ),
                )),
                None => Some(Refusal::new(
                    "invalid_params",
                    format!("\"{url}\" is not an http(s) URL."),
                )),
            };
        }
        let here = origin_of(&state.snapshot.url);
        let outside = here
            .as_ref()
            .is_some_and(|o| !state.allowed_origins.contains(o));
        (outside && !action.read_only && tool != "browser_navigate_back").then(|| {
            Refusal::new(
                "action_failed",
                format!(
                    "This page ({}) is outside {}'s sites; go back or navigate to an allowed page first.",
                    state.snapshot.url, self.service.metadata.display_name
                ),
            )
        })
    }

    async fn execute(
        &mut self,
        tool: &str,
        action: &BrowserAction,
        state: &mut State,
    ) -> Result<Step, Error> {
        let started = Instant::now();
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
        state.snapshot = timed(
            &mut state.timing.browser,
            self.profile.look(self.browser, output.as_ref()),
        )
        .await?;
        if let Some(ended) = self.watch_auth(state).await? {
            return Ok(end(ended));
        }
        let page = self.profile.observe(&state.snapshot);
        let default_output = crate::browser::ToolOutput::default();
        let report_on = match (&failure, &output) {
            (Some(e), _) => Outcome::Failed(e),
            (None, Some(o)) => Outcome::Done(o),
            (None, None) => Outcome::Done(&default_output),
        };
        let mut content = self.profile.report(&report_on, &page);
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

    /// Shows the request and reads the answer; end of input means no.
    async fn ask(&mut self, request: ApprovalRequest, state: &mut State) -> Answer {
        self.reporter.emit(Event::ApprovalAsked {
            turn: state.turn,
            request: request.clone(),
        });
        self.reporter.prompt_approval(&request);
        let line = timed(&mut state.timing.human, self.console.read_line()).await;
        let answer = Answer::parse(line.as_deref());
        self.reporter.emit(Event::ApprovalAnswered {
            turn: state.turn,
            answer: answer.clone(),
        });
        answer
    }

    /// A screenshot for the human; a failure only costs the picture.
    async fn screenshot(&mut self, state: &mut State) -> Option<std::path::PathBuf> {
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

    /// After every snapshot: a sign-in wall pauses for the human when the
    /// run is interactive, and ends the run with a hint when it is not.
    pub(super) async fn watch_auth(
        &mut self,
        state: &mut State,
    ) -> Result<Option<TaskResult>, Error> {
        loop {
            let snapshot = state.snapshot.clone();
            let event = match plugin::call_blocking(&self.service.plugin, move |p| {
                p.detect_auth(&snapshot)
            })
            .await
            {
                Ok(event) => event,
                Err(e) => {
                    tracing::warn!("{e}; treating the page as signed in");
                    None
                }
            };
            let Some(event) = event else {
                return Ok(None);
            };
            let kind = serde_json::to_value(event.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            self.reporter.emit(Event::AuthRequired {
                turn: state.turn,
                kind,
                message: event.message.clone(),
                url: state.snapshot.url.clone(),
            });
            let hint = format!(
                "Sign in first with `subterminator login {}`, then run this again.",
                self.service.metadata.id
            );
            if !self.options.interactive || state.auth_pauses >= MAX_AUTH_PAUSES {
                return Ok(Some(
                    TaskResult::new(false, false, TaskReason::AuthRequired, state.turn)
                        .with_error(format!("{} {hint}", event.message)),
                ));
            }
            state.auth_pauses += 1;
            self.reporter
                .notice("Do it in the browser window, then press Enter here to continue.");
            let answered = timed(&mut state.timing.human, self.console.read_line()).await;
            if answered.is_none() {
                return Ok(Some(
                    TaskResult::new(false, false, TaskReason::AuthRequired, state.turn)
                        .with_error(format!("{} (no answer) {hint}", event.message)),
                ));
            }
            state.snapshot = timed(
                &mut state.timing.browser,
                self.profile.look(self.browser, None),
            )
            .await?;
        }
    }
}

fn rejected(turn: u32, why: &str) -> TaskResult {
    TaskResult::new(false, false, TaskReason::HumanRejected, turn).with_error(why.to_owned())
}
