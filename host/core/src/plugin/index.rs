//! The plugin index `plugin install <id>` looks ids up in: a TOML file, local
//! or served over https, whose entries pin each plugin's bytes by SHA-256.

use serde::Deserialize;

use super::installed::is_sha256_hex;

/// The whole index.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Index {
    /// One entry per published plugin version.
    ///
    /// ```toml
    /// [[plugin]]
    /// id = "acme"
    /// ```
    #[serde(default, rename = "plugin")]
    pub plugins: Vec<IndexEntry>,
}

/// One published plugin version.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct IndexEntry {
    /// The service id.
    ///
    /// ```toml
    /// id = "acme"
    /// ```
    pub id: String,
    /// The plugin's version.
    ///
    /// ```toml
    /// version = "1.2.0"
    /// ```
    pub version: String,
    /// The plugin API versions it runs on, as comparisons joined by commas.
    ///
    /// ```toml
    /// api = ">=0.2.0, <0.3.0"
    /// ```
    pub api: String,
    /// Where its `.wasm` or `service.toml` is: an https URL, or a path
    /// relative to the index.
    ///
    /// ```toml
    /// url = "https://plugins.example.org/acme-1.2.0.wasm"
    /// ```
    pub url: String,
    /// SHA-256 of the file, hex.
    ///
    /// ```toml
    /// sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    /// ```
    pub sha256: String,
}

impl Index {
    pub fn parse(text: &str) -> Result<Self, String> {
        let index: Index = toml::from_str(text).map_err(|e| e.to_string())?;
        for entry in &index.plugins {
            if !is_sha256_hex(&entry.sha256) {
                return Err(format!(
                    "plugin '{}' {}: sha256 {:?} is not 64 hex digits",
                    entry.id, entry.version, entry.sha256
                ));
            }
            ApiRange::parse(&entry.api)
                .map_err(|e| format!("plugin '{}' {}: api: {e}", entry.id, entry.version))?;
        }
        Ok(index)
    }

