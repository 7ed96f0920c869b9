#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use crate::browser::parse_tree;
use crate::safety::RefusalCode;

fn page(yaml: &str) -> Snapshot {
    Snapshot {
        url: "http://127.0.0.1:1/account".into(),
        title: "Account".into(),
        content: yaml.to_owned(),
        elements: parse_tree(yaml),
        ..Snapshot::default()
    }
}

const ACCOUNT: &str = r#"- generic [ref=e1] [box=0,0,1280,700]:
  - heading "Account" [level=1] [ref=e2] [box=0,0,200,40]
  - textbox "Email" [ref=e3] [box=0,50,200,20]: old
  - combobox "Reason" [ref=e4] [box=0,80,200,20]:
    - option "Too expensive" [selected]
    - option "Other"
  - button "Locked" [disabled] [ref=e5] [box=0,110,100,20]
  - button "Cancel Membership" [ref=e6] [box=0,140,100,20]
  - button "Zero" [ref=e9] [box=0,170,0,0]
  - dialog "Cookies" [ref=e7] [box=0,130,1280,40]:
    - button "Accept" [ref=e8] [box=0,135,100,20]
"#;

fn toolset_on(yaml: &str) -> (CompactToolset, Snapshot, Value) {
    let mut toolset = CompactToolset::new(false);
    let snapshot = page(yaml);
    let text = toolset.observe(&snapshot);
    (toolset, snapshot, serde_json::from_str(&text).unwrap())
}

fn ref_of(view: &Value, name: &str) -> String {
    view["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {view}"))["ref"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn code(result: Result<BrowserAction, Refusal>) -> &'static str {
    match result {
        Ok(_) => "ok",
        Err(r) => r.code.as_str(),
    }
}

#[test]
fn translations_and_refusals_table() {
    let (toolset, snapshot, view) = toolset_on(ACCOUNT);
    let r = |name: &str| ref_of(&view, name);
    let cases: Vec<(&str, Value, &str)> = vec![
        (CLICK, json!({"ref": r("Accept")}), "ok"),
        (CLICK, json!({"ref": r("Locked")}), "element_disabled"),
        (
            CLICK,
            json!({"ref": r("Cancel Membership")}),
            "element_obscured",
        ),
        (CLICK, json!({"ref": r("Zero")}), "element_not_visible"),
        (CLICK, json!({"ref": "@e99"}), "ref_invalid"),
        (CLICK, json!({"ref": "e6"}), "invalid_params"),
        (FILL, json!({"ref": r("Email"), "value": "x"}), "ok"),
        (
            FILL,
            json!({"ref": r("Accept"), "value": "x"}),
            "action_failed",
        ),
        (SELECT, json!({"ref": r("Reason"), "value": "other"}), "ok"),
        (
            SELECT,
            json!({"ref": r("Email"), "value": "x"}),
            "action_failed",
        ),
        (SCROLL, json!({}), "invalid_params"),
        (SCROLL, json!({"amount": 100}), "invalid_params"),
        (SCROLL, json!({"direction": "down"}), "ok"),
        (
            SCROLL,
            json!({"ref": r("Accept"), "direction": "sideways"}),
            "ok",
        ),
        (SCROLL, json!({"ref": "@e99"}), "ref_invalid"),
        (GET_SNAPSHOT, json!({}), "ok"),
        (
            "browser_evaluate",
            json!({"function": "() => 1"}),
            "invalid_params",
        ),
    ];
    for (tool, args, want) in cases {
        assert_eq!(
            code(toolset.translate(tool, &args, &snapshot)),
            want,
            "{tool} {args}"
        );
    }
}

#[test]
fn calls_become_playwright_calls_on_the_resolved_element() {
    let (toolset, snapshot, view) = toolset_on(ACCOUNT);
    let click = toolset
        .translate(CLICK, &json!({"ref": ref_of(&view, "Accept")}), &snapshot)
        .unwrap();
    assert_eq!(click.mcp_tool.as_deref(), Some("browser_click"));
    assert_eq!(click.mcp_args["target"], "e8");
    assert_eq!(click.target.unwrap().name, "Accept");
    assert!(!click.read_only);

    let email = ref_of(&view, "Email");
    let fill = |extra: Value| {
        let mut args = json!({"ref": email, "value": "new"});
        args.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        toolset.translate(FILL, &args, &snapshot).unwrap().mcp_args["text"].clone()
    };
    assert_eq!(fill(json!({})), "new");
    assert_eq!(fill(json!({"clear_first": false})), "oldnew");

    let select = toolset
        .translate(
            SELECT,
            &json!({"ref": ref_of(&view, "Reason"), "value": "OTHER"}),
            &snapshot,
        )
        .unwrap();
    assert_eq!(select.mcp_args["values"], json!(["Other"]));

    let scroll = toolset
        .translate(SCROLL, &json!({"direction": "up", "amount": 50}), &snapshot)
        .unwrap();
    assert_eq!(scroll.mcp_tool.as_deref(), Some("browser_evaluate"));
    assert!(scroll.read_only);
    let script = scroll.mcp_args["function"].as_str().unwrap();
    assert!(script.contains("top: -50"), "{script}");
    assert!(script.contains("viewport"), "{script}");
}

