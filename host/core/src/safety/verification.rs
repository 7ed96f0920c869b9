//! Verification the page cannot fool. Success needs all of: an approved
//! action that needed a yes earlier in this run; no element on the page that
//! would still need one; success words in the visible text, not negated; and
//! the plugin's own verdict. Without an approved action the only success is
//! "already cancelled", and only when the plugin positively recognises it.

use serde::Serialize;

use super::CommitPage;
use super::success::{self, Claim};
use crate::plugin::Verdict;

/// How a success claim was judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verification", content = "why", rename_all = "kebab-case")]
pub enum Verification {
    /// Cancelled by this run.
    Verified,
    /// Cancelled before this run did anything; nothing was done.
    AlreadyCancelled,
    NotVerified(String),
}

/// Judges a success claim on the page as it is now. `visible` is the page's
/// visible text; `still_commits` says why the page is still a commit page.
pub fn judge_success(
    plugin: &Verdict,
    visible: &str,
    approved_commit: bool,
    still_commits: Option<&CommitPage>,
) -> Verification {
    if let Some(page) = still_commits {
        return Verification::NotVerified(format!(
            "the page still offers a step that needs a yes ({}: {})",
            page.because_of, page.reason
        ));
    }
    let claim = success::success_claim(visible);
    if let Claim::Negated { phrase, negation } = claim {
        return Verification::NotVerified(format!(
            "the page says the cancellation did not happen (\"{negation}\" … \"{phrase}\")"
        ));
    }
    if !approved_commit {
        return match plugin {
            Verdict::AlreadyCancelled if claim != Claim::Absent => Verification::AlreadyCancelled,
            _ => Verification::NotVerified(
                "no step that commits the cancellation was approved in this run".into(),
            ),
        };
    }
    if claim == Claim::Absent {
        return Verification::NotVerified(
            "the page's visible text does not say the subscription is cancelled".into(),
        );
    }
    match plugin {
        Verdict::Success | Verdict::AlreadyCancelled => Verification::Verified,
        Verdict::Failure(why) => Verification::NotVerified(why.clone()),
        Verdict::Unknown => {
            Verification::NotVerified("the service plugin does not see success here".into())
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    const DONE: &str = "Your membership has been cancelled. You can restart anytime.";

    fn kind(v: &Verification) -> &'static str {
        match v {
            Verification::Verified => "verified",
            Verification::AlreadyCancelled => "already",
            Verification::NotVerified(_) => "not",
        }
    }

    #[test]
    fn verification_table() {
        let commits = CommitPage {
            because_of: "button \"Finish Cancellation\"".into(),
            reason: "it says finish cancellation".into(),
        };
        /// Name, plugin verdict, visible text, approved, final step offered, outcome.
        type Case<'a> = (
            &'a str,
            Verdict,
            &'a str,
            bool,
            Option<&'a CommitPage>,
            &'a str,
        );
        let cases: Vec<Case> = vec![
            ("all three", Verdict::Success, DONE, true, None, "verified"),
            (
                "no approved step",
                Verdict::Success,
                DONE,
                false,
                None,
                "not",
            ),
            (
                "already cancelled, recognised",
                Verdict::AlreadyCancelled,
                DONE,
                false,
                None,
                "already",
            ),
            (
                "a final button still on the page",
                Verdict::Success,
                DONE,
                true,
                Some(&commits),
                "not",
            ),
            (
                "negated words",
                Verdict::Success,
                "Your membership was not cancelled. Please try again.",
                true,
                None,
                "not",
            ),
            (
                "no words at all (they were hidden)",
                Verdict::Success,
                "Review your cancellation",
                true,
                None,
                "not",
            ),
            (
                "the plugin disagrees",
                Verdict::Unknown,
                DONE,
                true,
                None,
                "not",
            ),
            (
                "the plugin failed",
                Verdict::Failure("trap".into()),
                DONE,
                true,
                None,
                "not",
            ),
        ];
        for (name, verdict, text, approved, page, want) in cases {
            assert_eq!(
                kind(&judge_success(&verdict, text, approved, page)),
                want,
                "{name}"
            );
        }
    }
}
