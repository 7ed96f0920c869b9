//! A bench run's questions, as the run's feed hands them over: each one is
//! posted to the served bench's ask route (a `bench serve`'s, or the bench
//! served in this process), whose person answers as the run's pass says.
//! Nothing here decides an answer, and nothing here knows a flow's truth.
//! A request to sign in is refused: the person of a bench run never types
//! a password for an agent.

use tokio::sync::mpsc;

use subterminator_bench::Question;
use subterminator_core::approval::{Answer, ApprovalRequest};
use subterminator_core::feed::{Ask, Envelope, Update};

/// Where a run's questions go: its ask route on the bench.
#[derive(Debug, Clone)]
pub struct Route {
    pub http: reqwest::Client,
    pub url: String,
}

/// Answers a run's feed until the run hangs up; returns how many
/// questions it asked.
pub async fn serve(mut updates: mpsc::UnboundedReceiver<Envelope>, route: Route) -> usize {
    let mut questions = 0;
    while let Some(Envelope { update, .. }) = updates.recv().await {
        let Update::Question(question) = update else {
            continue;
        };
        let yes = match &question.ask {
            Ask::Approval(request) => {
                questions += 1;
                // The bench could not be asked: no answer is a no.
                ask(&route, &question_of(request)).await.unwrap_or(false)
            }
            Ask::SignIn { .. } => false,
        };
        question.answer(if yes {
            Answer::Approved
        } else {
            Answer::Rejected
        });
    }
    questions
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

/// The bench's yes or no, or `None` where it could not be asked.
async fn ask(route: &Route, question: &Question) -> Option<bool> {
    match route.http.post(&route.url).json(question).send().await {
        Ok(r) if r.status().is_success() => r
            .json::<subterminator_bench::serve::Answered>()
            .await
            .ok()
            .map(|a| a.yes),
        Ok(r) => {
            tracing::warn!(status = %r.status(), "the bench refused a question");
            None
        }
        Err(e) => {
            tracing::warn!(error = %e, "the bench could not be asked");
            None
        }
    }
}
