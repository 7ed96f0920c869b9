//! Stage four of an action: asking the person, through the run's feed, with
//! a screenshot of the page. A yes becomes an [`Approval`], the one type
//! that carries it from the question to the guard; only this stage makes
//! one, and the run stage uses each for one action.

use super::ctx::Ctx;
use super::state::{State, timed};
use super::toolset::Refusal;
use super::yes::Approval;
use crate::approval::{Answer, ApprovalRequest};
use crate::feed::Ask;
use crate::feed::event::Event;
use crate::feed::result::{TaskReason, TaskResult};
use crate::safety::RefusalCode;

/// How a question ended. (Not `result::Asked`, what the host sent its
/// model.)
pub(super) enum Reply {
    Yes(Approval),
    /// A no with words for the driver: the run goes on.
    Feedback(Refusal),
    /// A no, or nobody could answer: the run ends.
    Ended(TaskResult),
}

/// Puts `request` to the person about `what` (`browser_click button "…"`),
/// with a screenshot, and waits for the answer; `final_step` says the
/// action is the flow's final step (for the evidence a yes to it leaves).
pub(super) async fn ask(
    cx: &mut Ctx<'_>,
    state: &State,
    mut request: ApprovalRequest,
    what: &str,
    final_step: bool,
) -> Reply {
    // While a navigation is held, the browser takes no picture (it waits
    // for the page that does not come): the question shows the request.
    if !request.held_navigation {
        request.screenshot = screenshot(cx, state.in_flight).await;
    }
    match answer(cx, state, request).await {
        Answer::Approved => Reply::Yes(Approval::new(state.turn, what, final_step)),
        Answer::Rejected => Reply::Ended(rejected(
            state.turn,
            &format!("the human did not approve {}", what.trim()),
        )),
        Answer::Unavailable(why) => Reply::Ended(rejected(state.turn, &unavailable(&why))),
        Answer::Feedback(feedback) => Reply::Feedback(Refusal::new(
            RefusalCode::HumanRejected,
            format!("User feedback: {feedback}"),
        )),
    }
}

/// Shows `request` and reads the answer, recording both; end of input
/// means no.
pub(super) async fn answer(cx: &mut Ctx<'_>, state: &State, request: ApprovalRequest) -> Answer {
    cx.reporter.emit(Event::ApprovalAsked {
        turn: state.turn,
        request: request.clone(),
    });
    let feed = cx.reporter.feed().clone();
    let answer = timed(&mut cx.clocks.human, feed.ask(Ask::Approval(request))).await;
    cx.reporter.emit(Event::ApprovalAnswered {
        turn: state.turn,
        answer: answer.clone(),
    });
    answer
}

/// A screenshot for the person; a failure only costs the picture.
/// `beside`: taken beside an action's call still in flight.
pub(super) async fn screenshot(cx: &mut Ctx<'_>, beside: bool) -> Option<std::path::PathBuf> {
    let path = cx.reporter.record()?.next_screenshot();
    let taken = if beside {
        timed(&mut cx.clocks.browser, cx.browser.screenshot_beside(&path)).await
    } else {
        timed(&mut cx.clocks.browser, cx.browser.screenshot(&path)).await
    };
    match taken {
        Ok(path) => Some(path),
        Err(e) => {
            tracing::warn!("no screenshot for the approval: {e}");
            None
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
