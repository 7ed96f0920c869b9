#![allow(clippy::unwrap_used, clippy::expect_used)]
use super::*;
use crate::plugin::types::HintAction;

fn hint(role: Option<&str>, names: &[&str]) -> TargetHint {
    TargetHint {
        role: role.map(str::to_owned),
        name_patterns: names.iter().map(|n| (*n).to_owned()).collect(),
        action: HintAction::Click,
        value: None,
        optional: false,
    }
}

/// Open the account, then the irreversible "Complete" button.
fn plan() -> Vec<PlanStep> {
    vec![
        PlanStep {
            description: "Open the account".into(),
            done_when: "open".into(),
            targets: vec![hint(Some("link"), &["account"])],
            irreversible: false,
        },
        PlanStep {
            description: "Finish".into(),
            done_when: "done".into(),
            targets: vec![hint(Some("button"), &["complete"])],
            irreversible: true,
        },
    ]
}

fn with(overlays: Vec<TargetHint>) -> Metadata {
    Metadata {
        overlays,
        ..Metadata::default()
    }
}

/// The buttons the host may press unasked: a help chat's, an app banner's,
/// and a name a step that does not commit also uses.
#[test]
fn ordinary_overlays_pass() {
    let cases = [
        hint(Some("button"), &["continue in browser"]),
        hint(Some("button"), &["end chat", "close help"]),
        hint(None, &["not now"]),
        hint(Some("button"), &["account"]),
        // The same words as the irreversible target, on another role.
        hint(Some("link"), &["complete"]),
    ];
    for overlay in cases {
        assert_eq!(
            check(&with(vec![overlay.clone()]), &plan()),
            Ok(()),
            "{overlay:?}"
        );
    }
}

/// Every way an overlay could name a commit, each refused naming it.
#[test]
fn overlays_that_read_as_commits_are_refused() {
    let cases = [
        (
            "the host's strong words",
            hint(Some("button"), &["close", "finish cancellation"]),
            "interruptions[0].name-patterns[1]: \"finish cancellation\" reads as a commit to the host",
        ),
        (
            "in capitals",
            hint(Some("button"), &["CONFIRM CANCELLATION"]),
            "interruptions[0].name-patterns[0]: \"CONFIRM CANCELLATION\" reads as a commit",
        ),
        (
            "another language",
            hint(None, &["Jetzt kündigen"]),
            "interruptions[0].name-patterns[0]: \"Jetzt kündigen\" reads as a commit",
        ),
        (
            "the irreversible step's own pattern",
            hint(Some("button"), &["complete"]),
            "interruptions[0].name-patterns: \"complete\" names the button of plan[1].targets[0] (\"complete\")",
        ),
        (
            "a longer name holding it",
            hint(Some("button"), &["Complete now"]),
            "names the button of plan[1].targets[0]",
        ),
        (
            "a shorter name inside it",
            hint(None, &["plete"]),
            "names the button of plan[1].targets[0]",
        ),
    ];
    for (name, overlay, want) in cases {
        let m = with(vec![
            hint(Some("button"), &["continue in browser"]),
            overlay,
        ]);
        let got = check(&m, &plan()).expect_err(name);
        let want = want.replace("interruptions[0]", "interruptions[1]");
        assert!(got.contains(&want), "{name}: {got}");
    }
}
