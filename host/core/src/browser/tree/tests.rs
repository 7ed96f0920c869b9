#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use super::*;

fn snapshots() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/playwright-mcp-0.0.83/snapshots")
}

fn one(line: &str) -> Element {
    let mut all = parse_tree(line);
    assert_eq!(all.len(), 1, "{line}: {all:?}");
    all.remove(0)
}

fn el(role: &str, name: &str) -> Element {
    Element {
        role: role.to_owned(),
        name: name.to_owned(),
        ..Element::default()
    }
}

/// One line each: what the element must come out as.
#[test]
fn single_lines() {
    let with = |mut e: Element, f: &dyn Fn(&mut Element)| {
        f(&mut e);
        e
    };
    let cases: Vec<(&str, Element)> = vec![
        (
            "- heading \"Your StreamFlix Account\" [level=1] [ref=e3]",
            with(el("heading", "Your StreamFlix Account"), &|e| {
                e.level = Some(1);
                e.reference = Some("e3".into());
            }),
        ),
        (
            "- generic [active] [ref=e1]:",
            with(el("generic", ""), &|e| {
                e.states = vec!["active".into()];
                e.reference = Some("e1".into());
            }),
        ),
        (
            "- button \"Locked\" [disabled] [ref=f1e2]",
            with(el("button", "Locked"), &|e| {
                e.states = vec!["disabled".into()];
                e.reference = Some("f1e2".into());
            }),
        ),
        (
            "- checkbox \"Remember me\" [checked] [ref=e5]",
            with(el("checkbox", "Remember me"), &|e| {
                e.states = vec!["checked".into()];
                e.reference = Some("e5".into());
            }),
        ),
        (
            "- checkbox \"Some\" [checked=mixed] [ref=e6]",
            with(el("checkbox", "Some"), &|e| {
                e.states = vec!["checked=mixed".into()];
                e.reference = Some("e6".into());
            }),
        ),
        (
            "- button \"Menu\" [expanded] [pressed] [ref=e7]",
            with(el("button", "Menu"), &|e| {
                e.states = vec!["expanded".into(), "pressed".into()];
                e.reference = Some("e7".into());
            }),
        ),
        (
            "- option \"Premium\" [selected]",
            with(el("option", "Premium"), &|e| {
                e.states = vec!["selected".into()]
            }),
        ),
        (
            "- link \"Back to account\" [ref=f2e4] [cursor=pointer]:",
            with(el("link", "Back to account"), &|e| {
                e.reference = Some("f2e4".into())
            }),
        ),
        (
            "- paragraph [ref=e7]: \"Plan: Premium (4K) \u{2014} $22.99/month. Next billing date: 12 June.\"",
            with(el("paragraph", ""), &|e| {
                e.reference = Some("e7".into());
                e.value = Some(
                    "Plan: Premium (4K) \u{2014} $22.99/month. Next billing date: 12 June.".into(),
                );
            }),
        ),
        (
            "- paragraph [ref=e3]: cookie=[persist=yes] localStorage=[hello]",
            with(el("paragraph", ""), &|e| {
                e.reference = Some("e3".into());
                e.value = Some("cookie=[persist=yes] localStorage=[hello]".into());
            }),
        ),
        ("- paragraph", el("paragraph", "")),
        ("- text: Email", el("text", "Email")),
        ("- text: \"Quoted: yes\"", el("text", "Quoted: yes")),
        (
            "- button \"Say \\\"hi\\\": now\" [ref=e9]",
            with(el("button", "Say \"hi\": now"), &|e| {
                e.reference = Some("e9".into())
            }),
        ),
        (
            "- 'button \"It''s: here\" [ref=e10]'",
            with(el("button", "It's: here"), &|e| {
                e.reference = Some("e10".into())
            }),
        ),
        (
            "- 'link \"a: b\" [ref=e11]':",
            with(el("link", "a: b"), &|e| e.reference = Some("e11".into())),
        ),
        (
            "- heading \"\\u00e9t\\u00e9 \\ud83d\\ude00\" [level=2]",
            with(el("heading", "\u{e9}t\u{e9} \u{1f600}"), &|e| {
                e.level = Some(2)
            }),
        ),
        (
            "- textbox \"Email\" [ref=e8]: user@example.com",
            with(el("textbox", "Email"), &|e| {
                e.reference = Some("e8".into());
                e.value = Some("user@example.com".into());
            }),
        ),
        (
            "- img \"Logo\" [ref=e2] [box=0,0,10,10]",
            with(el("img", "Logo"), &|e| e.reference = Some("e2".into())),
        ),
    ];
    for (line, want) in cases {
        assert_eq!(one(line), want, "{line}");
    }
}

