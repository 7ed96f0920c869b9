//! Table tests of the one safety decision.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use super::*;
use crate::plugin::{HintAction, PlanStep, TargetHint};

const ON: Policy = Policy { checkpoints: true };
const OFF: Policy = Policy { checkpoints: false };
const SITE: &str = "https://www.example.com/account";

fn origins() -> Vec<String> {
    vec!["https://www.example.com".into()]
}

fn page(url: &str, elements: Vec<Element>) -> Snapshot {
    Snapshot {
        url: url.into(),
        title: "Account".into(),
        elements,
        ..Snapshot::default()
    }
}

fn el(role: &str, name: &str) -> Element {
    Element {
        reference: Some("e1".into()),
        role: role.into(),
        name: name.into(),
        ..Element::default()
    }
}

fn shows(text: &str) -> ElementFacts {
    ElementFacts {
        visible_text: text.into(),
        tag: "button".into(),
        ..ElementFacts::default()
    }
}

fn plan() -> Vec<PlanStep> {
    let hint = |p: &str| TargetHint {
        role: None,
        name_patterns: vec![p.into()],
        action: HintAction::Click,
        value: None,
        optional: false,
    };
    vec![
        PlanStep {
            description: "open the flow".into(),
            done_when: String::new(),
            targets: vec![hint("cancel membership"), hint("too expensive")],
            irreversible: false,
        },
        PlanStep {
            description: "finish".into(),
            done_when: String::new(),
            targets: vec![hint("finish cancellation")],
            irreversible: true,
        },
    ]
}

/// A click on `target` (whose DOM shows `dom`) on `page`.
fn click<'a>(
    origins: &'a [String],
    page: &'a Snapshot,
    target: Option<&'a Element>,
    dom: Option<&'a ElementFacts>,
    plan: &'a [PlanStep],
) -> Facts<'a> {
    Facts {
        tool: mcp::CLICK,
        read_only: false,
        target,
        dom,
        carried: Vec::new(),
        navigate_to: None,
        goes_back: false,
        dialog: None,
        page,
        allowed_origins: origins,
        site: None,
        start_url: SITE,
        service: "Example",
        plan: PlanKnowledge::Marked(plan),
        commit_urls: &[],
        plugin: PluginAnswer::NoObjection,
        commit_page: None,
        dismissal: false,
    }
}

/// What a decision was, without its words.
fn kind(d: &Decision) -> &'static str {
    match d {
        Decision::Proceed { .. } => "proceed",
        Decision::Ask { .. } => "ask",
        Decision::Refuse { code, .. } => code.as_str(),
    }
}

