//! Practice flows of real services: each bundled service's account and
//! cancellation pages, in its shape and wording, as data under
//! `plugins/<id>/practice/` (a `flow.toml` and the pages it names). The
//! binary serves them on 127.0.0.1 for `subterminator demo <service>`, so a
//! plugin's real code runs end to end with no account at the service.
//!
//! ```toml
//! brand = "Spotify"
//! start = "/account/overview/"        # the real initial URL's path
//! layout = "layout.html"              # wraps each page: {{title}}, {{body}}
//! commit = "/account/cancel/confirm"  # a POST here cancels, then shows `done`
//! done = "/account/cancelled/"
//!
//! [[page]]
//! path = "/account/overview/"
//! title = "Account overview - Spotify"
//! file = "account.html"
//!
//! [[post]]                            # any other form that posts
//! path = "/offer/accept"
//! redirect = "/account/overview/"
//!
//! [variant.billed-elsewhere]          # `demo spotify --variant billed-elsewhere`
//! about = "Premium is billed through Apple"
//! page = [{ path = "/account/overview/", title = "…", file = "account_apple.html" }]
//! ```
//!
//! Pages may use `{{end_date}}`, `{{billing_date}}` and `{{email}}`; dates
//! are written "16 December 2026" unless `date-format = "%B %-d, %Y"` (a
//! strftime pattern) says otherwise.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;

use crate::error::{Error, Result};

/// A practice flow's files as the binary carries them.
#[derive(Debug)]
pub struct EmbeddedFlow {
    pub service: &'static str,
    /// `(file name, text)`, sorted by name.
    pub files: &'static [(&'static str, &'static str)],
}

include!(concat!(env!("OUT_DIR"), "/practice.rs"));

