//! Writing plugins: `plugin new`'s templates, and the fixture files that it
//! ships and `plugin record` saves.
//!
//! A new plugin must build and pass its own tests the moment it is written,
//! so that the author's first change is the first thing that can break it.
//! Both kinds describe one example service whose pages live in
//! `scaffold/example/`; the same fixtures check both, so a Rust author and a
//! `service.toml` author start from the same answers.
//!
//! - [`capture`]: the files one captured page becomes, and when a page counts
//!   as new;
//! - [`mask`]: what must never reach a saved fixture (typed passwords);
//! - [`walk`]: the scripted walker's steps, for tests and CI.

pub mod capture;
pub mod walk;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use subterminator_core::error::{Error, Result};
use subterminator_core::plugin::bounds::ID_MAX_CHARS;

/// Names the SDK folder when `--sdk` does not.
pub const SDK_PATH_ENV: &str = "SUBTERMINATOR_SDK_PATH";

/// The SDK of the source tree this binary was built from: present on a
/// developer's machine, absent where only the binary was installed.
pub const BUILT_FROM_SDK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../sdk/rust");

/// The SDK's crate name, looked for in a folder's `Cargo.toml`.
const SDK_CRATE: &str = "subterminator-sdk";

/// The example service's pages: (file name in `fixtures/`, contents).
const EXAMPLE_FIXTURES: &[(&str, &str)] = &[
    (
        "account.yaml",
        include_str!("scaffold/example/account.yaml"),
    ),
    (
        "account.toml",
        include_str!("scaffold/example/account.toml"),
    ),
    (
        "confirm.yaml",
        include_str!("scaffold/example/confirm.yaml"),
    ),
    (
        "confirm.toml",
        include_str!("scaffold/example/confirm.toml"),
    ),
    (
        "cancelled.yaml",
        include_str!("scaffold/example/cancelled.yaml"),
    ),
    (
        "cancelled.toml",
        include_str!("scaffold/example/cancelled.toml"),
    ),
    ("login.yaml", include_str!("scaffold/example/login.yaml")),
    ("login.toml", include_str!("scaffold/example/login.toml")),
];

const RUST_CARGO_TOML: &str = include_str!("scaffold/rust/Cargo.toml.tmpl");
const RUST_LIB_RS: &str = include_str!("scaffold/rust/lib.rs.tmpl");
const RUST_README: &str = include_str!("scaffold/rust/README.md.tmpl");
const RUST_GITIGNORE: &str = include_str!("scaffold/rust/gitignore");
const SERVICE_TOML: &str = include_str!("scaffold/declarative/service.toml.tmpl");
const DECLARATIVE_README: &str = include_str!("scaffold/declarative/README.md.tmpl");

/// Which kind of plugin to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A crate built to a WebAssembly component with the SDK.
    Rust,
    /// A `service.toml`, run by the interpreter that ships with the host.
    Declarative,
}

/// Where a Rust plugin finds the SDK.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sdk {
    /// The Rust SDK's folder (`sdk/rust/`) of a subterminator source tree, absolute.
    Path(PathBuf),
    /// No SDK folder known. The SDK is not on crates.io yet, so the plugin
    /// will not build until its `Cargo.toml` names a folder.
    Unpublished,
}

/// Where the SDK comes from: `--sdk`, else [`SDK_PATH_ENV`], else
/// `built_from` when it holds the SDK. A folder the person named must hold
/// it; the one this binary remembers may be long gone.
pub fn resolve_sdk(flag: Option<&Path>, env: Option<&OsStr>, built_from: &Path) -> Result<Sdk> {
    if let Some(path) = flag {
        return sdk_folder(path).map(Sdk::Path).ok_or_else(|| {
            Error::Configuration(format!(
                "--sdk {}: no {SDK_CRATE} crate there. Pass the `sdk` folder of a subterminator \
                 source tree (or the `sdk/rust` inside it).",
                path.display()
            ))
        });
    }
    if let Some(value) = env.filter(|v| !v.is_empty()) {
        let path = Path::new(value);
        return sdk_folder(path).map(Sdk::Path).ok_or_else(|| {
            Error::Configuration(format!(
                "{SDK_PATH_ENV}={}: no {SDK_CRATE} crate there. Point it at the `sdk` folder of \
                 a subterminator source tree (or the `sdk/rust` inside it), or unset it.",
                path.display()
            ))
        });
    }
    Ok(sdk_folder(built_from).map_or(Sdk::Unpublished, Sdk::Path))
}

/// `path` made absolute, when its `Cargo.toml` is the SDK's; the authoring
/// kit's folder (`sdk/`, which holds the Rust SDK in `rust/`) names it too.
fn sdk_folder(path: &Path) -> Option<PathBuf> {
    crate_folder(path).or_else(|| crate_folder(&path.join("rust")))
}

