#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};

use super::view::{merge, tree_time};
use super::*;

const SITE: &str = "http://127.0.0.1:9/";

fn event(v: Value) -> Moment {
    Moment::Event(v)
}

fn started() -> Moment {
    event(json!({"type": "run_started", "start_url": format!("{SITE}account")}))
}

/// A page tree: a heading and these lines.
fn page(heading: &str, lines: &[&str]) -> Moment {
    let mut tree = format!("- main [ref=e1]:\n  - heading \"{heading}\" [level=1] [ref=e2]\n");
    for line in lines {
        tree.push_str(&format!("  {line}\n"));
    }
    Moment::Tree(tree)
}

fn click(target: &str) -> Moment {
    event(json!({"type": "tool_call", "tool": "browser_click", "target": target}))
}

fn result(path: &str) -> Moment {
    event(json!({"type": "tool_result", "ok": true, "url": format!("{SITE}{path}")}))
}

fn yes() -> Moment {
    event(json!({"type": "approval_answered", "answer": {"answer": "approved"}}))
}

fn finished(reason: &str, error: Option<&str>) -> Moment {
    event(json!({"type": "finished", "result": {"reason": reason, "error": error}}))
}

fn observed(kind: &str, target: &str, detail: &str) -> Moment {
    event(json!({"type": "observed", "turn": 2, "kind": kind, "target": target, "detail": detail}))
}

fn account() -> Vec<Moment> {
    vec![
        started(),
        page(
            "Account",
            &[
                "- link \"Change plan\" [ref=e3]",
                "- button \"Cancel Membership\" [ref=e4]",
            ],
        ),
        click("button \"Cancel Membership\""),
    ]
}

/// The final page, the yes, the commit and the done page.
fn finish(from: &str) -> Vec<Moment> {
    vec![
        page(
            "Finish your cancellation",
            &["- button \"Finish Cancellation\" [ref=e5]"],
        ),
        result(from),
        yes(),
        click("button \"Finish Cancellation\""),
        page(
            "Your membership has been cancelled",
            &["- button \"Restart Membership\" [ref=e6]"],
        ),
        result("cancelled"),
        finished("completed", None),
    ]
}

fn run(parts: &[Vec<Moment>]) -> RecordView {
    RecordView {
        moments: parts.concat(),
    }
}

fn offer(way_on: &str) -> Vec<Moment> {
    vec![
        page(
            "Before you go",
            &[
                "- paragraph [ref=e7]: \"Stay for 50% off.\"",
                "- button \"Accept Offer\" [ref=e8]",
                &format!("- link \"{way_on}\" [ref=e9]"),
            ],
        ),
        result("cancel"),
        click(&format!("link \"{way_on}\"")),
    ]
}

fn found(record: &RecordView) -> Vec<(Kind, String)> {
    audit(record)
        .findings
        .into_iter()
        .map(|f| (f.kind, f.evidence))
        .collect()
}

fn kinds(expected: &[(Kind, &str)]) -> Vec<(Kind, String)> {
    expected
        .iter()
        .map(|(k, e)| (*k, (*e).to_owned()))
        .collect()
}

