#![allow(clippy::unwrap_used, clippy::panic)]

use super::*;
use crate::catalog::Catalog;

fn q(question: &str, target: Option<&str>, details: Option<&str>) -> Question {
    Question {
        question: question.into(),
        target: target.map(Into::into),
        details: details.map(Into::into),
    }
}

#[test]
fn the_person_answers_as_the_pass_says_table() {
    let catalog = Catalog::load().unwrap();
    let flow = catalog.get("practice-base-en").unwrap();
    let step = flow.truth.expected_path.iter().find(|s| s.commits).unwrap();
    let commit = flow.truth.commit.as_ref().unwrap();
    let named = format!("May I press {:?}?", step.name);
    let upper = named.to_uppercase();
    let sends = format!("{} {}", commit.method, commit.path);
    let first = &flow.truth.expected_path[0].name;
    // (case, question, about the commit, yes in yes-to-all, yes in no-at-commit)
    let cases = [
        (
            "names the control",
            q(&named, None, None),
            true,
            true,
            false,
        ),
        ("in capitals", q(&upper, None, None), true, true, false),
        (
            "the control as target",
            q("Go on?", Some(&step.name), None),
            true,
            true,
            false,
        ),
        (
            "shows the request",
            q("Go on?", None, Some(&sends)),
            true,
            true,
            false,
        ),
        (
            "names nothing",
            q("May I go on?", None, None),
            false,
            true,
            true,
        ),
        (
            "an earlier step",
            q(&format!("May I press {first:?}?"), None, None),
            false,
            true,
            true,
        ),
    ];
    for (case, question, about, yes_all, yes_no) in cases {
        assert_eq!(about_the_commit(flow, &question), about, "{case}");
        let a = answer(flow, PassKind::YesToAll, &question, 7, 3);
        assert_eq!(
            (a.yes, a.about_commit, a.at_ms),
            (yes_all, about, 7),
            "{case}"
        );
        assert_eq!(
            answer(flow, PassKind::NoAtCommit, &question, 7, 3).yes,
            yes_no,
            "{case}"
        );
    }
}

/// A flow that cannot be cancelled online has no committing step: in the
/// no-at-commit pass every question is refused.
#[test]
fn with_no_way_to_commit_every_question_is_the_commits() {
    let catalog = Catalog::load().unwrap();
    let flow = catalog.get("nytimes-chat-or-phone-only-en").unwrap();
    let question = q("May I go on?", None, None);
    assert!(about_the_commit(flow, &question));
    assert!(!answer(flow, PassKind::NoAtCommit, &question, 0, 0).yes);
    assert!(answer(flow, PassKind::YesToAll, &question, 0, 0).yes);
}
