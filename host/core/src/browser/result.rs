//! The text of Playwright MCP tool results: `### ` sections (Error, Result,
//! Ran Playwright code, Open tabs, Page, Modal state, Snapshot, Events), the
//! page's URL and title, the tree inline (```yaml) or linked (`- [Snapshot](…)`).

use std::path::{Path, PathBuf};

use super::{BrowserError, ToolOutput, tree};
use crate::page::{self, Snapshot};

/// Removes ANSI escape sequences (the server colours its call logs).
pub fn strip_ansi(s: &str) -> String {
    if !s.contains('\u{1b}') {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // CSI: parameters and intermediates, then one final byte @..~.
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            // OSC: up to BEL or ESC \.
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            // Two-character sequences (ESC c, ESC 7, …) or a lone ESC.
            Some(_) | None => {}
        }
    }
    out
}

/// One `### Heading` and the text under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section<'a> {
    pub heading: &'a str,
    pub body: &'a str,
}

/// Splits a result into its sections. Text before the first heading (the
/// JSON-shaped results of some tools) is not a section.
pub fn sections(text: &str) -> Vec<Section<'_>> {
    let mut found = Vec::new();
    let mut current: Option<(&str, usize)> = None;
    let mut offset = 0;
    // A heading inside a fenced block (code the server ran, the tree) is content.
    let mut in_fence = false;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        if line.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let Some(heading) = line.strip_prefix("### ") else {
            continue;
        };
        if let Some((h, body_start)) = current.take() {
            found.push(Section {
                heading: h,
                body: trim_newlines(&text[body_start..start]),
            });
        }
        current = Some((heading.trim_end(), offset));
    }
    if let Some((h, body_start)) = current {
        found.push(Section {
            heading: h,
            body: trim_newlines(&text[body_start.min(text.len())..]),
        });
    }
    found
}

fn trim_newlines(s: &str) -> &str {
    s.trim_matches(|c| c == '\n' || c == '\r')
}

/// The tree under `### Snapshot`: inline, or the path of the linked file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeSource<'a> {
    Inline(&'a str),
    Linked(&'a str),
}

/// Reads the Snapshot section body.
pub fn tree_source(body: &str) -> Option<TreeSource<'_>> {
    if let Some(start) = body.find("```yaml") {
        let rest = &body[start + "```yaml".len()..];
        let rest = rest.strip_prefix('\n').unwrap_or(rest);
        let end = rest.rfind("```").unwrap_or(rest.len());
        return Some(TreeSource::Inline(trim_newlines(&rest[..end])));
    }
    links(body)
        .into_iter()
        .find(|(label, _)| *label == "Snapshot")
        .map(|(_, target)| TreeSource::Linked(target))
}

/// Markdown links `[label](target)` in `text`, in order.
pub fn links(text: &str) -> Vec<(&str, &str)> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find("](") else {
            break;
        };
        let label = &after[..close];
        let target_start = &after[close + 2..];
        let Some(end) = target_start.find(')') else {
            break;
        };
        if !label.contains('\n') {
            found.push((label, &target_start[..end]));
        }
        rest = &target_start[end + 1..];
    }
    found
}

/// A path the server printed, made absolute. Relative ones are relative to
/// the server's working directory (`base_dir`); the `#L1` anchors on log
/// links are dropped.
pub fn resolve_path(target: &str, base_dir: Option<&Path>) -> Option<PathBuf> {
    let target = target.split('#').next().unwrap_or(target);
    let path = Path::new(target);
    if path.is_absolute() {
        Some(path.to_path_buf())
    } else {
        base_dir.map(|b| b.join(path))
    }
}

/// The value of `- Key: value` lines in a section body.
fn field<'a>(body: &'a str, key: &str) -> Option<&'a str> {
    body.lines().find_map(|l| {
        l.strip_prefix("- ")
            .and_then(|l| l.strip_prefix(key))
            .and_then(|l| l.strip_prefix(':'))
            .map(str::trim)
    })
}

/// Everything a result says, with the tree (if any) read but not validated.
struct Parsed {
    output: ToolOutput,
    sections: Vec<String>,
    tree: Option<String>,
}

fn parse(text: &str, base_dir: Option<&Path>) -> Parsed {
    let text = strip_ansi(text);
    let secs = sections(&text);
    let mut output = ToolOutput::default();
    let mut tree_text = None;
    for s in &secs {
        match s.heading {
            "Page" => {
                output.page_url = field(s.body, "Page URL").map(str::to_owned);
                output.page_title = field(s.body, "Page Title").map(str::to_owned);
            }
            "Result" => {
                output.result = Some(s.body.to_owned());
                output.files.extend(
                    links(s.body)
                        .into_iter()
                        .filter_map(|(_, t)| resolve_path(t, base_dir)),
                );
            }
            "Modal state" => output.dialogs = dialogs(s.body),
            "Snapshot" => {
                tree_text = match tree_source(s.body) {
                    Some(TreeSource::Inline(yaml)) => Some(yaml.to_owned()),
                    Some(TreeSource::Linked(target)) => read_linked(target, base_dir),
                    None => None,
                };
            }
            _ => {}
        }
    }
    let sections = secs.iter().map(|s| s.heading.to_owned()).collect();
    output.text = text;
    Parsed {
        output,
        sections,
        tree: tree_text,
    }
}