#[test]
fn refs_live_for_one_snapshot() {
    let (mut toolset, _, first) = toolset_on(ACCOUNT);
    let last = first["elements"].as_array().unwrap().len() - 1;
    let stale = format!("@e{last}");
    let next = page(
        "- heading \"Cancelled\" [level=1] [ref=e20] [box=0,0,10,10]\n- link \"Home\" [ref=e21] [box=0,20,10,10]",
    );
    let second: Value = serde_json::from_str(&toolset.observe(&next)).unwrap();
    assert_ne!(first["snapshot_id"], second["snapshot_id"]);
    let refused = toolset
        .translate(CLICK, &json!({"ref": stale}), &next)
        .unwrap_err();
    assert_eq!(refused.code, RefusalCode::RefInvalid);
    assert!(refused.message.contains("@e0..@e1"), "{}", refused.message);
    // The same number in the new snapshot names the new page's element.
    let home = toolset
        .translate(CLICK, &json!({"ref": "@e1"}), &next)
        .unwrap();
    assert_eq!(home.target.unwrap().name, "Home");
}

#[test]
fn every_result_has_the_contract_shape() {
    let (toolset, _, _) = toolset_on(ACCOUNT);
    let page = r#"{"snapshot_id":"s","elements":[]}"#;
    let done = crate::browser::ToolOutput::default();
    let failed = BrowserError::Tool {
        tool: "browser_click".into(),
        message: "TimeoutError: Timeout 5000ms exceeded.\n  - element is not enabled".into(),
    };
    let rejected = Refusal::new(RefusalCode::HumanRejected, "User feedback: keep the plan");
    for (outcome, success, error) in [
        (Outcome::Done(&done), true, Value::Null),
        (Outcome::Failed(&failed), false, json!("element_disabled")),
        (Outcome::Refused(&rejected), false, json!("human_rejected")),
    ] {
        let text = toolset.report(&outcome, page);
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["success"], success, "{text}");
        assert_eq!(v["error"], error, "{text}");
        assert_eq!(v["snapshot"]["snapshot_id"], "s", "{text}");
        if let Some(code) = error.as_str() {
            assert!(tools::ERROR_CODES.contains(&code));
        }
    }
    let v: Value =
        serde_json::from_str(&toolset.report(&Outcome::Refused(&rejected), page)).unwrap();
    assert_eq!(v["message"], "User feedback: keep the plan");
    let v: Value =
        serde_json::from_str(&toolset.unverified("Cannot verify success.", page)).unwrap();
    assert_eq!(v["acknowledged"], false);
    assert_eq!(v["snapshot"]["snapshot_id"], "s");
}

#[test]
fn old_snapshots_shrink_to_their_id() {
    let (mut toolset, snapshot, _) = toolset_on(ACCOUNT);
    let page_text = toolset.observe(&snapshot);
    let result = toolset.report(
        &Outcome::Done(&crate::browser::ToolOutput::default()),
        &page_text,
    );
    let small = toolset.page_apart(&result).unwrap().0;
    assert!(small.len() < result.len() / 3, "{small}");
    let v: Value = serde_json::from_str(&small).unwrap();
    assert_eq!(v["success"], true);
    let id = serde_json::from_str::<Value>(&page_text).unwrap()["snapshot_id"].clone();
    assert_eq!(
        v["snapshot"],
        format!("{} {SUPERSEDED}", id.as_str().unwrap())
    );
    assert_eq!(toolset.page_apart(&small), None, "shrinks once");
    let goal = format!("Goal: cancel\n\nCurrent page:\n{page_text}");
    assert!(
        toolset
            .page_apart(&goal)
            .unwrap()
            .0
            .starts_with("Goal: cancel")
    );
}

#[test]
fn the_offline_policy_speaks_in_view_refs() {
    let (toolset, snapshot, view) = toolset_on(ACCOUNT);
    let accept = snapshot.element("e8").unwrap();
    let (tool, args) = toolset.offline_call(HintAction::Click, accept, None);
    assert_eq!(tool, CLICK);
    assert_eq!(args["ref"], ref_of(&view, "Accept"));
    let (tool, args) = toolset.offline_call(
        HintAction::Select,
        snapshot.element("e4").unwrap(),
        Some("Other"),
    );
    assert_eq!((tool.as_str(), &args["value"]), (SELECT, &json!("Other")));
}

#[test]
fn tools_are_the_seven_of_seed_002_and_the_dialog_answer() {
    let mut names: Vec<String> = tools::specs().into_iter().map(|s| s.name).collect();
    names.extend(
        crate::agent::virtual_tools::specs()
            .into_iter()
            .map(|s| s.name),
    );
    assert_eq!(
        names,
        [
            "get_snapshot",
            "browser_click",
            "browser_fill",
            "browser_select",
            "browser_scroll",
            "browser_handle_dialog",
            "complete_task",
            "request_human_approval"
        ]
    );
    // Each says what it is for in a sentence: they are resent every turn,
    // and the schema shows the arguments. That refs last one page, and that off-screen
    // controls can be clicked, the system prompt says once (its own test);
    // errors explain themselves when they happen.
    for spec in tools::specs() {
        assert!(spec.description.len() < 120, "{} is long", spec.name);
    }
    for spec in crate::agent::virtual_tools::specs() {
        assert!(spec.description.len() < 200, "{} is long", spec.name);
    }
}
