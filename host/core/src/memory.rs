//! Memory of what worked: after a verified cancellation, the path
//! taken, per service and plugin version: for each step the page's URL
//! pattern, the action, and the target's role and name. Later runs give it
//! to the model as hints and to the offline policy and `--replay` as their
//! first choice. It is never ground truth: the page is. It never holds a
//! ref (refs live for one snapshot), and never a typed secret.
//!
//! One file per service and plugin version, `memory/<service>@<version>.json`
//! in the data folder; `subterminator memory show|forget <service>`.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::plugin::HintAction;

/// The longest value a remembered step keeps (an option, a short answer).
pub const MAX_VALUE_CHARS: usize = 100;

/// The most steps a path keeps: a longer one is no ordinary cancellation.
pub const MAX_STEPS: usize = 40;

/// One step of a path: an action on the element found by its role and
/// name. The one type for a step that worked (remembered, replayed) and for
/// one a walk file prescribes (`scaffold::walk`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// The page's path with ids made `*`: `/account/*/cancel`. `None` for a
    /// step meant for whichever page is shown (a walk file's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub action: HintAction,
    pub role: String,
    pub name: String,
    /// The option chosen or the text typed, when the action carries one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

impl Step {
    /// `on /account: click button "Cancel Membership"`.
    pub fn describe(&self) -> String {
        let action = match self.action {
            HintAction::Click => "click",
            HintAction::Select => "choose",
            HintAction::Fill => "fill",
        };
        let value = self
            .value
            .as_ref()
            .map(|v| format!(" with \"{v}\""))
            .unwrap_or_default();
        let on = self
            .url
            .as_ref()
            .map(|u| format!("on {u}: "))
            .unwrap_or_default();
        format!("{on}{action} {} \"{}\"{value}", self.role, self.name)
    }

    /// Whether this step belongs on the page at `url`: taken there, or
    /// meant for any page.
    pub fn on(&self, url: &str) -> bool {
        match &self.url {
            Some(pattern) => url_pattern(url).is_some_and(|p| p == *pattern),
            None => true,
        }
    }
}

/// A service's remembered path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Remembered {
    pub service: String,
    pub plugin_version: String,
    /// The host the run started on: a path that worked on a local copy
    /// (127.0.0.1) is never offered on the real site, nor the other way.
    pub site: String,
    /// When it last worked, RFC 3339.
    pub saved_at: String,
    pub steps: Vec<Step>,
}

/// Where memories are kept: one folder in the data directory.
#[derive(Debug, Clone)]
pub struct Memory {
    dir: PathBuf,
}

impl Memory {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    fn file(&self, service: &str, version: &str) -> PathBuf {
        self.dir.join(format!("{service}@{version}.json"))
    }

    /// The path remembered for this service and plugin version, if any. A
    /// file that cannot be read is no memory (logged), never an error: it
    /// was only ever a hint.
    pub fn load(&self, service: &str, version: &str, site: &str) -> Option<Remembered> {
        let file = self.file(service, version);
        let text = std::fs::read_to_string(&file).ok()?;
        match serde_json::from_str::<Remembered>(&text) {
            Ok(path)
                if path.service == service
                    && path.plugin_version == version
                    && path.site == site =>
            {
                Some(path)
            }
            Ok(_) => None,
            Err(e) => {
                tracing::warn!("{}: not a remembered path ({e}); ignored", file.display());
                None
            }
        }
    }

    /// Remembers `steps` as the path that worked, replacing the one before.
    pub fn save(
        &self,
        service: &str,
        version: &str,
        site: &str,
        steps: Vec<Step>,
    ) -> Result<PathBuf> {
        let file = self.file(service, version);
        let path = Remembered {
            service: service.to_owned(),
            plugin_version: version.to_owned(),
            site: site.to_owned(),
            saved_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            steps: steps.into_iter().take(MAX_STEPS).collect(),
        };
        let text = serde_json::to_string_pretty(&path)
            .map_err(|e| Error::Configuration(format!("cannot write the memory: {e}")))?;
        crate::plugin::write_atomic(&file, text.as_bytes())
            .map_err(|e| Error::Configuration(e.to_string()))?;
        Ok(file)
    }

