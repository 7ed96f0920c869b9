//! `plugin record --walk FILE`: the steps a scripted walker takes instead of
//! a person, so that tests and CI can record a flow with no one at the
//! browser.
//!
//! ```toml
//! [[step]]
//! click = { role = "button", name = "Cancel subscription" }
//! [[step]]
//! select = { role = "combobox", name = "Reason", value = "Other" }
//! [[step]]
//! fill = { role = "textbox", name = "Email", value = "a@example.com" }
//! ```
//!
//! Unknown keys are refused: a misspelt `vlaue` would otherwise walk on with
//! an empty field and record pages that are not the ones meant.

use std::path::Path;

use serde::Deserialize;

use subterminator_core::error::{Error, Result};
use subterminator_core::memory::Step;
use subterminator_core::page::{Element, Snapshot};
use subterminator_core::plugin::HintAction;

/// Most elements listed when a step's element is missing.
const MISSING_LISTS_MAX: usize = 20;

/// The element `step` acts on in `snapshot`: the first with a ref, the
/// exact role, and a name containing the step's, ignoring case. (A walk file
/// is written by hand, so a part of the name is enough.)
pub fn find<'a>(step: &Step, snapshot: &'a Snapshot) -> Option<&'a Element> {
    let wanted = step.name.to_lowercase();
    snapshot.elements.iter().find(|e| {
        e.reference.is_some() && e.role == step.role && e.name.to_lowercase().contains(&wanted)
    })
}

