//! What a run tells its front-end, and what it asks: one ordered queue.
//!
//! The core prints nothing. Everything a person may see of a run — its
//! events, that it is waiting, a notice, a question — travels on one
//! channel to whichever front-end serves the run (the terminal, a batch of
//! runs on one terminal, an MCP client). One channel, so a question is shown
//! after every line that came before it. A question carries its own reply;
//! a question nobody answers (the front-end gone, the reply dropped) is a
//! no, never a yes.
//!
//! What travels is defined here, not by the agent that sends it: the
//! events (`event`), which are the run record's lines too, and how a run
//! ended (`result`), so every front-end reads them without knowing the
//! agent.

use std::path::PathBuf;

use tokio::sync::{mpsc, oneshot};

pub mod event;
pub mod result;

pub use event::{Event, Origin, ReleasedRequest, Trouble};
pub use result::{Asked, StepsBy, TaskReason, TaskResult, TimeSplit, Tokens};

use crate::approval::{Answer, ApprovalRequest};

/// One thing a run tells or asks its front-end.
#[derive(Debug)]
pub enum Update {
    /// The run's record lives here (sent first, when there is one).
    Record(PathBuf),
    /// Something that happened, exactly as the run record has it.
    Event(Box<Event>),
    /// The run waits on something (what a spinner would say); `None` when it
    /// no longer does.
    Waiting(Option<String>),
    /// A line a person must see even when the output is JSON: a sign-in
    /// hand-off, a stop.
    Notice(String),
    /// A question; the run waits for its answer.
    Question(Box<Question>),
}

/// An [`Update`] and the run it comes from, when several runs share one
/// front-end (`cancel a b c`): its service's name.
#[derive(Debug)]
pub struct Envelope {
    pub from: Option<String>,
    pub update: Update,
}

/// What a run asks a person.
#[derive(Debug, Clone)]
pub enum Ask {
    /// May this action, or this request, go ahead?
    Approval(ApprovalRequest),
    /// The page wants the person to sign in: they do it in the browser
    /// window, then say they are done. Only a person at this machine can.
    SignIn { message: String },
}

/// One question and where its answer goes.
#[derive(Debug)]
pub struct Question {
    pub ask: Ask,
    reply: oneshot::Sender<Answer>,
}

impl Question {
    /// Answers the question; a run that stopped waiting ignores it.
    pub fn answer(self, answer: Answer) {
        let _ = self.reply.send(answer);
    }

    /// Resolves once the run stopped waiting for the answer (it was
    /// stopped, Ctrl+C): a front-end stops asking then.
    pub async fn withdrawn(&mut self) {
        self.reply.closed().await;
    }
}

/// The sending end of a run's queue. Cheap to clone: a run's reporter and
/// its questions hold one each, and every run of a batch holds its own,
/// labelled with its service.
#[derive(Debug, Clone)]
pub struct Feed {
    tx: Option<mpsc::UnboundedSender<Envelope>>,
    from: Option<String>,
}

/// A queue: the end runs send on, and the end a front-end reads.
pub fn feed() -> (Feed, mpsc::UnboundedReceiver<Envelope>) {
    let (tx, rx) = mpsc::unbounded_channel();
    (
        Feed {
            tx: Some(tx),
            from: None,
        },
        rx,
    )
}

impl Feed {
    /// A feed nobody reads: every update is dropped and every question is
    /// answered [`Answer::Unavailable`] (tests, runs with no front-end).
    pub fn unread() -> Self {
        Feed {
            tx: None,
            from: None,
        }
    }

    /// The same queue, every update labelled as `from`'s.
    pub fn from(&self, from: impl Into<String>) -> Self {
        Feed {
            tx: self.tx.clone(),
            from: Some(from.into()),
        }
    }

    /// Sends `update`; a front-end that is gone loses it (the run record
    /// still has every event).
    pub fn send(&self, update: Update) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(Envelope {
                from: self.from.clone(),
                update,
            });
        }
    }

    /// Puts the question and waits for its answer. A queue nobody reads, or
    /// a question dropped unanswered, is [`Answer::Unavailable`].
    pub async fn ask(&self, ask: Ask) -> Answer {
        let Some(tx) = &self.tx else {
            return Answer::Unavailable("nobody is there to answer".into());
        };
        let (reply, answered) = oneshot::channel();
        let sent = tx.send(Envelope {
            from: self.from.clone(),
            update: Update::Question(Box::new(Question { ask, reply })),
        });
        if sent.is_err() {
            return Answer::Unavailable("nobody is left to answer approvals".into());
        }
        answered.await.unwrap_or_else(|_| {
            Answer::Unavailable("the question was withdrawn before anyone answered it".into())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question() -> Ask {
        Ask::Approval(ApprovalRequest::default())
    }

    #[tokio::test]
    async fn an_unread_or_dropped_question_is_never_a_yes() {
        assert!(matches!(
            Feed::unread().ask(question()).await,
            Answer::Unavailable(_)
        ));

        let (asking, showing) = feed();
        drop(showing);
        assert!(matches!(
            asking.ask(question()).await,
            Answer::Unavailable(_)
        ));

        let (asking, mut showing) = feed();
        let reader = tokio::spawn(async move {
            let envelope = showing.recv().await;
            drop(envelope);
        });
        assert!(matches!(
            asking.ask(question()).await,
            Answer::Unavailable(_)
        ));
        reader.await.ok();
    }

    #[tokio::test]
    async fn updates_keep_their_order_and_their_label() {
        let (feed, mut showing) = feed();
        let netflix = feed.from("Netflix");
        netflix.send(Update::Notice("first".into()));
        let reader = tokio::spawn(async move {
            let mut seen = Vec::new();
            while let Some(envelope) = showing.recv().await {
                match envelope.update {
                    Update::Notice(text) => seen.push((envelope.from, text)),
                    Update::Question(q) => {
                        seen.push((envelope.from, "question".into()));
                        q.answer(Answer::Approved);
                    }
                    _ => {}
                }
            }
            seen
        });
        assert_eq!(netflix.ask(question()).await, Answer::Approved);
        drop((feed, netflix));
        let seen = reader.await.unwrap_or_default();
        assert_eq!(
            seen,
            vec![
                (Some("Netflix".into()), "first".into()),
                (Some("Netflix".into()), "question".into())
            ]
        );
    }
}