#[test]
fn decision_table() {
    let o = origins();
    let steps = plan();
    let account = page(
        SITE,
        vec![el("button", "Cancel Membership"), el("link", "Help")],
    );
    let outside = page("https://elsewhere.example.org/", vec![]);
    let cancel = el("button", "Cancel Membership");
    let cancel_dom = shows("Cancel Membership");
    let finish = el("button", "Finish Cancellation");
    let finish_dom = shows("Finish Cancellation");
    let back = el("button", "Go back");
    let help = el("link", "Help");
    let help_dom = shows("Help");
    let offer = el("button", "Accept offer");
    let offer_dom = shows("Accept offer");
    let dropdown = el("combobox", "How did you hear about us");
    let dropdown_dom = shows("Friends");
    let survey = el("radio", "Too expensive");
    let survey_dom = shows("Too expensive");
    let other_reason = el("radio", "Something else");
    let other_reason_dom = shows("Something else");
    let yes_radio = el("radio", "Yes, cancel my membership");
    let yes_radio_dom = shows("Yes, cancel my membership");
    let continue_link = el("link", "Continue to cancel");
    let continue_dom = shows("Continue to cancel");
    let base = |t, d| click(&o, &account, t, d, &steps);
    let commit_urls = ["*/commit*".to_owned()];
    let to_commit = ElementFacts {
        href: Some("https://www.example.com/commit?x".into()),
        ..help_dom.clone()
    };
    let commits = CommitPage {
        because_of: "button \"Finish Cancellation\"".into(),
        reason: "final".into(),
        final_step: true,
    };
    let cases: Vec<(&str, Facts, Policy, &str)> = vec![
        (
            "plan-named first step",
            base(Some(&cancel), Some(&cancel_dom)),
            ON,
            "proceed",
        ),
        (
            "an ordinary link",
            base(Some(&help), Some(&help_dom)),
            ON,
            "proceed",
        ),
        (
            "the final step",
            base(Some(&finish), Some(&finish_dom)),
            ON,
            "ask",
        ),
        (
            "a lying accessible name",
            base(Some(&back), Some(&finish_dom)),
            ON,
            "ask",
        ),
        (
            "a billing change",
            base(Some(&offer), Some(&offer_dom)),
            ON,
            "ask",
        ),
        (
            "a dropdown shows its value, not its label",
            base(Some(&dropdown), Some(&dropdown_dom)),
            ON,
            "proceed",
        ),
        ("facts unread", base(Some(&help), None), ON, "ask"),
        (
            "no marked plan: a weak first step only opens the flow (the guard holds what it sends)",
            Facts {
                plan: PlanKnowledge::None,
                ..base(Some(&cancel), Some(&cancel_dom))
            },
            ON,
            "proceed",
        ),
        (
            "a weak step the plan does not name, as a link",
            base(Some(&continue_link), Some(&continue_dom)),
            ON,
            "proceed",
        ),
        (
            "plugin asks",
            Facts {
                plugin: PluginAnswer::Ask("final step".into()),
                ..base(Some(&help), Some(&help_dom))
            },
            ON,
            "ask",
        ),
        (
            "plugin failed",
            Facts {
                plugin: PluginAnswer::Failed("boom".into()),
                ..base(Some(&help), Some(&help_dom))
            },
            ON,
            "ask",
        ),
        (
            "on a commit page an ordinary link asks",
            Facts {
                commit_page: Some(&commits),
                ..base(Some(&help), Some(&help_dom))
            },
            ON,
            "ask",
        ),
        (
            "on a commit page a plan-named survey answer does not",
            Facts {
                commit_page: Some(&commits),
                ..base(Some(&survey), Some(&survey_dom))
            },
            ON,
            "proceed",
        ),
        (
            "on a commit page any survey answer does not: it sends nothing",
            Facts {
                commit_page: Some(&commits),
                ..base(Some(&other_reason), Some(&other_reason_dom))
            },
            ON,
            "proceed",
        ),
        (
            "on a commit page a dropdown's answer does not",
            Facts {
                tool: mcp::SELECT_OPTION,
                commit_page: Some(&commits),
                ..base(Some(&dropdown), Some(&dropdown_dom))
            },
            ON,
            "proceed",
        ),
        (
            "on a commit page an answer that reads as the commit asks",
            Facts {
                commit_page: Some(&commits),
                ..base(Some(&yes_radio), Some(&yes_radio_dom))
            },
            ON,
            "ask",
        ),
        (
            "a key press on a commit page",
            Facts {
                tool: mcp::PRESS_KEY,
                carried: vec!["Enter"],
                commit_page: Some(&commits),
                ..base(None, None)
            },
            ON,
            "ask",
        ),
        (
            "typing that says it cancels",
            Facts {
                tool: mcp::TYPE,
                carried: vec!["yes, cancel"],
                ..base(None, None)
            },
            ON,
            "ask",
        ),
        (
            "a link to a commit URL",
            Facts {
                commit_urls: &commit_urls,
                dom: Some(&to_commit),
                ..base(Some(&help), None)
            },
            ON,
            "ask",
        ),
        (
            "read-only never asks",
            Facts {
                read_only: true,
                plugin: PluginAnswer::NotAsked,
                ..base(Some(&finish), None)
            },
            ON,
            "proceed",
        ),
        (
            "checkpoints off",
            base(Some(&finish), Some(&finish_dom)),
            OFF,
            "proceed",
        ),
        (
            "navigation to another site",
            Facts {
                tool: mcp::NAVIGATE,
                navigate_to: Some("https://evil.example.net/x"),
                ..base(None, None)
            },
            ON,
            "action_failed",
        ),
        (
            "navigation off-site even with checkpoints off",
            Facts {
                tool: mcp::NAVIGATE,
                navigate_to: Some("https://evil.example.net/x"),
                ..base(None, None)
            },
            OFF,
            "action_failed",
        ),
        (
            "navigation to a non-http URL",
            Facts {
                tool: mcp::NAVIGATE,
                navigate_to: Some("javascript:alert(1)"),
                ..base(None, None)
            },
            ON,
            "invalid_params",
        ),
        (
            "navigation back to the start",
            Facts {
                tool: mcp::NAVIGATE,
                navigate_to: Some(SITE),
                ..base(None, None)
            },
            ON,
            "proceed",
        ),
        (
            "navigation to an address no link on the page has",
            Facts {
                tool: mcp::NAVIGATE,
                navigate_to: Some("https://www.example.com/x/commit.html?token=1"),
                ..base(None, None)
            },
            ON,
            "ask",
        ),
        (
            "navigation to an address that says it cancels",
            Facts {
                tool: mcp::NAVIGATE,
                navigate_to: Some("https://www.example.com/cancel/confirm"),
                ..base(None, None)
            },
            ON,
            "ask",
        ),
        (
            "a change on a page outside the sites",
            Facts {
                page: &outside,
                ..base(Some(&help), Some(&help_dom))
            },
            ON,
            "action_failed",
        ),
        (
            "going back from outside is allowed",
            Facts {
                page: &outside,
                goes_back: true,
                tool: mcp::NAVIGATE_BACK,
                ..base(None, None)
            },
            ON,
            "proceed",
        ),
        (
            "accepting a dialog a commit opened",
            Facts {
                tool: mcp::HANDLE_DIALOG,
                dialog: Some(DialogFacts {
                    accept: true,
                    kind: "confirm",
                    message: "Are you sure?",
                    opened_by_commit: true,
                }),
                ..base(None, None)
            },
            ON,
            "ask",
        ),
        (
            "accepting a dialog that says it cancels",
            Facts {
                tool: mcp::HANDLE_DIALOG,
                dialog: Some(DialogFacts {
                    accept: true,
                    kind: "confirm",
                    message: "Yes, cancel my membership?",
                    opened_by_commit: false,
                }),
                ..base(None, None)
            },
            ON,
            "ask",
        ),
        (
            "dismissing any dialog",
            Facts {
                tool: mcp::HANDLE_DIALOG,
                dialog: Some(DialogFacts {
                    accept: false,
                    kind: "confirm",
                    message: "Are you sure?",
                    opened_by_commit: true,
                }),
                ..base(None, None)
            },
            ON,
            "proceed",
        ),
    ];
    for (name, facts, policy, want) in cases {
        assert_eq!(kind(&assess(&facts, policy)), want, "{name}");
    }
}