/// Why step `index` (from 0) could not run on `snapshot`, with what the
/// page offered instead.
pub fn missing(step: &Step, index: usize, snapshot: &Snapshot) -> String {
    let offered: Vec<String> = snapshot
        .elements
        .iter()
        .filter(|e| e.reference.is_some() && !e.name.is_empty() && e.role != "text")
        .take(MISSING_LISTS_MAX)
        .map(|e| format!("{} {:?}", e.role, e.name))
        .collect();
    let offered = if offered.is_empty() {
        "no named elements".to_owned()
    } else {
        offered.join(", ")
    };
    format!(
        "walk step {} ({}): no {} whose name contains {:?} on {} ({:?}). The page has: {offered}. \
         Correct the step's role or name in the walk file.",
        index + 1,
        step.describe(),
        step.role,
        step.name,
        snapshot.url,
        snapshot.title,
    )
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WalkFile {
    #[serde(default)]
    step: Vec<RawStep>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    click: Option<Target>,
    select: Option<ValuedTarget>,
    fill: Option<ValuedTarget>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Target {
    role: String,
    name: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ValuedTarget {
    role: String,
    name: String,
    value: String,
}

/// The steps of a walk file's text; the error says what to correct.
pub fn parse(text: &str) -> std::result::Result<Vec<Step>, String> {
    let file: WalkFile = toml::from_str(text).map_err(|e| e.to_string())?;
    if file.step.is_empty() {
        return Err("it has no [[step]]; add one, e.g. [[step]] then \
                    click = { role = \"button\", name = \"Cancel\" }"
            .to_owned());
    }
    file.step
        .into_iter()
        .enumerate()
        .map(|(i, raw)| {
            let step = match (raw.click, raw.select, raw.fill) {
                (Some(t), None, None) => Step {
                    url: None,
                    action: HintAction::Click,
                    role: t.role,
                    name: t.name,
                    value: None,
                },
                (None, Some(t), None) => Step {
                    url: None,
                    action: HintAction::Select,
                    role: t.role,
                    name: t.name,
                    value: Some(t.value),
                },
                (None, None, Some(t)) => Step {
                    url: None,
                    action: HintAction::Fill,
                    role: t.role,
                    name: t.name,
                    value: Some(t.value),
                },
                _ => {
                    return Err(format!(
                        "step {}: give exactly one of click, select or fill",
                        i + 1
                    ));
                }
            };
            if step.role.trim().is_empty() || step.name.trim().is_empty() {
                return Err(format!(
                    "step {}: role and name must not be empty, or the step would act on the \
                     first element it meets",
                    i + 1
                ));
            }
            Ok(step)
        })
        .collect()
}

/// Reads and parses a walk file.
pub fn load(path: &Path) -> Result<Vec<Step>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::io("cannot read the walk file", path, e))?;
    parse(&text).map_err(|e| {
        Error::Configuration(format!(
            "the walk file {} cannot be used: {e}; fix it (run `subterminator plugin record --help` for its format)",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    #[test]
    fn walk_files_table() {
        let good = r#"
            [[step]]
            click = { role = "button", name = "Cancel subscription" }
            [[step]]
            select = { role = "combobox", name = "Reason", value = "Other" }
            [[step]]
            fill = { role = "textbox", name = "Email", value = "a@example.com" }
        "#;
        let steps = parse(good).unwrap();
        assert_eq!(
            steps
                .iter()
                .map(|s| (s.action, s.value.as_deref()))
                .collect::<Vec<_>>(),
            [
                (HintAction::Click, None),
                (HintAction::Select, Some("Other")),
                (HintAction::Fill, Some("a@example.com"))
            ]
        );
        assert_eq!(steps[1].role, "combobox");
        assert_eq!(steps[2].name, "Email");
        let cases = [
            (
                "unknown step key",
                "[[step]]\npress = { key = \"Enter\" }",
                "press",
            ),
            (
                "unknown target key",
                "[[step]]\nfill = { role = \"textbox\", name = \"E\", vlaue = \"x\" }",
                "vlaue",
            ),
            (
                "unknown top key",
                "walk = 1\n[[step]]\nclick = { role = \"button\", name = \"Go\" }",
                "walk",
            ),
            (
                "value on a click",
                "[[step]]\nclick = { role = \"button\", name = \"Go\", value = \"x\" }",
                "value",
            ),
            (
                "no value to fill",
                "[[step]]\nfill = { role = \"textbox\", name = \"E\" }",
                "value",
            ),
            (
                "two actions",
                "[[step]]\nclick = { role = \"button\", name = \"Go\" }\nfill = { role = \"textbox\", name = \"E\", value = \"x\" }",
                "exactly one",
            ),
            ("no action", "[[step]]", "exactly one"),
            (
                "empty name",
                "[[step]]\nclick = { role = \"button\", name = \" \" }",
                "must not be empty",
            ),
            ("no steps", "", "no [[step]]"),
            ("not toml", "[[step]\n", "step"),
        ];
        for (name, text, says) in cases {
            let error = parse(text).unwrap_err();
            assert!(error.contains(says), "{name}: {error}");
        }
    }

    #[test]
    fn steps_find_by_exact_role_and_contained_name() {
        let tree = "- link \"Cancel subscription\" [ref=e1]\n- button \"Cancel Subscription now\" [ref=e2]\n- button \"Keep\" [ref=e3]\n- button \"Cancel subscription later\"";
        let snapshot = Snapshot {
            url: "https://x.com/a".into(),
            title: "Account".into(),
            elements: subterminator_core::browser::tree::parse_tree(tree),
            content: tree.into(),
            screenshot_path: None,
        };
        let step = |role: &str, name: &str| Step {
            url: None,
            action: HintAction::Click,
            role: role.into(),
            name: name.into(),
            value: None,
        };
        let cases = [
            (step("button", "cancel subscription"), Some("e2")),
            (step("link", "CANCEL"), Some("e1")),
            (step("button", "keep"), Some("e3")),
            (step("butto", "keep"), None),
            (step("button", "later"), None),
        ];
        for (step, want) in cases {
            let got = find(&step, &snapshot).and_then(|e| e.reference.as_deref());
            assert_eq!(got, want, "{}", step.describe());
        }
        let missing = missing(&step("button", "Finish"), 1, &snapshot);
        for says in [
            "walk step 2",
            "click button \"Finish\"",
            "button \"Keep\"",
            "https://x.com/a",
        ] {
            assert!(missing.contains(says), "{says:?} not in {missing}");
        }
    }
}