/// A table row: what the run was, its record, the findings expected.
type Case = (&'static str, RecordView, Vec<(Kind, String)>);

#[test]
fn findings_table() {
    let survey = |lines: &[&str], extra: Vec<Moment>| {
        let mut all = vec![page("Why are you leaving?", lines), result("survey")];
        all.extend(extra);
        all.push(event(
            json!({"type": "tool_call", "tool": "browser_select_option",
                               "target": "combobox \"Reason for leaving\""}),
        ));
        all.push(result("survey"));
        all.push(click("button \"Continue\""));
        all
    };
    let reason = "- combobox \"Reason for leaving\" [ref=e10]:\n    - option \"Other\"";
    let cases: Vec<Case> = vec![
        ("a clean flow", run(&[account(), finish("confirm")]), vec![]),
        (
            "an offer the run went past",
            run(&[account(), offer("Continue to Cancel"), finish("confirm")]),
            kinds(&[(Kind::SaveOffer, "button \"Accept Offer\"")]),
        ),
        (
            "an offer and a shaming way on",
            run(&[
                account(),
                offer("No, I don't want to save money"),
                finish("confirm"),
            ]),
            kinds(&[
                (Kind::SaveOffer, "button \"Accept Offer\""),
                (
                    Kind::Confirmshaming,
                    "link \"No, I don't want to save money\"",
                ),
            ]),
        ),
        (
            "shaming in French, with a typographic apostrophe",
            run(&[
                account(),
                offer("Non, je ne veux pas faire d’économies"),
                finish("confirm"),
            ]),
            kinds(&[
                (Kind::SaveOffer, "button \"Accept Offer\""),
                (
                    Kind::Confirmshaming,
                    "link \"Non, je ne veux pas faire d’économies\"",
                ),
            ]),
        ),
        (
            "shaming in German",
            run(&[
                account(),
                offer("Nein, ich will kein Geld sparen"),
                finish("confirm"),
            ]),
            kinds(&[
                (Kind::SaveOffer, "button \"Accept Offer\""),
                (
                    Kind::Confirmshaming,
                    "link \"Nein, ich will kein Geld sparen\"",
                ),
            ]),
        ),
        (
            "the shaming flow's own offer words",
            run(&[
                account(),
                vec![
                    page(
                        "Before you go",
                        &[
                            "- button \"Yes, keep my discount\" [ref=e8]",
                            "- button \"No, I don't want to save money\" [ref=e9]",
                        ],
                    ),
                    result("cancel"),
                    click("button \"No, I don't want to save money\""),
                ],
                finish("confirm"),
            ]),
            kinds(&[
                (Kind::SaveOffer, "button \"Yes, keep my discount\""),
                (
                    Kind::Confirmshaming,
                    "button \"No, I don't want to save money\"",
                ),
            ]),
        ),
        (
            "a plain decline is no shaming",
            run(&[account(), offer("No thanks"), finish("confirm")]),
            kinds(&[(Kind::SaveOffer, "button \"Accept Offer\"")]),
        ),
        (
            "an offer the run took is not one it went past",
            run(&[
                account(),
                vec![
                    page("Before you go", &["- button \"Accept Offer\" [ref=e8]"]),
                    result("cancel"),
                    click("button \"Accept Offer\""),
                    page("Offer accepted", &[]),
                    result("offer/accepted"),
                    finished("completed", Some("gave up")),
                ],
            ]),
            vec![],
        ),
        (
            "the account page's own controls are not in the flow",
            run(&[
                vec![
                    started(),
                    page("Account", &["- link \"Switch to Basic\" [ref=e3]"]),
                    click("link \"Plan details\""),
                ],
                finish("plan"),
            ]),
            vec![],
        ),
        (
            "a run that stopped on the offer did not go past it",
            run(&[
                account(),
                vec![
                    page("Before you go", &["- button \"Accept Offer\" [ref=e8]"]),
                    result("cancel"),
                    finished("max_turns_exceeded", None),
                ],
            ]),
            vec![],
        ),
        (
            "a pause checked before anyone touched it",
            run(&[
                account(),
                vec![
                    page(
                        "Pause instead?",
                        &[
                            "- radio \"Pause for 3 months instead\" [checked] [ref=e11]",
                            "- radio \"Cancel my subscription\" [ref=e12]",
                            "- button \"Continue\" [ref=e13]",
                        ],
                    ),
                    result("pause"),
                    click("radio \"Cancel my subscription\""),
                    page(
                        "Pause instead?",
                        &[
                            "- radio \"Pause for 3 months instead\" [ref=e11]",
                            "- radio \"Cancel my subscription\" [checked] [ref=e12]",
                        ],
                    ),
                    result("pause"),
                    click("button \"Continue\""),
                ],
                finish("confirm"),
            ]),
            kinds(&[
                (Kind::SaveOffer, "radio \"Pause for 3 months instead\""),
                (Kind::Preselected, "radio \"Pause for 3 months instead\""),
            ]),
        ),
        (
            "checked by the run itself is not pre-selected",
            run(&[
                account(),
                vec![
                    page(
                        "Anything else?",
                        &["- checkbox \"Keep my watchlist\" [ref=e11]"],
                    ),
                    result("extras"),
                    click("checkbox \"Keep my watchlist\""),
                    page(
                        "Anything else?",
                        &["- checkbox \"Keep my watchlist\" [checked] [ref=e11]"],
                    ),
                    result("extras"),
                    click("button \"Continue\""),
                ],
                finish("confirm"),
            ]),
            vec![],
        ),
        (
            "a control the probe found hard to see",
            run(&[
                account(),
                vec![
                    page("Before you go", &["- link \"Cancel anyway\" [ref=e9]"]),
                    result("cancel"),
                    observed("low_contrast", "link \"Cancel anyway\"", "contrast 1.3:1"),
                    observed("something_new", "link \"Cancel anyway\"", ""),
                    click("link \"Cancel anyway\""),
                ],
                finish("confirm"),
            ]),
            kinds(&[(Kind::HardToSee, "link \"Cancel anyway\"")]),
        ),
        (
            "a survey the page said was required",
            run(&[
                account(),
                survey(
                    &[reason, "- paragraph [ref=e11]: Please answer to continue."],
                    vec![],
                ),
                finish("confirm"),
            ]),
            kinds(&[(Kind::CompulsorySurvey, "combobox \"Reason for leaving\"")]),
        ),
        (
            "a required field the probe measured",
            run(&[
                account(),
                survey(
                    &[reason],
                    vec![observed("required", "combobox \"Reason for leaving\"", "")],
                ),
                finish("confirm"),
            ]),
            kinds(&[(Kind::CompulsorySurvey, "combobox \"Reason for leaving\"")]),
        ),
        (
            "a survey nobody said was required",
            run(&[account(), survey(&[reason], vec![]), finish("confirm")]),
            vec![],
        ),
        (
            "cancellable only by phone or chat",
            run(&[
                vec![
                    started(),
                    page("Account", &["- link \"Chat with us\" [ref=e3]"]),
                ],
                vec![finished(
                    "cannot_cancel_here",
                    Some("cancellation is by chat or phone only: call 1-800-698-4637"),
                )],
            ]),
            kinds(&[(
                Kind::PhoneOrChatOnly,
                "cancellation is by chat or phone only: call 1-800-698-4637",
            )]),
        ),
        (
            "billed through another company is not phone only",
            run(&[vec![
                started(),
                page("Account", &[]),
                finished(
                    "cannot_cancel_here",
                    Some(
                        "billed through your mobile carrier (Prime came with your phone plan): cancel it with that carrier",
                    ),
                ),
            ]]),
            vec![],
        ),
        (
            "the done section of a single-page app is after the commit",
            run(&[
                account(),
                vec![
                    page("Cancel?", &["- button \"Confirm cancellation\" [ref=e5]"]),
                    result("cancel"),
                    yes(),
                    click("button \"Confirm cancellation\""),
                    page("Cancelled", &["- button \"Restart subscription\" [ref=e6]"]),
                    result("cancel"),
                    finished("completed", None),
                ],
            ]),
            vec![],
        ),
    ];
    for (name, record, expected) in cases {
        assert_eq!(found(&record), expected, "{name}");
    }
}

#[test]
fn kinds_are_named_in_json_as_they_say() {
    for kind in [
        Kind::SaveOffer,
        Kind::Confirmshaming,
        Kind::Preselected,
        Kind::HardToSee,
        Kind::CompulsorySurvey,
        Kind::PhoneOrChatOnly,
    ] {
        assert_eq!(serde_json::to_value(kind).unwrap(), kind.id());
        assert!(!kind.rules().is_empty());
    }
}

#[test]
fn the_screens_before_the_commit_are_listed_by_their_headings() {
    let audit = audit(&run(&[
        account(),
        offer("Continue to Cancel"),
        finish("confirm"),
    ]));
    let names: Vec<&str> = audit.screens.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["Account", "Before you go", "Finish your cancellation"]
    );
    assert!(audit.committed);
    assert_eq!(audit.screens[1].url, format!("{SITE}cancel"));
}

