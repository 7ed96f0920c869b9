//! The person of a bench run, as the run's feed sees it: every question
//! the run asks goes to the bench, which answers as its pass says
//! (`subterminator_bench::person`) — here, on the flow's own site, or over
//! HTTP when the flows are a `bench serve`'s. Nothing here decides an
//! answer. A request to sign in is refused: the person of a bench run
//! never types a password for an agent.

use std::sync::Arc;

use tokio::sync::mpsc;

use subterminator_bench::{Answer as Said, BenchSite, Flow, PassKind, Question};
use subterminator_core::approval::{Answer, ApprovalRequest};
use subterminator_core::feed::{Ask, Envelope, Update};

/// Who answers.
pub enum Bench {
    /// The flow served here: the bench's person answers in process.
    Here {
        site: Arc<BenchSite>,
        flow: Box<Flow>,
        pass: PassKind,
    },
    /// A `bench serve` run: each question posted to its ask route.
    Served {
        http: reqwest::Client,
        ask_url: String,
    },
}

/// What the run asked: how many questions, and the bench's answers where
/// it answered here (a served bench keeps its own, for its scorer).
#[derive(Debug, Default)]
pub struct Seen {
    pub questions: usize,
    pub answers: Vec<Said>,
}

/// Serves a run's feed until the run hangs up.
pub async fn serve(mut updates: mpsc::UnboundedReceiver<Envelope>, bench: Bench) -> Seen {
    let mut seen = Seen::default();
    while let Some(Envelope { update, .. }) = updates.recv().await {
        let Update::Question(question) = update else {
            continue;
        };
        let yes = match &question.ask {
            Ask::Approval(request) => {
                seen.questions += 1;
                match ask(&bench, &question_of(request)).await {
                    Answered::Here(said) => {
                        seen.answers.push(said);
                        said.yes
                    }
                    Answered::Served(yes) => yes,
                    // The bench could not be asked: no answer is a no.
                    Answered::Not => false,
                }
            }
            Ask::SignIn { .. } => false,
        };
        question.answer(if yes {
            Answer::Approved
        } else {
            Answer::Rejected
        });
    }
    seen
}

/// What the person is shown, as the bench reads questions: the host's
/// reason, the control as the page names it, and what it will send.
fn question_of(request: &ApprovalRequest) -> Question {
    let details = [request.shows.as_deref(), request.details.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("\n");
    Question {
        question: request.reason.clone(),
        target: request.target.clone(),
        details: (!details.is_empty()).then_some(details),
    }
}

/// The bench's answer: judged here (kept for scoring), by a served bench
/// (which keeps its own), or none.
enum Answered {
    Here(Said),
    Served(bool),
    Not,
}

async fn ask(bench: &Bench, question: &Question) -> Answered {
    match bench {
        Bench::Here { site, flow, pass } => Answered::Here(subterminator_bench::person::answer(
            flow,
            *pass,
            question,
            site.now_ms(),
            site.logged(),
        )),
        Bench::Served { http, ask_url } => {
            let reply = http.post(ask_url).json(question).send().await;
            match reply {
                Ok(r) if r.status().is_success() => r
                    .json::<subterminator_bench::serve::Answered>()
                    .await
                    .map_or(Answered::Not, |a| Answered::Served(a.yes)),
                Ok(r) => {
                    tracing::warn!(status = %r.status(), "the bench refused a question");
                    Answered::Not
                }
                Err(e) => {
                    tracing::warn!(error = %e, "the bench could not be asked");
                    Answered::Not
                }
            }
        }
    }
}