#[test]
fn the_prompt_shows_both_names_when_they_disagree() {
    let o = origins();
    let steps = plan();
    let p = page(SITE, vec![]);
    let target = el("button", "Close");
    let dom = shows("Download my data");
    let d = assess(&click(&o, &p, Some(&target), Some(&dom), &steps), ON);
    let Decision::Ask { reason } = d else {
        panic!("{d:?}")
    };
    assert!(
        reason.contains("Close") && reason.contains("Download my data"),
        "{reason}"
    );
}

#[test]
fn names_agree_table() {
    let cases = [
        ("Close", "×", false),
        ("Continue", "Continue", false),
        ("Cancel Membership", "cancel   membership", false),
        ("Next step", "Next", false),
        ("Go back", "Finish Cancellation", true),
        ("", "Finish Cancellation", false),
    ];
    for (name, text, want) in cases {
        assert_eq!(names_disagree(name, text), want, "{name:?} {text:?}");
    }
}

#[test]
fn glob_table() {
    let cases = [
        ("*/commit*", "https://a.b/commit.html", true),
        ("*/commit*", "https://a.b/x/commit?t=1", true),
        ("*/commit*", "https://a.b/account", false),
        ("https://a.b/cancel", "https://a.b/cancel", true),
        ("https://a.b/cancel", "https://a.b/cancel/x", false),
        ("*/api/*/cancel", "https://a.b/api/v1/cancel", true),
    ];
    for (pattern, url, want) in cases {
        assert_eq!(
            matching_pattern(&[pattern.to_owned()], url).is_some(),
            want,
            "{pattern} {url}"
        );
    }
}

#[test]
fn the_default_decision_is_to_ask() {
    assert!(matches!(Decision::default(), Decision::Ask { .. }));
}