fn crate_folder(path: &Path) -> Option<PathBuf> {
    let manifest = std::fs::read_to_string(path.join("Cargo.toml")).ok()?;
    let table: toml::Table = toml::from_str(&manifest).ok()?;
    let name = table.get("package")?.get("name")?.as_str()?;
    if name != SDK_CRATE {
        return None;
    }
    std::fs::canonicalize(path).ok()
}

/// Refuses an id the host would refuse at load, naming the rule.
pub fn check_id(id: &str) -> Result<()> {
    let ok = !id.is_empty()
        && id.len() <= ID_MAX_CHARS
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if ok {
        Ok(())
    } else {
        Err(Error::Configuration(format!(
            "{id:?} cannot be a plugin id: use 1-{ID_MAX_CHARS} characters of a-z, 0-9 and '-', \
             e.g. `acme-tv`."
        )))
    }
}

/// `acme-tv` → `Acme Tv`: a start the author will likely correct, never empty.
pub fn display_name(id: &str) -> String {
    let words: Vec<String> = id
        .split('-')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect();
    if words.is_empty() {
        id.to_owned()
    } else {
        words.join(" ")
    }
}

/// The Rust plugin's package name.
pub fn crate_name(id: &str) -> String {
    format!("subterminator-plugin-{id}")
}

/// The component `cargo build --target wasm32-wasip2` makes, without `.wasm`.
pub fn wasm_name(id: &str) -> String {
    crate_name(id).replace('-', "_")
}

/// Every file of a new plugin: (path relative to its folder, contents).
pub fn render(kind: Kind, id: &str, sdk: &Sdk) -> Vec<(PathBuf, String)> {
    let fill = |template: &str| {
        template
            .replace("{{id}}", id)
            .replace("{{display_name}}", &display_name(id))
            .replace("{{crate_name}}", &crate_name(id))
            .replace("{{wasm_name}}", &wasm_name(id))
            .replace("{{sdk_dependency}}", &sdk_dependency(sdk))
    };
    let mut files: Vec<(PathBuf, String)> = match kind {
        Kind::Rust => vec![
            ("Cargo.toml".into(), fill(RUST_CARGO_TOML)),
            ("src/lib.rs".into(), fill(RUST_LIB_RS)),
            (".gitignore".into(), RUST_GITIGNORE.to_owned()),
            ("README.md".into(), fill(RUST_README)),
        ],
        Kind::Declarative => vec![
            ("service.toml".into(), fill(SERVICE_TOML)),
            ("README.md".into(), fill(DECLARATIVE_README)),
        ],
    };
    files.extend(
        EXAMPLE_FIXTURES
            .iter()
            .map(|(name, text)| (Path::new("fixtures").join(name), (*text).to_owned())),
    );
    files
}

/// The SDK line of the plugin's `Cargo.toml`.
fn sdk_dependency(sdk: &Sdk) -> String {
    match sdk {
        Sdk::Path(path) => {
            // A TOML string, so that quotes and backslashes in the path survive.
            let path = toml::Value::String(path.display().to_string());
            format!("{SDK_CRATE} = {{ path = {path} }}")
        }
        Sdk::Unpublished => format!(
            "# The SDK is not published on crates.io yet, so this line does not resolve: create\n\
             # the plugin again with `--sdk /path/to/subterminator/sdk`, or replace it with\n\
             # {SDK_CRATE} = {{ path = \"/path/to/subterminator/sdk/rust\" }}.\n\
             {SDK_CRATE} = {{ version = \"0.1\" }}"
        ),
    }
}

/// Writes `files` into `dir`, which must not exist or be an empty folder: a
/// scaffold never overwrites anyone's work. Returns the paths written.
pub fn write(dir: &Path, files: &[(PathBuf, String)]) -> Result<Vec<PathBuf>> {
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir).map_err(|e| {
            Error::Configuration(format!(
                "{} exists and is not a folder I can read ({e}). Choose another with --dir.",
                dir.display()
            ))
        })?;
        if entries.next().is_some() {
            return Err(Error::Configuration(format!(
                "{} is not empty, and a new plugin never overwrites files. Choose another folder \
                 with --dir, or move its contents away.",
                dir.display()
            )));
        }
    }
    let mut written = Vec::with_capacity(files.len());
    for (relative, contents) in files {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::io("cannot create the folder", parent, e))?;
        }
        std::fs::write(&path, contents).map_err(|e| Error::io("cannot write", &path, e))?;
        written.push(relative.clone());
    }
    Ok(written)
}

#[cfg(test)]
mod tests;
