#![allow(clippy::unwrap_used)]
use serde_json::json;
use subterminator_core::feed;

use super::*;

fn approval() -> Ask {
    Ask::Approval(ApprovalRequest {
        reason: "the final step".into(),
        action: "browser_click".into(),
        target: Some("button \"Finish Cancellation\"".into()),
        url: "http://127.0.0.1/cancel".into(),
        ..ApprovalRequest::default()
    })
}

/// A desk that parks, a run asking it one question, and the parked question.
async fn parked(can_answer: bool) -> (Arc<Desk>, tokio::task::JoinHandle<Answer>) {
    let (asking, updates) = feed::feed();
    let desk = Desk::open(Asking::InputRequired, updates);
    desk.client_can_answer(can_answer);
    let run = tokio::spawn(async move { asking.ask(approval()).await });
    (desk, run)
}

#[tokio::test]
async fn only_the_parked_question_takes_an_answer_and_only_once() {
    let (desk, run) = parked(true).await;
    let question = desk.asked().await;
    assert_eq!(question.id.len(), 32);
    let ElicitRequestParams::FormElicitationParams { message, .. } = &question.params else {
        unreachable!("a form")
    };
    assert!(message.contains("Finish Cancellation"), "{message}");

    let yes = json!({"action": "accept", "content": {"approve": true}});
    let foreign = "0".repeat(32);
    assert_eq!(desk.answer(&foreign, Some(&yes)), Err(Refusal::NotWaiting));
    assert_eq!(desk.answer(&question.id, None), Ok(Answered::Missing));
    assert!(matches!(
        desk.answer(&question.id, Some(&json!({"approve": true}))),
        Err(Refusal::Unreadable(_))
    ));
    assert!(desk.parked().is_some(), "still waiting after refusals");
    assert_eq!(desk.answer(&question.id, Some(&yes)), Ok(Answered::Given));
    assert!(desk.parked().is_none());
    assert_eq!(run.await.unwrap(), Answer::Approved);
    // Stale: answered already.
    assert_eq!(
        desk.answer(&question.id, Some(&yes)),
        Err(Refusal::NotWaiting)
    );
}

#[tokio::test]
async fn a_declined_or_unshowable_question_is_a_no() {
    let cases = [
        (json!({"action": "decline"}), Answer::Rejected),
        (json!({"action": "cancel"}), Answer::Rejected),
        (
            json!({"action": "accept", "content": {"approve": false}}),
            Answer::Rejected,
        ),
    ];
    for (response, want) in cases {
        let (desk, run) = parked(true).await;
        let question = desk.asked().await;
        assert_eq!(
            desk.answer(&question.id, Some(&response)),
            Ok(Answered::Given)
        );
        assert_eq!(run.await.unwrap(), want, "{response}");
    }
    let (desk, run) = parked(false).await;
    assert!(
        matches!(run.await.unwrap(), Answer::Unavailable(why) if why.contains("does not support elicitation"))
    );
    assert!(desk.parked().is_none());
}

#[tokio::test]
async fn a_withdrawn_question_is_unparked() {
    let (desk, run) = parked(true).await;
    let question = desk.asked().await;
    run.abort();
    let _ = run.await;
    let deadline = Instant::now() + std::time::Duration::from_secs(5);
    while desk.parked().is_some() && Instant::now() < deadline {
        tokio::task::yield_now().await;
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    assert!(desk.parked().is_none());
    let yes = json!({"action": "accept", "content": {"approve": true}});
    assert_eq!(
        desk.answer(&question.id, Some(&yes)),
        Err(Refusal::NotWaiting)
    );
}