    /// The newest version of `id` whose API range takes one of `supported`.
    pub fn resolve(&self, id: &str, supported: &[&str]) -> Result<&IndexEntry, String> {
        let versions: Vec<&IndexEntry> = self.plugins.iter().filter(|e| e.id == id).collect();
        if versions.is_empty() {
            let mut ids: Vec<&str> = self.plugins.iter().map(|e| e.id.as_str()).collect();
            ids.dedup();
            return Err(format!(
                "the index has no plugin '{id}' (it has: {}); check the id",
                if ids.is_empty() {
                    "none".to_owned()
                } else {
                    ids.join(", ")
                }
            ));
        }
        versions
            .iter()
            .filter(|e| {
                ApiRange::parse(&e.api)
                    .is_ok_and(|range| supported.iter().any(|v| range.accepts(v)))
            })
            .max_by_key(|e| version_key(&e.version))
            .copied()
            .ok_or_else(|| {
                format!(
                    "no version of '{id}' in the index runs on plugin API {} (it offers: {}); update subterminator",
                    supported.join(" or "),
                    versions
                        .iter()
                        .map(|e| format!("{} for API {}", e.version, e.api))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    }
}

/// `>=0.2.0, <0.3.0`: every comparison must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiRange(Vec<(Op, [u64; 3])>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Ge,
    Gt,
    Le,
    Lt,
    Eq,
}

impl ApiRange {
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut clauses = Vec::new();
        for clause in text.split(',').map(str::trim) {
            let (op, rest) = [
                (">=", Op::Ge),
                ("<=", Op::Le),
                (">", Op::Gt),
                ("<", Op::Lt),
                ("=", Op::Eq),
            ]
            .iter()
            .find_map(|(p, op)| clause.strip_prefix(p).map(|r| (*op, r)))
            .unwrap_or((Op::Eq, clause));
            let version = parse_version(rest.trim())
                .ok_or_else(|| format!("{clause:?} is not a comparison like >=0.2.0"))?;
            clauses.push((op, version));
        }
        Ok(Self(clauses))
    }

    pub fn accepts(&self, version: &str) -> bool {
        let Some(v) = parse_version(version) else {
            return false;
        };
        self.0.iter().all(|(op, bound)| match op {
            Op::Ge => v >= *bound,
            Op::Gt => v > *bound,
            Op::Le => v <= *bound,
            Op::Lt => v < *bound,
            Op::Eq => v == *bound,
        })
    }
}

/// `1.2.3` (or `1.2`, `1`) as numbers; anything else is not a version here.
fn parse_version(text: &str) -> Option<[u64; 3]> {
    let mut parts = [0u64; 3];
    let mut n = 0;
    for (i, part) in text.split('.').enumerate() {
        *parts.get_mut(i)? = part.parse().ok()?;
        n = i + 1;
    }
    (n > 0).then_some(parts)
}

/// Orders versions numerically; one that does not parse sorts first.
fn version_key(text: &str) -> [u64; 3] {
    parse_version(text.split(['-', '+']).next().unwrap_or(text)).unwrap_or([0; 3])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const SHA: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    fn index() -> Index {
        Index::parse(&format!(
            r#"
[[plugin]]
id = "acme"
version = "1.0.0"
api = ">=0.1.0, <0.2.0"
url = "acme-1.0.0.wasm"
sha256 = "{SHA}"

[[plugin]]
id = "acme"
version = "1.10.0"
api = ">=0.2.0, <0.3.0"
url = "acme-1.10.0.wasm"
sha256 = "{SHA}"

[[plugin]]
id = "acme"
version = "1.9.0"
api = "0.2.0"
url = "acme-1.9.0.wasm"
sha256 = "{SHA}"

[[plugin]]
id = "future"
version = "9.0.0"
api = ">=0.9.0"
url = "future.wasm"
sha256 = "{SHA}"
"#
        ))
        .unwrap()
    }

    #[test]
    fn resolves_the_newest_version_this_host_runs() {
        let index = index();
        let cases: &[(&str, &[&str], Result<&str, &str>)] = &[
            ("acme", &["0.2.0", "0.1.0"], Ok("1.10.0")),
            ("acme", &["0.1.0"], Ok("1.0.0")),
            ("future", &["0.2.0", "0.1.0"], Err("runs on plugin API")),
            (
                "nobody",
                &["0.2.0"],
                Err("the index has no plugin 'nobody'"),
            ),
        ];
        for (id, supported, want) in cases {
            let got = index.resolve(id, supported).map(|e| e.version.as_str());
            match want {
                Ok(v) => assert_eq!(got, Ok(*v), "{id}"),
                Err(w) => assert!(got.unwrap_err().contains(w), "{id}"),
            }
        }
    }

    #[test]
    fn ranges() {
        let cases = [
            (">=0.2.0, <0.3.0", "0.2.0", true),
            (">=0.2.0, <0.3.0", "0.2.9", true),
            (">=0.2.0, <0.3.0", "0.3.0", false),
            ("0.2.0", "0.2.0", true),
            ("=0.2", "0.2.0", true),
            (">0.1.0", "0.1.0", false),
            ("<=0.1.0", "0.1.0", true),
        ];
        for (range, version, want) in cases {
            assert_eq!(
                ApiRange::parse(range).unwrap().accepts(version),
                want,
                "{range} {version}"
            );
        }
        assert!(ApiRange::parse("~> 2").is_err());
    }

    #[test]
    fn bad_entries_are_refused() {
        let bad_api = format!(
            "[[plugin]]\nid=\"a\"\nversion=\"1\"\napi=\"newest\"\nurl=\"a\"\nsha256=\"{SHA}\"\n"
        );
        let cases = [
            (
                "[[plugin]]\nid=\"a\"\nversion=\"1\"\napi=\"0.2.0\"\nurl=\"a\"\nsha256=\"short\"\n",
                "not 64 hex digits",
            ),
            (
                "[[plugin]]\nid=\"a\"\nversion=\"1\"\napi=\"0.2.0\"\nurl=\"a\"\nsha256=\"\"\nsigned=true\n",
                "signed",
            ),
            (bad_api.as_str(), "api"),
        ];
        for (text, want) in cases {
            let err = Index::parse(text).unwrap_err();
            assert!(err.contains(want), "{err}");
        }
    }
}
