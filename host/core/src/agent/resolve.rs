//! Stage one of an action: its target resolved on the latest page. A
//! driver's call is translated by the toolset (refs only from the latest
//! snapshot); a retry is aimed again at its element as the page has it now.
//! Nothing here touches the browser.

use serde_json::Value;

use super::action::Action;
use super::ctx::Ctx;
use super::state::State;
use super::toolset::{BrowserAction, Refusal};
use crate::browser::tools as mcp;
use crate::page::Element;
use crate::safety::RefusalCode;

/// An action resolved: what it means for the browser.
#[derive(Debug, Clone)]
pub(super) struct Resolved {
    pub(super) action: BrowserAction,
    /// The Playwright MCP tool it runs (the driver's tool when the answer is
    /// only a fresh look).
    pub(super) runs: String,
}

/// Resolves `action` on the page in `state`, or says why it cannot run.
pub(super) fn resolve(cx: &Ctx<'_>, state: &State, action: &Action) -> Result<Resolved, Refusal> {
    let translated = match &action.again {
        Some(before) => aim_again(before, &state.snapshot.elements)?,
        None => cx
            .toolset
            .translate(&action.tool, &action.args, &state.snapshot)?,
    };
    let runs = translated
        .mcp_tool
        .clone()
        .unwrap_or_else(|| action.tool.clone());
    if let Some(refusal) = dialog_refusal(&runs, &translated, state) {
        return Err(refusal);
    }
    Ok(Resolved {
        action: translated,
        runs,
    })
}

/// `before` aimed at its element on the page as it is now.
fn aim_again(before: &BrowserAction, elements: &[Element]) -> Result<BrowserAction, Refusal> {
    let gone = || {
        Refusal::new(
            RefusalCode::RefInvalid,
            "The element is no longer on the page.",
        )
    };
    let target = before.target.as_ref().ok_or_else(gone)?;
    let now = again(elements, target).cloned().ok_or_else(gone)?;
    let mut aimed = before.clone();
    if let (Some(reference), Some(args)) = (&now.reference, aimed.mcp_args.as_object_mut())
        && args.contains_key("target")
    {
        args.insert("target".into(), Value::from(reference.clone()));
    }
    aimed.target = Some(now);
    Ok(aimed)
}

/// The element `target` was, in the page as it is now: the same ref with
/// the same role and name, or else the first element with that role and
/// name.
pub(super) fn again<'a>(elements: &'a [Element], target: &Element) -> Option<&'a Element> {
    let same = |e: &&Element| e.role == target.role && e.name == target.name;
    elements
        .iter()
        .filter(same)
        .find(|e| e.reference == target.reference)
        .or_else(|| elements.iter().filter(same).find(|e| e.reference.is_some()))
}

/// While a dialog is open, nothing but answering it works; with none open,
/// there is nothing to answer.
fn dialog_refusal(runs: &str, action: &BrowserAction, state: &State) -> Option<Refusal> {
    match (&state.dialog, runs == mcp::HANDLE_DIALOG) {
        (Some(open), false) if !action.read_only || action.mcp_tool.is_some() => {
            Some(Refusal::new(
                RefusalCode::ActionFailed,
                format!(
                    "A {} dialog is open (\"{}\"). Answer it first: browser_handle_dialog with accept true or false.",
                    open.dialog.kind, open.dialog.message
                ),
            ))
        }
        (None, true) => Some(Refusal::new(
            RefusalCode::ActionFailed,
            "No dialog is open.",
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_element_again_is_the_same_one_or_its_namesake() {
        let el = |r: &str, role: &str, name: &str| Element {
            reference: Some(r.into()),
            role: role.into(),
            name: name.into(),
            ..Element::default()
        };
        let target = el("e5", "button", "Continue");
        let same_ref = [
            el("e4", "button", "Continue"),
            el("e5", "button", "Continue"),
        ];
        assert_eq!(
            again(&same_ref, &target).and_then(|e| e.reference.as_deref()),
            Some("e5")
        );
        let moved = [el("e9", "link", "Continue"), el("e7", "button", "Continue")];
        assert_eq!(
            again(&moved, &target).and_then(|e| e.reference.as_deref()),
            Some("e7")
        );
        let gone = [el("e5", "button", "Finish")];
        assert!(
            again(&gone, &target).is_none(),
            "a ref now naming another element is not it"
        );
    }
}