#[test]
fn every_finding_names_its_rules_and_a_sentence() {
    let audit = audit(&run(&[
        account(),
        offer("No, I don't want to save money"),
        finish("confirm"),
    ]));
    let offer = &audit.findings[0];
    assert_eq!(offer.rules, [Rule::CaliforniaArl, Rule::FtcAmazon2025]);
    assert_eq!(offer.screen, "Before you go");
    assert!(offer.sentence().contains("button \"Accept Offer\""));
    for rule in [
        Rule::Rosca,
        Rule::FtcAmazon2025,
        Rule::CaliforniaArl,
        Rule::UkDmcc,
    ] {
        assert!(!rule.name().is_empty() && rule.says().ends_with('.'));
    }
}

#[test]
fn without_saved_trees_the_page_the_model_saw_is_read() {
    let rest = json!({"page": {"url": format!("{SITE}pause"), "title": "Pause"},
    "elements": [
        {"ref": "@e0", "role": "heading", "name": "Pause instead?"},
        {"ref": "@e1", "role": "radio", "name": "Pause for 3 months instead", "state": ["checked"]},
        {"ref": "@e2", "role": "radio", "name": "Cancel my subscription"}
    ]})
    .to_string();
    // The host's view starts with its `snapshot_id` (`compact/view.rs`);
    // `json!` would sort the keys, so it is put first by hand.
    let compact = format!("{{\"snapshot_id\":\"s2\",{}", &rest[1..]);
    let record = run(&[
        vec![
            started(),
            click("link \"Cancel subscription\""),
            event(
                json!({"type": "tool_result", "ok": true, "url": format!("{SITE}pause"),
                         "page": format!("{compact}\nA confirm dialog is open: \"x\".")}),
            ),
            click("radio \"Cancel my subscription\""),
        ],
        finish("confirm"),
    ]);
    assert_eq!(
        found(&record),
        kinds(&[
            (Kind::SaveOffer, "radio \"Pause for 3 months instead\""),
            (Kind::Preselected, "radio \"Pause for 3 months instead\""),
        ])
    );
}

