#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use super::*;
use crate::agent::toolset::compact::geometry;
use crate::browser::parse_tree;

fn page(yaml: &str) -> Snapshot {
    Snapshot {
        url: "http://127.0.0.1:1/account".into(),
        title: "Account".into(),
        content: yaml.to_owned(),
        elements: parse_tree(yaml),
        ..Snapshot::default()
    }
}

fn view_of(snapshot: &Snapshot, viewport_only: bool) -> View {
    let boxes = geometry::boxes(&snapshot.content);
    let pointer = geometry::pointer_refs(&snapshot.content);
    let layout = Layout {
        boxes: Some(&boxes),
        viewport: Some(Viewport {
            width: 1280,
            height: 720,
            scroll_x: 0,
            scroll_y: 0,
        }),
        pointer: &pointer,
        viewport_only,
    };
    build(snapshot, &layout, "id".into()).0
}

fn names(view: &View) -> Vec<String> {
    view.elements
        .iter()
        .map(|e| format!("{} {}", e.role, e.name))
        .collect()
}

fn fixture(name: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/playwright-mcp-0.0.83/snapshots");
    std::fs::read_to_string(dir.join(name)).unwrap()
}

#[test]
fn pruning_rules_table() {
    let yaml = r#"- generic [active] [ref=e1] [box=0,0,1280,700]:
  - banner [ref=e2] [box=0,0,1280,40]:
    - heading "Account" [level=1] [ref=e3] [box=0,0,200,40]
  - heading "Fine print" [level=4] [ref=e4] [box=0,50,200,20]
  - region "Membership" [ref=e5] [box=0,80,1280,300]:
    - heading "Membership" [level=2] [ref=e6] [box=0,80,200,30]
    - paragraph [ref=e7] [box=0,120,600,20]: Plan Premium
    - paragraph [ref=e8] [cursor=pointer] [box=0,150,600,20]: Click me
    - text: Email
    - textbox "Email" [ref=e9] [box=0,180,200,20]: a@b.c
    - combobox "Reason" [ref=e10] [box=0,210,200,20]:
      - option "Price" [selected]
      - option "Other"
    - checkbox "Keep toolset" [ref=e11] [box=0,240,20,20]
    - button "Hidden in a zero box"
    - separator [ref=e12] [box=0,270,1280,1]
  - alert [ref=e13] [box=0,400,400,30]: Could not load
  - img "Logo" [ref=e14] [box=0,500,50,50]
"#;
    let view = view_of(&page(yaml), true);
    assert_eq!(
        names(&view),
        [
            "heading Account",
            "region Membership",
            "heading Membership",
            "paragraph ",
            "textbox Email",
            "combobox Reason",
            "checkbox Keep toolset",
            "alert ",
        ]
    );
    let refs: Vec<&str> = view.elements.iter().map(|e| e.reference.as_str()).collect();
    assert_eq!(
        refs,
        ["@e0", "@e1", "@e2", "@e3", "@e4", "@e5", "@e6", "@e7"]
    );
    let combo = &view.elements[5];
    assert_eq!(combo.options, ["Price", "Other"]);
    assert_eq!(combo.value.as_deref(), Some("Price"));
    assert_eq!(view.elements[4].value.as_deref(), Some("a@b.c"));
    assert_eq!(view.elements[6].state, ["unchecked"]);
    assert_eq!(
        view.elements[1].children,
        ["@e2", "@e3", "@e4", "@e5", "@e6"]
    );
    assert_eq!(view.elements[0].bbox, Some([0, 0, 200, 40]));
    assert_eq!(view.elements[0].level, Some(1));
    assert_eq!(view.focused, None, "the focused root is not shown");
}

#[test]
fn states_table() {
    for (line, want) in [
        ("- button \"Go\" [disabled] [ref=e1]", vec!["disabled"]),
        ("- checkbox \"A\" [checked] [ref=e1]", vec!["checked"]),
        ("- checkbox \"A\" [checked=mixed] [ref=e1]", vec!["mixed"]),
        ("- checkbox \"A\" [ref=e1]", vec!["unchecked"]),
        ("- button \"Menu\" [expanded] [ref=e1]", vec!["expanded"]),
        ("- textbox \"Q\" [active] [ref=e1]", vec!["focused"]),
        ("- tab \"One\" [selected] [ref=e1]", vec!["selected"]),
        ("- link \"Home\" [ref=e1] [cursor=pointer]", vec![]),
    ] {
        let view = view_of(&page(line), true);
        assert_eq!(view.elements[0].state, want, "{line}");
    }
    let view = view_of(&page("- textbox \"Q\" [active] [ref=e1]"), true);
    assert_eq!(view.focused.as_deref(), Some("@e0"));
}

#[test]
fn names_are_cut_at_200_characters() {
    let long = "x".repeat(300);
    let exact = "y".repeat(200);
    let yaml = format!(
        "- button \"{long}\" [ref=e1]\n- button \"{exact}\" [ref=e2]\n- button \"é{long}\" [ref=e3]"
    );
    let view = view_of(&page(&yaml), true);
    assert_eq!(view.elements[0].name, format!("{}...", "x".repeat(200)));
    assert_eq!(view.elements[1].name, exact);
    assert_eq!(view.elements[2].name.chars().count(), 203);
}