/// The host's own press on an overlay's closing button: on a commit
/// page it goes through unasked only when it can neither submit a form nor
/// follow a link, and the guard then stops every post and navigation. An
/// escape test: a "Close" that submits, leaves, or reads like the final
/// button still asks.
#[test]
fn a_dismissal_on_a_commit_page_stays_in_place_or_asks() {
    let o = origins();
    let steps = plan();
    let p = page(SITE, vec![]);
    let commits = CommitPage {
        because_of: "button \"Finish Cancellation\"".into(),
        reason: "final".into(),
        final_step: true,
    };
    let close = el("button", "Close");
    let plain = shows("Close");
    let submits = ElementFacts {
        form_action: Some(format!("{SITE}/commit")),
        form_method: Some("post".into()),
        ..shows("Close")
    };
    let leaves = ElementFacts {
        href: Some("https://www.example.com/commit".into()),
        tag: "a".into(),
        ..shows("Close")
    };
    let hash = ElementFacts {
        href: Some(format!("{SITE}#")),
        tag: "a".into(),
        ..shows("Close")
    };
    let finish = el("button", "Finish Cancellation");
    let finish_dom = shows("Finish Cancellation");
    let cases = [
        ("plain button", &close, Some(&plain), true, "proceed"),
        (
            "the same press by a driver",
            &close,
            Some(&plain),
            false,
            "ask",
        ),
        ("submits a form", &close, Some(&submits), true, "ask"),
        ("follows a link away", &close, Some(&leaves), true, "ask"),
        ("a link to this page", &close, Some(&hash), true, "proceed"),
        ("facts unread", &close, None, true, "ask"),
        ("the final button", &finish, Some(&finish_dom), true, "ask"),
    ];
    for (what, target, dom, dismissal, want) in cases {
        let facts = Facts {
            commit_page: Some(&commits),
            dismissal,
            ..click(&o, &p, Some(target), dom, &steps)
        };
        assert_eq!(kind(&assess(&facts, ON)), want, "{what}");
        if dismissal {
            assert_eq!(
                unapproved_guard(&facts),
                GuardMode::Guarded {
                    hold_navigations: true,
                    step: None
                },
                "{what}"
            );
        }
    }
}

/// The plan never relaxes the guard (it once did: a survey step's
/// exemption let its form post the cancellation unasked). Whatever a step the
/// plan names sends is held for the person; only the step's own declared
/// harmless requests may pass (`step`), and never on a page that commits,
/// where navigations are held too.
#[test]
fn the_plan_never_relaxes_the_guard() {
    let o = origins();
    let steps = plan();
    let p = page(SITE, vec![]);
    let survey = el("radio", "Too expensive");
    let help = el("link", "Help");
    let commits = CommitPage {
        because_of: "button \"Finish Cancellation\"".into(),
        reason: "final".into(),
        final_step: true,
    };
    // A page that commits only because the plugin asks about something on
    // it: navigations are held for an answer there, which proceeds unasked.
    let asked_about = CommitPage {
        final_step: false,
        ..commits.clone()
    };
    let cases = [
        (&survey, None, false, Some(0)),
        (&survey, Some(&commits), true, None),
        (&survey, Some(&asked_about), true, None),
        (&help, None, false, None),
        (&help, Some(&commits), true, None),
        (&help, Some(&asked_about), false, None),
    ];
    for (target, commit_page, navigations, step) in cases {
        let facts = Facts {
            commit_page,
            ..click(&o, &p, Some(target), None, &steps)
        };
        assert_eq!(
            unapproved_guard(&facts),
            GuardMode::Guarded {
                hold_navigations: navigations,
                step
            },
            "{} {:?}",
            target.name,
            commit_page.is_some()
        );
    }
}

