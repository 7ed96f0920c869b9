//! Questions handed to whoever shows them: an MCP client's person through
//! elicitation, or one terminal prompt shared by several runs. The run waits
//! for its answer; a question that is dropped unanswered is a no, never a yes.

use tokio::sync::{mpsc, oneshot};

use super::{Answer, ApprovalRequest};

/// One approval to show, and where its answer goes.
#[derive(Debug)]
pub struct Question {
    pub request: ApprovalRequest,
    /// Who is asking, when several runs share one queue: "Netflix".
    pub asker: Option<String>,
    reply: oneshot::Sender<Answer>,
}

impl Question {
    /// Answers the question; a run that stopped waiting ignores it.
    pub fn answer(self, answer: Answer) {
        let _ = self.reply.send(answer);
    }
}

/// The asking end, held by a run's [`super::Approver::Queue`].
#[derive(Debug, Clone)]
pub struct Questions {
    tx: mpsc::Sender<Question>,
    asker: Option<String>,
}

/// A queue: the asking end, and the end that shows each question and
/// answers it. Questions wait in order, `capacity` at most at a time.
pub fn questions(capacity: usize) -> (Questions, mpsc::Receiver<Question>) {
    let (tx, rx) = mpsc::channel(capacity.max(1));
    (Questions { tx, asker: None }, rx)
}

impl Questions {
    /// The same queue, with every question labelled as `asker`'s.
    pub fn asked_by(&self, asker: impl Into<String>) -> Self {
        Self {
            tx: self.tx.clone(),
            asker: Some(asker.into()),
        }
    }

    /// Puts the question and waits for its answer. A queue nobody reads,
    /// or a question dropped unanswered, is [`Answer::Unavailable`].
    pub async fn ask(&self, request: ApprovalRequest) -> Answer {
        let (reply, answered) = oneshot::channel();
        let question = Question {
            request,
            asker: self.asker.clone(),
            reply,
        };
        if self.tx.send(question).await.is_err() {
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

    #[tokio::test]
    async fn an_unread_or_dropped_question_is_never_a_yes() {
        let (asking, showing) = questions(1);
        drop(showing);
        assert!(matches!(
            asking.ask(ApprovalRequest::default()).await,
            Answer::Unavailable(_)
        ));

        let (asking, mut showing) = questions(1);
        let reader = tokio::spawn(async move {
            let question = showing.recv().await;
            drop(question);
        });
        assert!(matches!(
            asking.ask(ApprovalRequest::default()).await,
            Answer::Unavailable(_)
        ));
        reader.await.ok();
    }

    #[tokio::test]
    async fn the_answer_and_the_asker_travel_with_the_question() {
        let (asking, mut showing) = questions(4);
        let netflix = asking.asked_by("Netflix");
        let reader = tokio::spawn(async move {
            let question = showing.recv().await;
            let asker = question.as_ref().and_then(|q| q.asker.clone());
            if let Some(q) = question {
                q.answer(Answer::Approved);
            }
            asker
        });
        assert_eq!(
            netflix.ask(ApprovalRequest::default()).await,
            Answer::Approved
        );
        assert_eq!(reader.await.ok().flatten().as_deref(), Some("Netflix"));
    }
}