/// The dialogs of a `### Modal state` section, each a line such as
/// `- ["confirm" dialog with message "Are you sure?"]: can be handled by …`.
/// Lines about other modal states (a file chooser) are left out.
fn dialogs(body: &str) -> Vec<page::Dialog> {
    body.lines()
        .filter_map(|line| {
            let inner = line.trim().strip_prefix("- [\"")?;
            let (kind, rest) = inner.split_once("\" dialog with message \"")?;
            let end = rest.rfind("\"]:")?;
            Some(page::Dialog {
                kind: kind.to_owned(),
                message: rest[..end].to_owned(),
            })
        })
        .collect()
}

fn read_linked(target: &str, base_dir: Option<&Path>) -> Option<String> {
    let path = resolve_path(target, base_dir)?;
    match std::fs::read_to_string(&path) {
        Ok(yaml) => {
            // The server's copy stays in the run folder: it must not keep
            // what the masked tree hides (`page::mask`).
            let masked = crate::page::mask::tree(&yaml, &[]);
            if masked != yaml
                && let Err(e) = std::fs::write(&path, &masked)
            {
                tracing::warn!(path = %path.display(), error = %e, "cannot mask the linked snapshot; removing it");
                let _ = std::fs::remove_file(&path);
            }
            Some(masked.trim_end().to_owned())
        }
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot read the linked snapshot");
            None
        }
    }
}

/// Parses a successful result. The snapshot is filled in only when the result
/// carries a complete one; use [`parse_snapshot`] to insist on it.
pub fn parse_result(text: &str, base_dir: Option<&Path>) -> ToolOutput {
    let parsed = parse(text, base_dir);
    let mut output = parsed.output;
    output.snapshot = build_snapshot(&output, parsed.tree).ok();
    output
}

/// Parses a result that must describe the page: URL, title and a non-empty
/// tree, or [`BrowserError::SnapshotValidation`] naming what was there.
pub fn parse_snapshot(text: &str, base_dir: Option<&Path>) -> Result<Snapshot, BrowserError> {
    let parsed = parse(text, base_dir);
    build_snapshot(&parsed.output, parsed.tree).map_err(|missing| {
        BrowserError::SnapshotValidation {
            missing,
            present: parsed.sections,
        }
    })
}

fn build_snapshot(
    output: &ToolOutput,
    tree_text: Option<String>,
) -> Result<Snapshot, Vec<&'static str>> {
    let tree_text = tree_text.filter(|t| !t.trim().is_empty());
    let mut missing = Vec::new();
    if output.page_url.is_none() {
        missing.push("the page URL");
    }
    if output.page_title.is_none() {
        missing.push("the page title");
    }
    if tree_text.is_none() {
        missing.push("the accessibility tree");
    }
    match (&output.page_url, &output.page_title, tree_text) {
        (Some(url), Some(title), Some(content)) => {
            // A password a person typed stays out of the model's view and
            // the record (`page::mask`).
            let content = crate::page::mask::tree(&content, &[]);
            Ok(Snapshot {
                url: url.clone(),
                title: title.clone(),
                elements: tree::parse_tree(&content),
                content,
                screenshot_path: None,
            })
        }
        _ => Err(missing),
    }
}

/// The message of an error result: the text without its `### Error` heading
/// and `Error: ` prefix, ANSI codes removed.
pub fn error_message(text: &str) -> String {
    let text = strip_ansi(text);
    let body = sections(&text)
        .into_iter()
        .find(|s| s.heading == "Error")
        .map_or(text.as_str(), |s| s.body);
    let body = body.strip_prefix("Error: ").unwrap_or(body);
    body.trim_end().to_owned()
}

/// Turns an error result into the most specific [`BrowserError`]: browser
/// start-up problems and a locked profile are configuration errors the user
/// can fix; everything else is the tool failing.
pub fn classify_error(
    tool: &str,
    text: &str,
    executable: Option<&Path>,
    profile: Option<&Path>,
) -> BrowserError {
    let message = error_message(text);
    if let Some(rest) = message.split("Browser is already in use for ").nth(1) {
        let path = rest.split(", use --isolated").next().unwrap_or(rest).trim();
        let path = profile.map_or_else(|| PathBuf::from(path), Path::to_path_buf);
        return BrowserError::ProfileInUse { path };
    }
    const LAUNCH_MARKERS: &[&str] = &[
        "async initializeServer",
        "Failed to launch",
        "executable doesn't exist",
        "is not installed; expected executable",
        "sandboxing failed",
    ];
    if LAUNCH_MARKERS.iter().any(|m| message.contains(m)) {
        return BrowserError::BrowserLaunch {
            path: executable.map(Path::to_path_buf),
            detail: launch_detail(&message),
        };
    }
    BrowserError::Tool {
        tool: tool.to_owned(),
        message,
    }
}

/// The informative lines of a launch failure, without Playwright's long
/// `<launching>` argv and call log.
fn launch_detail(message: &str) -> String {
    let kept: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with("<launching>")
                && !l.starts_with("- <launching>")
                && !l.starts_with("Call log:")
                && !l.starts_with("Browser logs:")
                && !l.starts_with("====")
        })
        .take(4)
        .collect();
    kept.join(" ")
        .replace("async initializeServer: ", "")
        .chars()
        .take(400)
        .collect()
}

#[cfg(test)]
mod tests;