#[test]
fn offscreen_controls_are_listed_without_boxes_and_text_is_counted() {
    let yaml = "- button \"Top\" [ref=e1] [box=8,10,100,20]\n\
                - button \"Edge\" [ref=e2] [box=8,710,100,20]\n\
                - heading \"Terms\" [level=2] [ref=e3] [box=8,2900,100,20]\n\
                - button \"Bottom\" [ref=e4] [box=8,3000,100,20]";
    let view = view_of(&page(yaml), true);
    assert_eq!(names(&view), ["button Top", "button Edge", "button Bottom"]);
    assert_eq!(view.elements[2].state, ["offscreen"]);
    assert_eq!(view.elements[2].bbox, None);
    assert!(view.elements[1].bbox.is_some());
    assert_eq!(view.offscreen, 1, "the heading below the fold");
    let wide = view_of(&page(yaml), false);
    assert_eq!(
        names(&wide),
        [
            "button Top",
            "button Edge",
            "heading Terms",
            "button Bottom"
        ]
    );
    assert_eq!(wide.elements[3].state, ["offscreen"]);
    assert_eq!(wide.elements[3].bbox, Some([8, 3000, 100, 20]));
    assert_eq!(wide.offscreen, 0);
}

#[test]
fn ranking_keeps_visible_then_by_role_then_document_order() {
    // 30 offscreen buttons first in the document, then 10 headings, 40
    // visible and 20 half-visible links: more than the token budget holds.
    let mut yaml = String::new();
    let mut add = |role: &str, extra: &str, y: i64, count: usize| {
        for _ in 0..count {
            let n = yaml.lines().count() + 1;
            yaml.push_str(&format!(
                "- {role} \"{n}\"{extra} [ref=e{n}] [box=0,{y},10,10]\n"
            ));
        }
    };
    add("button", "", 5000, 30);
    add("heading", " [level=2]", 100, 10);
    add("link", "", 100, 40);
    add("link", "", 715, 20);
    let view = view_of(&page(&yaml), false);
    let count = |role: &str| view.elements.iter().filter(|e| e.role == role).count();
    assert!(view.elements.len() <= MAX_ELEMENTS);
    assert_eq!(count("button"), 0, "offscreen elements go first");
    assert_eq!(
        count("heading"),
        10,
        "fully visible headings beat half-visible links"
    );
    assert!(count("link") >= 40);
    assert_eq!(view.truncated, 100 - view.elements.len());
    // Refs follow document order whatever the ranking.
    assert_eq!(view.elements[0].name, "31");
    for (n, e) in view.elements.iter().enumerate() {
        assert_eq!(e.reference, format!("@e{n}"));
    }
}

#[test]
fn at_most_100_elements() {
    let yaml: String = (1..=150)
        .map(|n| format!("- link \"{n}\" [ref=e{n}]\n"))
        .collect();
    let view = view_of(&page(&yaml), true);
    assert_eq!(view.elements.len(), MAX_ELEMENTS);
    assert_eq!(view.truncated, 50);
    assert_eq!(view.elements[99].name, "100");
}

#[test]
fn the_big_fixture_fits_the_budgets() {
    let yaml = fixture("big-snapshot.yml");
    assert!(yaml.len() > 40_000);
    let snapshot = page(&yaml);
    let view = view_of(&snapshot, true);
    let json = serde_json::to_string(&view).unwrap();
    assert!(view.elements.len() <= MAX_ELEMENTS);
    assert!(
        estimate_tokens(&json) <= SNAPSHOT_TOKEN_LIMIT,
        "{} tokens",
        estimate_tokens(&json)
    );
    assert!(view.truncated >= 351 - MAX_ELEMENTS, "{}", view.truncated);
    // No boxes in this fixture: role priority and document order decide,
    // so the first links and buttons stay and the heading goes.
    assert!(
        view.elements
            .iter()
            .all(|e| e.role == "link" || e.role == "button")
    );
    assert_eq!(view.elements[0].name, "Episode link number 0");
    for (n, e) in view.elements.iter().enumerate() {
        assert_eq!(e.reference, format!("@e{n}"));
    }
}

#[test]
fn every_recorded_snapshot_fits_the_budget() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/playwright-mcp-0.0.83/snapshots");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let yaml = std::fs::read_to_string(entry.path()).unwrap();
        let view = view_of(&page(&yaml), true);
        let json = serde_json::to_string(&view).unwrap();
        assert!(view.elements.len() <= MAX_ELEMENTS);
        assert!(
            estimate_tokens(&json) <= SNAPSHOT_TOKEN_LIMIT,
            "{:?}",
            entry.path()
        );
        seen += 1;
    }
    assert!(seen > 100);
}

#[test]
fn identical_pages_get_identical_refs_and_new_ids() {
    let yaml = fixture("big-snapshot.yml");
    let snapshot = page(&yaml);
    let layout = Layout::default();
    let (a, ta) = build(&snapshot, &layout, "a".into());
    let (b, tb) = build(&snapshot, &layout, "b".into());
    assert_eq!(names(&a), names(&b));
    assert_eq!(ta, tb);
    assert_ne!(a.snapshot_id, b.snapshot_id);
    assert_eq!(ta.len(), a.elements.len());
    assert_eq!(ta[0].name, a.elements[0].name);
}