#[test]
fn children_properties_and_depth() {
    let yaml = "\
- generic [active] [ref=e1]:
  - main [ref=e4]:
    - textbox \"Email\" [ref=e8]:
      - /placeholder: you@example.com
      - text: a@b.c
    - combobox \"Change plan\" [ref=e9]:
      - option \"Basic\"
      - option \"Premium\" [selected]
    - link [ref=e10] [cursor=pointer]:
      - /url: /retention.html
      - button \"Cancel Membership\" [ref=e11]
  - text: Footer";
    let els = parse_tree(yaml);
    let summary: Vec<(&str, &str, u16)> = els
        .iter()
        .map(|e| (e.role.as_str(), e.name.as_str(), e.depth))
        .collect();
    assert_eq!(
        summary,
        [
            ("generic", "", 0),
            ("main", "", 1),
            ("textbox", "Email", 2),
            ("combobox", "Change plan", 2),
            ("option", "Basic", 3),
            ("option", "Premium", 3),
            ("link", "", 2),
            ("button", "Cancel Membership", 3),
            ("text", "Footer", 1),
        ]
    );
    assert_eq!(els[2].value.as_deref(), Some("a@b.c"));
    assert_eq!(els[3].value.as_deref(), Some("Premium"));
    assert_eq!(els[6].url.as_deref(), Some("/retention.html"));
    assert_eq!(els[7].url, None);
}

#[test]
fn never_fails_on_odd_input() {
    for input in [
        "",
        "\n\n",
        "not yaml at all",
        "- ",
        "-",
        "- \"unterminated",
        "- '[x",
        "- [ref=e1]",
        "  - /url",
    ] {
        let _ = parse_tree(input);
    }
    assert!(parse_tree("- [ref=e1]").is_empty());
}

/// Every recorded snapshot file parses, every ref in its text is found, and
/// every link carries its URL.
#[test]
fn every_recorded_snapshot_file() {
    let mut files = 0;
    for entry in std::fs::read_dir(snapshots()).unwrap() {
        let path = entry.unwrap().path();
        let yaml = std::fs::read_to_string(&path).unwrap();
        let els = parse_tree(&yaml);
        let refs_in_text = yaml.matches("[ref=").count();
        let refs_parsed = els.iter().filter(|e| e.reference.is_some()).count();
        assert_eq!(refs_in_text, refs_parsed, "{}", path.display());
        let urls_in_text = yaml.matches("- /url:").count();
        let urls_parsed = els.iter().filter(|e| e.url.is_some()).count();
        assert_eq!(urls_in_text, urls_parsed, "{}", path.display());
        for e in &els {
            assert!(!e.role.is_empty(), "{}: {e:?}", path.display());
            if let Some(r) = &e.reference {
                assert!(
                    r.starts_with('e') || r.starts_with('f'),
                    "{}: {r}",
                    path.display()
                );
            }
        }
        files += 1;
    }
    assert!(files > 100, "only {files} snapshot files");
}

#[test]
fn frame_prefixed_refs_and_retention_page() {
    let yaml =
        std::fs::read_to_string(snapshots().join("page-2026-11-22T06-15-52-669Z.yml")).unwrap();
    let els = parse_tree(&yaml);
    let reason = els.iter().find(|e| e.role == "combobox").unwrap();
    assert_eq!(reason.name, "Reason for leaving");
    assert_eq!(reason.reference.as_deref(), Some("f1e6"));
    assert_eq!(reason.value.as_deref(), Some("Too expensive"));
    let offer = els.iter().find(|e| e.name == "Get 50% off").unwrap();
    assert!(offer.has_state("active"));
    let applied = els
        .iter()
        .find(|e| e.reference.as_deref() == Some("f1e8"))
        .unwrap();
    assert_eq!(applied.value.as_deref(), Some("Offer applied!"));
}