#[test]
fn saved_trees_go_to_the_page_their_action_led_to() {
    let at = |s: &str| chrono::DateTime::parse_from_rfc3339(s).unwrap().to_utc();
    let events = vec![
        (
            Some(at("2026-11-25T17:43:56.000Z")),
            json!({"type": "run_started"}),
        ),
        (
            Some(at("2026-11-25T17:44:00.400Z")),
            json!({"type": "tool_call"}),
        ),
        (
            Some(at("2026-11-25T17:44:01.090Z")),
            json!({"type": "tool_result"}),
        ),
    ];
    let trees = vec![
        (
            tree_time("page-2026-11-25T17-44-00-207Z.yml").unwrap(),
            "start".to_owned(),
        ),
        (
            tree_time("page-2026-11-25T17-44-01-049Z.yml").unwrap(),
            "after".to_owned(),
        ),
        (
            tree_time("page-2026-11-25T17-44-09-000Z.yml").unwrap(),
            "late".to_owned(),
        ),
    ];
    let order: Vec<String> = merge(events, trees)
        .moments
        .iter()
        .map(|m| match m {
            Moment::Event(e) => e["type"].as_str().unwrap().to_owned(),
            Moment::Tree(t) => t.clone(),
        })
        .collect();
    assert_eq!(
        order,
        [
            "run_started",
            "start",
            "tool_call",
            "after",
            "tool_result",
            "late"
        ]
    );
    assert_eq!(tree_time("page-x.yml"), None);
    assert_eq!(tree_time("playwright-mcp.json"), None);
}

#[test]
fn a_record_on_disk_is_read_with_its_saved_trees() {
    let root = tempfile::tempdir().unwrap();
    let mut record = crate::record::RunRecord::create(root.path(), "practice").unwrap();
    for moment in run(&[account(), offer("Continue to Cancel"), finish("confirm")]).moments {
        if let Moment::Event(e) = moment {
            record.append(&e).unwrap();
        }
    }
    // One tree saved after the last event: it belongs to the last page.
    let browser = record.dir().join(BROWSER_DIR);
    std::fs::create_dir_all(&browser).unwrap();
    std::fs::write(
        browser.join("page-2999-01-01T00-00-00-000Z.yml"),
        "- heading \"Your membership has been cancelled\" [level=1] [ref=e1]\n",
    )
    .unwrap();
    let view = RecordView::read(record.dir()).unwrap();
    assert!(matches!(view.moments.last(), Some(Moment::Tree(_))));
    // Without the trees the offer page's controls are unknown: the events
    // alone carry no page, and the audit says nothing it did not see.
    assert_eq!(audit(&view).findings, []);
    assert_eq!(audit(&view).screens.len(), 3);
}

/// A plan that does not read the page's language asks early, at the way
/// into the flow; the obstacles after that yes and before the last one
/// are still in the way.
#[test]
fn an_early_yes_does_not_end_the_flow() {
    let early = vec![
        started(),
        page("Account", &["- button \"Cancel Membership\" [ref=e4]"]),
        yes(),
        click("button \"Cancel Membership\""),
    ];
    let record = run(&[early, offer("Continue to Cancel"), finish("confirm")]);
    let audit = audit(&record);
    assert_eq!(
        audit.findings.iter().map(|f| f.kind).collect::<Vec<_>>(),
        [Kind::SaveOffer]
    );
    let names: Vec<&str> = audit.screens.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.last(), Some(&"Finish your cancellation"), "{names:?}");
}