#[test]
fn the_model_never_types_into_a_password_field() {
    let o = origins();
    let steps = plan();
    let account = page(SITE, vec![]);
    let password_dom = ElementFacts {
        tag: "input".into(),
        input_type: Some("password".into()),
        ..shows("")
    };
    let text_dom = ElementFacts {
        tag: "input".into(),
        input_type: Some("text".into()),
        ..shows("")
    };
    let labelled = el("textbox", "Password");
    let unlabelled = el("textbox", "Account");
    // (tool, target, dom, carried, checkpoints, refused)
    let cases = [
        (
            mcp::TYPE,
            Some(&unlabelled),
            Some(&password_dom),
            "hunter2",
            true,
            true,
        ),
        (mcp::TYPE, Some(&labelled), None, "hunter2", false, true),
        (
            mcp::TYPE,
            Some(&labelled),
            Some(&text_dom),
            "hunter2",
            true,
            true,
        ),
        (mcp::PRESS_KEY, None, Some(&password_dom), "h", true, true),
        (
            mcp::PRESS_KEY,
            None,
            Some(&password_dom),
            "Enter",
            true,
            false,
        ),
        (
            mcp::TYPE,
            Some(&unlabelled),
            Some(&text_dom),
            "too expensive",
            true,
            false,
        ),
        (
            mcp::CLICK,
            Some(&labelled),
            Some(&password_dom),
            "",
            true,
            false,
        ),
    ];
    for (tool, target, dom, carried, checkpoints, refused) in cases {
        let mut facts = click(&o, &account, target, dom, &steps);
        facts.tool = tool;
        if !carried.is_empty() {
            facts.carried = vec![carried];
        }
        let decision = assess(&facts, Policy { checkpoints });
        assert_eq!(
            kind(&decision) == "action_failed",
            refused,
            "{tool} {carried:?} into {target:?}: {decision:?}"
        );
    }
}

/// A run with no plugin: its whole site is allowed; another site asks (a
/// billing provider is a legitimate place to go on), never silently; plain
/// http elsewhere and non-web addresses are refused as for any plugin.
#[test]
fn a_run_with_no_plugin_asks_before_another_site_table() {
    let o = origins();
    let steps = plan();
    let site = crate::plugin::generic::Generic {
        domain: Some("example.com".into()),
        paths: Vec::new(),
    };
    let help = el("link", "Help");
    let help_dom = shows("Help");
    let on_site = page(SITE, vec![el("link", "Help")]);
    let sub = page("https://billing.example.com/plan", vec![el("link", "Help")]);
    let paypal = page(
        "https://www.paypal.com/myaccount/autopay",
        vec![el("link", "Help")],
    );
    let plain = page("http://www.paypal.com/", vec![el("link", "Help")]);
    let local = page("http://127.0.0.1:9/billing.html", vec![el("link", "Help")]);
    let cases: Vec<(&str, &Snapshot, Option<&str>, bool, &str)> = vec![
        ("a page of the site", &on_site, None, true, "proceed"),
        ("a page on a subdomain", &sub, None, true, "proceed"),
        ("a billing provider's page", &paypal, None, true, "ask"),
        (
            "the same with a plugin: refused",
            &paypal,
            None,
            false,
            "action_failed",
        ),
        ("plain http elsewhere", &plain, None, true, "action_failed"),
        ("a practice site on this machine", &local, None, true, "ask"),
        // Allowed, and asked as any address typed rather than found is.
        (
            "navigating to a subdomain",
            &on_site,
            Some("https://help.example.com/x"),
            true,
            "ask",
        ),
        (
            "navigating to a billing provider",
            &on_site,
            Some("https://www.paypal.com/"),
            true,
            "ask",
        ),
        (
            "navigating to plain http elsewhere",
            &on_site,
            Some("http://www.paypal.com/"),
            true,
            "action_failed",
        ),
        (
            "navigating to a look-alike",
            &on_site,
            Some("https://example.com.evil.net/"),
            true,
            "ask",
        ),
        (
            "navigating to javascript:",
            &on_site,
            Some("javascript:alert(1)"),
            true,
            "invalid_params",
        ),
        (
            "navigating to file:",
            &on_site,
            Some("file:///etc/passwd"),
            true,
            "invalid_params",
        ),
    ];
    for (name, page, to, generic, want) in cases {
        let facts = Facts {
            tool: if to.is_some() {
                mcp::NAVIGATE
            } else {
                mcp::CLICK
            },
            target: to.is_none().then_some(&help),
            dom: to.is_none().then_some(&help_dom),
            navigate_to: to,
            site: generic.then_some(&site),
            ..click(&o, page, None, None, &steps)
        };
        let decision = assess(&facts, Policy { checkpoints: true });
        assert_eq!(kind(&decision), want, "{name}: {decision:?}");
        if let Decision::Ask { reason } = &decision {
            let leaving = !name.contains("subdomain");
            assert_eq!(
                reason.contains("PayPal's automatic payments"),
                leaving,
                "{name}: {reason}"
            );
        }
    }
}