/// The file every practice folder describes itself in.
const FLOW_FILE: &str = "flow.toml";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct FlowFile {
    brand: String,
    #[serde(default)]
    date_format: Option<String>,
    start: String,
    layout: String,
    commit: String,
    done: String,
    #[serde(default)]
    page: Vec<PageSpec>,
    #[serde(default)]
    post: Vec<PostSpec>,
    #[serde(default)]
    variant: BTreeMap<String, VariantSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct PageSpec {
    path: String,
    title: String,
    file: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PostSpec {
    path: String,
    redirect: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct VariantSpec {
    about: String,
    #[serde(default)]
    page: Vec<PageSpec>,
}

/// One page the site serves.
#[derive(Debug, Clone)]
pub struct Page {
    pub title: String,
    pub body: &'static str,
}

/// A flow ready to serve: the base pages with a variant's pages laid over.
#[derive(Debug, Clone)]
pub struct Flow {
    pub service: String,
    pub brand: String,
    /// The variant chosen, if any.
    pub variant: Option<String>,
    pub start: String,
    /// The path whose POST cancels.
    pub commit: String,
    pub done: String,
    pub layout: &'static str,
    /// strftime pattern of the dates on the pages.
    pub date_format: String,
    pub pages: HashMap<String, Page>,
    /// Path of a non-committing POST → where it leads.
    pub posts: HashMap<String, String>,
}

impl Flow {
    /// The request that commits, as the site logs it: `POST <path>`.
    pub fn commit_request(&self) -> String {
        format!("POST {}", self.commit)
    }
}

/// What `demo --help` and an unknown name list: each flow's service and
/// variants, with what each variant shows.
pub fn catalogue() -> Vec<(String, Vec<(String, String)>)> {
    PRACTICE_FLOWS
        .iter()
        .filter_map(|embedded| {
            let file = parse(embedded).ok()?;
            let variants = file
                .variant
                .into_iter()
                .map(|(name, v)| (name, v.about))
                .collect();
            Some((embedded.service.to_owned(), variants))
        })
        .collect()
}

/// The practice flow of `service` (ignoring case), with `variant` laid over.
pub fn load(service: &str, variant: Option<&str>) -> Result<Flow> {
    let wanted = service.trim();
    let embedded = PRACTICE_FLOWS
        .iter()
        .find(|f| f.service.eq_ignore_ascii_case(wanted))
        .ok_or_else(|| {
            Error::Flow(format!(
                "there is no practice flow for {wanted:?}; the flows are: {}",
                names()
            ))
        })?;
    let file = parse(embedded)?;
    build(embedded, file, variant)
}

fn names() -> String {
    let mut names = vec![crate::DEFAULT_FLOW.to_owned()];
    names.extend(PRACTICE_FLOWS.iter().map(|f| f.service.to_owned()));
    names.join(", ")
}

fn parse(embedded: &EmbeddedFlow) -> Result<FlowFile> {
    let text = file_text(embedded, FLOW_FILE)?;
    toml::from_str(text).map_err(|e| {
        Error::Flow(format!(
            "the practice flow of {} is broken ({FLOW_FILE}: {e}); this is a bug in subterminator",
            embedded.service
        ))
    })
}

fn file_text(embedded: &EmbeddedFlow, name: &str) -> Result<&'static str> {
    embedded
        .files
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
        .ok_or_else(|| {
            Error::Flow(format!(
                "the practice flow of {} has no {name}; this is a bug in subterminator",
                embedded.service
            ))
        })
}

fn build(embedded: &EmbeddedFlow, file: FlowFile, variant: Option<&str>) -> Result<Flow> {
    let mut specs = file.page.clone();
    let chosen = match variant {
        None => None,
        Some(name) => {
            let Some(spec) = file.variant.get(name.trim()) else {
                let known: Vec<&str> = file.variant.keys().map(String::as_str).collect();
                return Err(Error::Flow(format!(
                    "the {} practice flow has no variant {name:?}; its variants are: {}",
                    embedded.service,
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                )));
            };
            // A variant's page replaces the base page at the same path.
            for page in &spec.page {
                specs.retain(|p| p.path != page.path);
                specs.push(page.clone());
            }
            Some(name.trim().to_owned())
        }
    };
    let mut pages = HashMap::new();
    for spec in specs {
        let body = file_text(embedded, &spec.file)?;
        pages.insert(
            spec.path,
            Page {
                title: spec.title,
                body,
            },
        );
    }
    let flow = Flow {
        service: embedded.service.to_owned(),
        brand: file.brand,
        variant: chosen,
        layout: file_text(embedded, &file.layout)?,
        date_format: file
            .date_format
            .unwrap_or_else(|| crate::site::DATE_FORMAT.to_owned()),
        posts: file
            .post
            .into_iter()
            .map(|p| (p.path, p.redirect))
            .collect(),
        start: file.start,
        commit: file.commit,
        done: file.done,
        pages,
    };
    check(&flow)?;
    Ok(flow)
}

/// The mistakes a flow author can make that would only show in a browser.
fn check(flow: &Flow) -> Result<()> {
    let broken = |why: String| {
        Error::Flow(format!(
            "the practice flow of {} is broken ({why}); this is a bug in subterminator",
            flow.service
        ))
    };
    for (what, path) in [("start", &flow.start), ("done", &flow.done)] {
        if !flow.pages.contains_key(path) {
            return Err(broken(format!("its {what} page {path} is not a page")));
        }
    }
    // A bad pattern would only fail (and panic inside chrono's Display)
    // when a page is rendered.
    if chrono::format::StrftimeItems::new(&flow.date_format)
        .any(|item| matches!(item, chrono::format::Item::Error))
    {
        return Err(broken(format!(
            "its date-format {:?} is not a strftime pattern",
            flow.date_format
        )));
    }
    if flow.pages.contains_key(&flow.commit) || flow.posts.contains_key(&flow.commit) {
        return Err(broken(format!(
            "its commit path {} is also a page or another post",
            flow.commit
        )));
    }
    for (path, redirect) in &flow.posts {
        let target = redirect.split('?').next().unwrap_or_default();
        if !flow.pages.contains_key(target) {
            return Err(broken(format!(
                "the post to {path} leads to {redirect}, not a page"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    /// Every bundled flow and every variant loads, and every form and link on
    /// its pages leads somewhere the site serves.
    #[test]
    fn every_bundled_flow_and_variant_is_whole() {
        assert!(!PRACTICE_FLOWS.is_empty());
        for (service, variants) in catalogue() {
            let mut names: Vec<Option<&str>> = vec![None];
            names.extend(variants.iter().map(|(n, _)| Some(n.as_str())));
            for variant in names {
                let flow = load(&service, variant)
                    .unwrap_or_else(|e| panic!("{service} {variant:?}: {e}"));
                for (path, page) in &flow.pages {
                    for target in local_targets(page.body) {
                        let known = flow.pages.contains_key(&target)
                            || flow.posts.contains_key(&target)
                            || target == flow.commit;
                        assert!(
                            known,
                            "{service} {variant:?}: {path} links to {target}, which the site does not serve"
                        );
                    }
                }
            }
        }
    }

    /// The paths of `href="/…"` and `action="/…"` in a page, without query.
    fn local_targets(body: &str) -> Vec<String> {
        let mut found = Vec::new();
        for attr in ["href=\"/", "action=\"/"] {
            let mut rest = body;
            while let Some(at) = rest.find(attr) {
                let tail = &rest[at + attr.len() - 1..];
                let end = tail.find('"').unwrap_or(tail.len());
                let target = tail[..end].split('?').next().unwrap_or_default();
                found.push(target.to_owned());
                rest = &tail[end..];
            }
        }
        found
    }

    #[test]
    fn unknown_names_list_what_there_is() {
        let e = load("nosuch", None).unwrap_err().to_string();
        assert!(e.contains("no practice flow for \"nosuch\""), "{e}");
        assert!(e.contains("practice"), "{e}");
        let (service, _) = catalogue().into_iter().next().unwrap();
        let e = load(&service, Some("nosuch")).unwrap_err().to_string();
        assert!(e.contains("has no variant \"nosuch\""), "{e}");
    }
}
