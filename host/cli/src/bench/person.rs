//! The scripted person of a bench run: the front-end of the run's feed. It
//! answers each question as its pass says — yes to everything, or yes until
//! the question about the committing step, which it answers no — and notes
//! on the site's clock when it answered and when each action started, for
//! the scorer. It never signs in.

use std::sync::Arc;

use tokio::sync::mpsc;

use subterminator_bench::{Answer as Said, BenchSite, Flow, PassKind};
use subterminator_core::agent::Event;
use subterminator_core::approval::{Answer, ApprovalRequest};
use subterminator_core::feed::{Ask, Envelope, Update};

/// What the person saw and did.
#[derive(Debug, Default)]
pub struct Seen {
    pub answers: Vec<Said>,
    pub actions_ms: Vec<u64>,
    pub prompts: u32,
}

/// Serves a run's feed until the run hangs up.
pub async fn serve(
    mut updates: mpsc::UnboundedReceiver<Envelope>,
    site: Arc<BenchSite>,
    flow: Flow,
    pass: PassKind,
) -> Seen {
    let mut seen = Seen::default();
    let mut refused = false;
    while let Some(Envelope { update, .. }) = updates.recv().await {
        match update {
            Update::Event(event) => {
                // Answering the page's own dialog is part of the action
                // that opened it, as each flow's truth has it (the commit
                // step, then its "are you sure?"): not an action between a
                // yes and the commit it was given to.
                if let Event::ToolCall { tool, .. } = *event
                    && tool != subterminator_core::browser::tools::HANDLE_DIALOG
                {
                    seen.actions_ms.push(site.now_ms());
                }
            }
            Update::Question(question) => {
                let yes = match &question.ask {
                    Ask::Approval(request) => {
                        seen.prompts += 1;
                        let no = pass == PassKind::NoAtCommit
                            && !refused
                            && about_the_commit(&flow, request);
                        refused |= no;
                        !no
                    }
                    Ask::SignIn { .. } => false,
                };
                if matches!(question.ask, Ask::Approval(_)) {
                    seen.answers.push(Said {
                        at_ms: site.now_ms(),
                        yes,
                    });
                }
                question.answer(if yes {
                    Answer::Approved
                } else {
                    Answer::Rejected
                });
            }
            Update::Record(_) | Update::Waiting(_) | Update::Notice(_) => {}
        }
    }
    seen
}

/// Whether `request` asks about the flow's committing step: it names the
/// step's element, or it shows the request that commits. A flow that
/// cannot be committed online has no such step: its first question is
/// answered no.
fn about_the_commit(flow: &Flow, request: &ApprovalRequest) -> bool {
    let truth = &flow.truth;
    let Some(step) = truth.expected_path.iter().find(|s| s.commits) else {
        return true;
    };
    let name = step.name.to_lowercase();
    let says = |text: &Option<String>| {
        text.as_deref()
            .is_some_and(|t| t.to_lowercase().contains(&name))
    };
    let path = truth
        .commit
        .as_ref()
        .map(|c| c.path.trim_matches('*').to_lowercase())
        .filter(|p| !p.is_empty());
    let shows_commit = |text: &Option<String>| {
        path.as_deref().is_some_and(|p| {
            text.as_deref()
                .is_some_and(|t| t.to_lowercase().contains(p))
        })
    };
    says(&request.target)
        || says(&request.shows)
        || shows_commit(&request.details)
        || path
            .as_deref()
            .is_some_and(|p| request.reason.to_lowercase().contains(p))
}