    /// Every remembered path of `service`, any plugin version.
    pub fn of_service(&self, service: &str) -> Vec<(PathBuf, Remembered)> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let prefix = format!("{service}@");
        let mut found: Vec<(PathBuf, Remembered)> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".json"))
            })
            .filter_map(|p| {
                let text = std::fs::read_to_string(&p).ok()?;
                let path = serde_json::from_str::<Remembered>(&text).ok()?;
                Some((p, path))
            })
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0));
        found
    }

    /// Forgets every remembered path of `service`; how many files went.
    pub fn forget(&self, service: &str) -> Result<usize> {
        let mut gone = 0;
        for (file, _) in self.of_service(service) {
            std::fs::remove_file(&file)
                .map_err(|e| Error::io("cannot remove the memory", &file, e))?;
            gone += 1;
        }
        Ok(gone)
    }
}

/// The part of `url` a step is remembered by: the path, with segments that
/// look like ids (digits, long hex, uuids) made `*`. `None` for what is no
/// URL.
pub fn url_pattern(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    let parts: Vec<String> = parsed
        .path()
        .split('/')
        .map(|part| {
            let id = part.len() >= 6
                && part.chars().any(|c| c.is_ascii_digit())
                && part.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
            if id || (!part.is_empty() && part.chars().all(|c| c.is_ascii_digit())) {
                "*".to_owned()
            } else {
                part.to_owned()
            }
        })
        .collect();
    Some(parts.join("/"))
}

/// The site a run on `url` remembers by: its host.
pub fn site_of(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_default()
}

/// A value worth keeping: short, one line.
pub fn keepable(value: &str) -> Option<String> {
    let value = value.trim();
    (!value.is_empty() && value.chars().count() <= MAX_VALUE_CHARS && !value.contains('\n'))
        .then(|| value.to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn url_patterns_keep_the_words_and_hide_the_ids() {
        let cases = [
            ("https://www.netflix.com/account", Some("/account")),
            (
                "https://www.netflix.com/cancelplan/survey?x=1#y",
                Some("/cancelplan/survey"),
            ),
            (
                "http://127.0.0.1:4000/account/123456/cancel",
                Some("/account/*/cancel"),
            ),
            (
                "https://x.com/s/0f3a9c2e-77aa-4b5c-9d9d-0123456789ab/confirm",
                Some("/s/*/confirm"),
            ),
            (
                "https://x.com/plans/premium-2024/",
                Some("/plans/premium-2024/"),
            ),
            ("https://x.com/step/2", Some("/step/*")),
            ("not a url", None),
        ];
        for (url, want) in cases {
            assert_eq!(url_pattern(url).as_deref(), want, "{url}");
        }
    }

    #[test]
    fn saved_paths_load_per_version_and_are_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let memory = Memory::new(dir.path());
        let step = Step {
            url: Some("/account".into()),
            action: HintAction::Click,
            role: "button".into(),
            name: "Cancel Membership".into(),
            value: None,
        };
        let site = site_of("https://www.netflix.com/account");
        assert_eq!(site, "www.netflix.com");
        memory
            .save("netflix", "1.0.0", &site, vec![step.clone()])
            .unwrap();
        assert_eq!(
            memory.load("netflix", "1.0.0", &site).unwrap().steps,
            vec![step]
        );
        assert!(
            memory.load("netflix", "2.0.0", &site).is_none(),
            "another version remembers nothing"
        );
        assert!(
            memory.load("netflix", "1.0.0", "127.0.0.1").is_none(),
            "a local copy's path is not the real site's"
        );
        assert!(memory.load("spotify", "1.0.0", &site).is_none());
        std::fs::write(dir.path().join("hulu@1.0.0.json"), "not json").unwrap();
        assert!(
            memory.load("hulu", "1.0.0", &site).is_none(),
            "a broken file is no memory"
        );
        assert_eq!(memory.of_service("netflix").len(), 1);
        assert_eq!(memory.forget("netflix").unwrap(), 1);
        assert!(memory.load("netflix", "1.0.0", &site).is_none());
    }

    #[test]
    fn a_step_reads_as_a_hint() {
        let step = Step {
            url: Some("/cancelplan/survey".into()),
            action: HintAction::Select,
            role: "combobox".into(),
            name: "Reason for leaving".into(),
            value: Some("Other".into()),
        };
        assert_eq!(
            step.describe(),
            "on /cancelplan/survey: choose combobox \"Reason for leaving\" with \"Other\""
        );
        assert!(step.on("http://127.0.0.1:9/cancelplan/survey?reason=x"));
        assert!(!step.on("http://127.0.0.1:9/cancelplan/confirm"));
    }
}
