//! Verification the page cannot fool. Success needs all of: evidence that a
//! yes reached the service (a state-changing request released by a yes in
//! this run, or, for a flow that commits by navigation, the approved final
//! step); no element on the page that would still need a yes; and a
//! confirmation a person can see that says, unconditionally and not in the
//! future, that it is cancelled (the visible text is read from the DOM:
//! `browser::sight`); then the plugin's verdict — its failure always wins,
//! and where it answers "unknown" on a page in a language it does not read,
//! the host's own reader decides. A confirmation with no evidence is an
//! unverified change: something says it is cancelled, but nothing this run
//! sent with a yes can have done it.

use serde::Serialize;

use super::CommitPage;
use super::ended;
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
    /// The page says it is cancelled, but no request this run let through
    /// with a yes can have done it.
    UnverifiedChange(String),
    NotVerified(String),
}

/// What this run did that could have cancelled anything.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Evidence {
    /// State-changing requests a yes let through.
    pub released: usize,
    /// The final step (a strong sign, the plan's irreversible step, a commit
    /// pattern) was approved and ran: a flow that commits by navigation.
    pub final_step_approved: bool,
    /// Of `released`, those whose address names an add-on
    /// (`/account/extra-member/remove`): evidence that something ended,
    /// not the subscription.
    pub released_add_ons: usize,
}

impl Evidence {
    pub fn any(self) -> bool {
        self.released > 0 || self.final_step_approved
    }
}

/// Judges a success claim on the page as it is now. `visible` is what a
/// person can see of the page; `host_reads` says the plugin does not read
/// the page's language, so that its "unknown" leaves the decision to the
/// host's reader; `still_commits` says why the page is still a commit page.
pub fn judge_success(
    plugin: &Verdict,
    visible: &str,
    evidence: Evidence,
    host_reads: bool,
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
    if let Verdict::Failure(why) = plugin {
        return Verification::NotVerified(why.clone());
    }
    let definite = matches!(claim, Claim::Affirmed(phrase) if !success::is_end_date_only(phrase));
    if !evidence.any() {
        return match (plugin, definite) {
            (Verdict::AlreadyCancelled, _) if claim != Claim::Absent => {
                Verification::AlreadyCancelled
            }
            (_, true) => Verification::UnverifiedChange(
                "the page says it is cancelled, but no request that could cancel it left with your yes in this run"
                    .into(),
            ),
            _ => Verification::NotVerified(
                "no request that commits the cancellation was let through with a yes in this run"
                    .into(),
            ),
        };
    }
    if !definite {
        return Verification::NotVerified(
            "the page's visible text does not say, without a condition, that the subscription is cancelled"
                .into(),
        );
    }
    // What ended must be the subscription: not an add-on the page names,
    // and not what every request the yes released was about.
    if let Claim::Affirmed(phrase) = claim
        && let Some(why) = ended::add_on_ended(visible, phrase)
    {
        return Verification::NotVerified(format!(
            "this run ended an add-on, not the subscription: {why}"
        ));
    }
    if !evidence.final_step_approved
        && evidence.released > 0
        && evidence.released_add_ons == evidence.released
    {
        return Verification::NotVerified(
            "this run ended an add-on, not the subscription: every request released with a yes was about one"
                .into(),
        );
    }
    match plugin {
        Verdict::Success | Verdict::AlreadyCancelled => Verification::Verified,
        Verdict::Unknown if host_reads => Verification::Verified,
        Verdict::Unknown => {
            Verification::NotVerified("the service plugin does not see success here".into())
        }
        Verdict::Failure(why) => Verification::NotVerified(why.clone()),
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
            Verification::UnverifiedChange(_) => "unverified",
            Verification::NotVerified(_) => "not",
        }
    }

    #[test]
    fn verification_table() {
        let commits = CommitPage {
            because_of: "button \"Finish Cancellation\"".into(),
            reason: "it says finish cancellation".into(),
            final_step: true,
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
                "no request released: a change nothing of this run made",
                Verdict::Success,
                DONE,
                false,
                None,
                "unverified",
            ),
            (
                "no request released, no words",
                Verdict::Success,
                "Review your cancellation",
                false,
                None,
                "not",
            ),
            (
                "future: what continuing will do",
                Verdict::Success,
                "Your membership will be cancelled when you continue.",
                true,
                None,
                "not",
            ),
            (
                "conditional",
                Verdict::Success,
                "Your subscription has been cancelled only after you confirm below.",
                true,
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
            let evidence = Evidence {
                released: usize::from(approved),
                final_step_approved: false,
                released_add_ons: 0,
            };
            assert_eq!(
                kind(&judge_success(&verdict, text, evidence, false, page)),
                want,
                "{name}"
            );
        }
    }

    /// Where the plugin does not read the page's language, its "unknown"
    /// leaves the decision to the host's reader; its failure always wins.
    #[test]
    fn the_host_reads_where_the_plugin_cannot() {
        let done_de = "Deine Mitgliedschaft wurde gekündigt.";
        let evidence = Evidence {
            released: 1,
            final_step_approved: false,
            released_add_ons: 0,
        };
        let cases = [
            (Verdict::Unknown, true, "verified"),
            (Verdict::Unknown, false, "not"),
            (Verdict::Failure("billed elsewhere".into()), true, "not"),
        ];
        for (verdict, host_reads, want) in cases {
            assert_eq!(
                kind(&judge_success(
                    &verdict, done_de, evidence, host_reads, None
                )),
                want,
                "{verdict:?} {host_reads}"
            );
        }
        let navigated = Evidence {
            released: 0,
            final_step_approved: true,
            released_add_ons: 0,
        };
        assert_eq!(
            kind(&judge_success(
                &Verdict::Success,
                DONE,
                navigated,
                false,
                None
            )),
            "verified"
        );
    }

    /// A yes to ending an add-on, and a page that says "cancelled" of it:
    /// never verified, whatever the language; the subscription's own
    /// confirmation still is.
    #[test]
    fn an_add_on_ended_is_not_the_subscription() {
        let one = Evidence {
            released: 1,
            final_step_approved: false,
            released_add_ons: 0,
        };
        let addon = Evidence {
            released_add_ons: 1,
            ..one
        };
        let cases = [
            (
                "Dein Extra-Mitglied-Platz wurde gekündigt. Dein Abo läuft unverändert weiter.",
                one,
                "not",
            ),
            ("Your membership has been cancelled.", addon, "not"),
            ("Your membership has been cancelled.", one, "verified"),
        ];
        for (page, evidence, want) in cases {
            let got = judge_success(&Verdict::Success, page, evidence, true, None);
            assert_eq!(kind(&got), want, "{page}: {got:?}");
            if want == "not" {
                assert!(format!("{got:?}").contains("add-on"), "{got:?}");
            }
        }
    }
}
