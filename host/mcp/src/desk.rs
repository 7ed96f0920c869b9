//! One session's front-end: what its run tells goes to whoever waits on the
//! session as progress, and what it asks reaches the client's person.
//!
//! Before 2026-07-28 the server asks: an approval is an elicitation it
//! sends. From 2026-07-28 the server may not send requests, so a question is
//! *parked* here: the call waiting on the session returns it as an
//! `input_required` result, under a fresh id, and the client's next call
//! brings the person's answer for that id. An answer is taken only for the
//! question parked now; a question nobody answers within
//! [`APPROVAL_TIMEOUT`] is a no, as is one the client cannot show.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rmcp::RoleServer;
use rmcp::model::{ElicitRequestParams, ElicitResult, ProgressNotificationParam, ProgressToken};
use rmcp::service::Peer;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};

use super::APPROVAL_TIMEOUT;
use super::elicit;
use subterminator_core::approval::{Answer, ApprovalRequest};
use subterminator_core::feed::Event;
use subterminator_core::feed::{Ask, Envelope, Question, Update};

/// How this session's person is asked.
#[derive(Clone)]
pub enum Asking {
    /// Before 2026-07-28: an elicitation sent on the client's connection.
    Elicitation(Peer<RoleServer>),
    /// From 2026-07-28: an `input_required` result the client answers by
    /// calling again.
    InputRequired,
}

impl std::fmt::Debug for Asking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Asking::Elicitation(_) => "Elicitation",
            Asking::InputRequired => "InputRequired",
        })
    }
}

/// A question waiting for the answer a client's next call brings.
#[derive(Debug)]
pub struct Parked {
    /// Its name in the `input_required` result: 128 random bits, so that no
    /// other client can answer it.
    pub id: String,
    /// What the elicitation would have carried: the prompt, its schema and
    /// the screenshot.
    pub params: ElicitRequestParams,
    pub asked_at: Instant,
    reply: Mutex<Option<oneshot::Sender<Answer>>>,
}

/// What became of an answer a call brought.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answered {
    /// The run has it.
    Given,
    /// The call named the question but brought no answer for it: it is
    /// still parked, and asked again.
    Missing,
}

/// Why an answer was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error(
        "the session is not waiting on that question (it was answered, it expired, or it is another session's); nothing was approved"
    )]
    NotWaiting,

    #[error("the answer to the question cannot be read as an elicitation result: {0}")]
    Unreadable(String),
}

/// Where progress goes: the call waiting on the session now.
struct Listener {
    peer: Peer<RoleServer>,
    token: ProgressToken,
    sent: u32,
}

/// One session's front-end.
pub struct Desk {
    asking: Asking,
    listener: Mutex<Option<Listener>>,
    /// Whether the client making the latest call declared elicitation
    /// (2026-07-28 clients say so with each request).
    can_answer: AtomicBool,
    parked: watch::Sender<Option<Arc<Parked>>>,
}

impl std::fmt::Debug for Desk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Desk")
            .field("asking", &self.asking)
            .field("parked", &self.parked().map(|p| p.id.clone()))
            .finish_non_exhaustive()
    }
}

impl Desk {
    /// A front-end serving `updates` (the run's feed) until the run hangs up.
    pub fn open(asking: Asking, updates: mpsc::UnboundedReceiver<Envelope>) -> Arc<Desk> {
        let desk = Arc::new(Desk {
            asking,
            listener: Mutex::new(None),
            can_answer: AtomicBool::new(false),
            parked: watch::Sender::new(None),
        });
        tokio::spawn(serve(desk.clone(), updates));
        desk
    }

    /// Progress goes to this call from now on (to nobody without a token).
    pub fn listen(&self, peer: Peer<RoleServer>, token: Option<ProgressToken>) {
        if let Ok(mut listener) = self.listener.lock() {
            *listener = token.map(|token| Listener {
                peer,
                token,
                sent: 0,
            });
        }
    }

    /// The call that listened is over.
    pub fn hang_up(&self) {
        if let Ok(mut listener) = self.listener.lock() {
            *listener = None;
        }
    }

    /// Whether the client calling now can put a question to its person.
    pub fn client_can_answer(&self, can: bool) {
        self.can_answer.store(can, Ordering::SeqCst);
    }

    /// The question parked now, if any.
    pub fn parked(&self) -> Option<Arc<Parked>> {
        self.parked.borrow().clone()
    }

    /// Resolves once a question is parked.
    pub async fn asked(&self) -> Arc<Parked> {
        let mut parked = self.parked.subscribe();
        let found = match parked.wait_for(Option::is_some).await {
            Ok(parked) => parked.clone(),
            // The desk holds the sender as long as anyone can call this.
            Err(_) => None,
        };
        match found {
            Some(parked) => parked,
            None => std::future::pending().await,
        }
    }

