//! The drafted plugin's `fixtures/`: each page the run saved, masked, with
//! what the plugin must say about it, in the format `plugin test` reads
//! (`subterminator_core::fixture`). What is expected is what the run
//! itself showed: the page it verified is a success, the pages before are
//! not, the page it waited on for a sign-in is one, each step's element is
//! asked about exactly when it was the step the person approved.

use std::path::PathBuf;

use subterminator_core::browser::parse_tree;
use subterminator_core::memory::url_pattern;

use super::scrub;
use super::service_file::{plan_steps, quoted};
use super::walk::{Page, Walk};

/// The folder beside `service.toml`.
pub(crate) const FIXTURES_DIR: &str = "fixtures";

/// Characters of a page's name in its fixture's file name.
const MAX_SLUG_CHARS: usize = 40;

/// Each page with a saved tree as `fixtures/NN-<page>.yaml` and `.toml`.
pub(crate) fn render(walk: &Walk) -> Vec<(PathBuf, String)> {
    let steps = plan_steps(walk);
    let final_page = steps.iter().find(|s| s.approved).map(|s| s.page);
    let last_page = walk.pages.len().saturating_sub(1);
    let mut files = Vec::new();
    let mut number = 0;
    for (index, page) in walk.pages.iter().enumerate() {
        let Some(tree) = &page.tree else {
            continue;
        };
        number += 1;
        let stem = format!("{number:02}-{}", slug(page));
        let yaml = scrub::tree(tree);
        let elements = parse_tree(&yaml);
        let verify = match final_page {
            Some(at) if index == last_page && index > at => Some("success"),
            Some(at) if index <= at => Some("unknown"),
            _ => None,
        };
        let mut toml = format!(
            "snapshot = {}\nurl = {}\ntitle = {}\n\n[expect]\n",
            quoted(&format!("{stem}.yaml")),
            quoted(&fixture_url(&page.url)),
            quoted(&scrub::text(&page.title)),
        );
        if let Some(verify) = verify {
            toml.push_str(&format!("verify = {}\n", quoted(verify)));
        }
        let auth = if page.sign_in {
            "login-required"
        } else {
            "none"
        };
        toml.push_str(&format!("auth = {}\n", quoted(auth)));
        for step in steps.iter().filter(|s| s.page == index) {
            let name = scrub::text(&step.name);
            // Only an element this tree shows can be checked against it.
            let shown = elements
                .iter()
                .any(|e| e.role == step.role && e.name.trim().eq_ignore_ascii_case(name.trim()));
            if !shown {
                continue;
            }
            toml.push_str(&format!(
                "\n[[expect.checkpoint]]\naction = {}\nrole = {}\nname = {}\nask = {}\n",
                quoted(step.action.tool()),
                quoted(&step.role),
                quoted(name.trim()),
                step.approved
            ));
        }
        files.push((
            PathBuf::from(FIXTURES_DIR).join(format!("{stem}.yaml")),
            yaml,
        ));
        files.push((
            PathBuf::from(FIXTURES_DIR).join(format!("{stem}.toml")),
            toml,
        ));
    }
    files
}

/// `sign-in`, or the last word of the page's path (`cancelled`), or `start`.
fn slug(page: &Page) -> String {
    if page.sign_in {
        return "sign-in".to_owned();
    }
    let path = url::Url::parse(&page.url)
        .map(|u| u.path().to_owned())
        .unwrap_or_default();
    let word = path
        .split('/')
        .rev()
        .find(|s| !s.is_empty() && !s.chars().all(|c| c.is_ascii_digit()))
        .unwrap_or("start");
    let slug: String = word
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .take(MAX_SLUG_CHARS)
        .collect();
    let slug = slug.trim_matches('-');
    if slug.is_empty() {
        "page".to_owned()
    } else {
        slug.to_owned()
    }
}

/// A page's URL as a fixture keeps it: its origin and its path with ids
/// made `*`, without the query and fragment, where tokens and e-mail
/// addresses travel.
fn fixture_url(url: &str) -> String {
    match (url::Url::parse(url), url_pattern(url)) {
        (Ok(parsed), Some(path)) => format!("{}{path}", parsed.origin().ascii_serialization()),
        _ => String::new(),
    }
}