    /// Gives the run the answer `response` (an elicitation result, as the
    /// client sent it) to the question named `id`. Only the question parked
    /// now can be answered; its id is its only name.
    pub fn answer(&self, id: &str, response: Option<&Value>) -> Result<Answered, Refusal> {
        let Some(parked) = self.parked().filter(|p| p.id == id) else {
            return Err(Refusal::NotWaiting);
        };
        let Some(response) = response else {
            return Ok(Answered::Missing);
        };
        let result: ElicitResult = serde_json::from_value(response.clone())
            .map_err(|e| Refusal::Unreadable(e.to_string()))?;
        let reply = parked
            .reply
            .lock()
            .ok()
            .and_then(|mut reply| reply.take())
            .ok_or(Refusal::NotWaiting)?;
        // Unparked before the run hears it, so that the call which waits
        // next never sees this question again.
        self.unpark(id);
        let _ = reply.send(elicit::answer_of(&result));
        Ok(Answered::Given)
    }

    fn unpark(&self, id: &str) {
        self.parked.send_if_modified(|parked| {
            if parked.as_ref().is_some_and(|p| p.id == id) {
                *parked = None;
                true
            } else {
                false
            }
        });
    }

    async fn progress(&self, event: &Event) {
        let Some(message) = progress_message(event) else {
            return;
        };
        let send = self.listener.lock().ok().and_then(|mut listener| {
            let listener = listener.as_mut()?;
            listener.sent += 1;
            let mut notification =
                ProgressNotificationParam::new(listener.token.clone(), f64::from(listener.sent));
            notification.message = Some(message);
            Some((listener.peer.clone(), notification))
        });
        if let Some((peer, notification)) = send
            && let Err(e) = peer.notify_progress(notification).await
        {
            tracing::debug!("progress not sent: {e}");
        }
    }

    async fn put(&self, question: Question, asker: Option<&str>) {
        let request = match &question.ask {
            Ask::Approval(request) => request.clone(),
            Ask::SignIn { .. } => {
                question.answer(Answer::Unavailable(
                    "signing in needs the person at this machine's browser".into(),
                ));
                return;
            }
        };
        match &self.asking {
            Asking::Elicitation(peer) => {
                let answer = elicit::ask(peer, &request, asker).await;
                question.answer(answer);
            }
            Asking::InputRequired => self.park(question, &request, asker).await,
        }
    }

    /// Parks `question` until a call answers it, the run withdraws it, or
    /// [`APPROVAL_TIMEOUT`] passes.
    async fn park(&self, mut question: Question, request: &ApprovalRequest, asker: Option<&str>) {
        if !self.can_answer.load(Ordering::SeqCst) {
            question.answer(Answer::Unavailable(elicit::NO_ELICITATION.into()));
            return;
        }
        let params = match elicit::params(request, asker).await {
            Ok(params) => params,
            Err(why) => {
                question.answer(Answer::Unavailable(why));
                return;
            }
        };
        let (reply, answered) = oneshot::channel();
        let parked = Arc::new(Parked {
            id: uuid::Uuid::new_v4().simple().to_string(),
            params,
            asked_at: Instant::now(),
            reply: Mutex::new(Some(reply)),
        });
        let id = parked.id.clone();
        self.parked.send_replace(Some(parked));
        let answer = tokio::select! {
            answer = answered => answer.unwrap_or_else(|_| Answer::Unavailable("the question was dropped unanswered".into())),
            () = tokio::time::sleep(APPROVAL_TIMEOUT) => Answer::Unavailable(format!(
                "nobody answered the approval within {} minutes", APPROVAL_TIMEOUT.as_secs() / 60
            )),
            () = question.withdrawn() => Answer::Unavailable("the run stopped waiting".into()),
        };
        self.unpark(&id);
        question.answer(answer);
    }
}

/// Serves one run's feed until the run hangs up.
async fn serve(desk: Arc<Desk>, mut updates: mpsc::UnboundedReceiver<Envelope>) {
    while let Some(Envelope { from, update }) = updates.recv().await {
        match update {
            Update::Event(event) => desk.progress(&event).await,
            Update::Question(question) => desk.put(*question, from.as_deref()).await,
            Update::Record(_) | Update::Waiting(_) | Update::Notice(_) => {}
        }
    }
}

/// What a progress notification says of an event, if anything.
pub fn progress_message(event: &Event) -> Option<String> {
    use subterminator_core::text::sanitize;
    Some(match event {
        Event::ToolCall {
            turn, tool, target, ..
        } => match target {
            Some(target) => format!("[Turn {turn}] {tool} {}", sanitize(target)),
            None => format!("[Turn {turn}] {tool}"),
        },
        Event::Refused { turn, why, .. } => format!("[Turn {turn}] refused: {}", sanitize(why)),
        Event::ApprovalAsked { turn, request } => format!(
            "[Turn {turn}] waiting for your approval: {} {}",
            request.action,
            sanitize(request.target.as_deref().unwrap_or_default())
        ),
        Event::Verification {
            turn,
            verified,
            detail,
        } => {
            if *verified {
                format!("[Turn {turn}] verified on the page")
            } else {
                format!("[Turn {turn}] not verified: {}", sanitize(detail))
            }
        }
        Event::AuthRequired { message, .. } => sanitize(message),
        Event::Finished { result } => format!("finished: {}", result.reason),
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
