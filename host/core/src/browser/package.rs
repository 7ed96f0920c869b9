//! The pinned Playwright MCP package as npm already has it. `npx -y` costs a
//! second Node.js process and npm's own resolution on every start (0.3 to
//! 0.7 s on this machine); once npx has fetched the package, the host runs
//! its `cli.js` with node directly. Resolved once per process; when the
//! package is not in npm's cache, the launcher stays `npx -y`, which fetches
//! it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::{PLAYWRIGHT_MCP_PACKAGE, PLAYWRIGHT_MCP_VERSION};

/// npm's cache folder: `npm_config_cache`, else `~/.npm`.
fn npm_cache() -> Option<PathBuf> {
    std::env::var_os("npm_config_cache")
        .or_else(|| std::env::var_os("NPM_CONFIG_CACHE"))
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| directories::BaseDirs::new().map(|b| b.home_dir().join(".npm")))
}

/// The pinned release's `cli.js` in the npx cache under `cache`, if there.
pub fn find_in(cache: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(cache.join("_npx")).ok()?;
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path().join("node_modules").join(PLAYWRIGHT_MCP_PACKAGE))
        .filter(|dir| is_pinned(dir) && dir.join("cli.js").is_file())
        .map(|dir| dir.join("cli.js"))
        .collect();
    // Several npx folders may hold the release; any is the same code, and
    // the sorted first keeps the choice stable between runs.
    found.sort();
    found.into_iter().next()
}

/// Whether `dir/package.json` is the pinned release of the package.
fn is_pinned(dir: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(dir.join("package.json")) else {
        return false;
    };
    let Ok(manifest) = serde_json::from_str::<serde_json::Value>(&text) else {
        return false;
    };
    manifest["name"] == PLAYWRIGHT_MCP_PACKAGE && manifest["version"] == PLAYWRIGHT_MCP_VERSION
}

/// The cached `cli.js`, looked up once per process.
pub fn cached_cli() -> Option<PathBuf> {
    static CLI: OnceLock<Option<PathBuf>> = OnceLock::new();
    CLI.get_or_init(|| npm_cache().and_then(|cache| find_in(&cache)))
        .clone()
        // Removed since (npm cache clean): npx again.
        .filter(|cli| cli.is_file())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn package(cache: &Path, folder: &str, name: &str, version: &str, cli: bool) {
        let dir = cache
            .join("_npx")
            .join(folder)
            .join("node_modules")
            .join(PLAYWRIGHT_MCP_PACKAGE);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("package.json"),
            serde_json::json!({"name": name, "version": version}).to_string(),
        )
        .unwrap();
        if cli {
            std::fs::write(dir.join("cli.js"), "").unwrap();
        }
    }

    #[test]
    fn only_the_pinned_release_with_its_cli_is_used() {
        let cases = [
            (
                "another version",
                PLAYWRIGHT_MCP_PACKAGE,
                "0.0.1",
                true,
                false,
            ),
            (
                "another package",
                "@evil/mcp",
                PLAYWRIGHT_MCP_VERSION,
                true,
                false,
            ),
            (
                "no cli.js",
                PLAYWRIGHT_MCP_PACKAGE,
                PLAYWRIGHT_MCP_VERSION,
                false,
                false,
            ),
            (
                "the pinned one",
                PLAYWRIGHT_MCP_PACKAGE,
                PLAYWRIGHT_MCP_VERSION,
                true,
                true,
            ),
        ];
        for (what, name, version, cli, found) in cases {
            let cache = tempfile::tempdir().unwrap();
            package(cache.path(), "abc123", name, version, cli);
            assert_eq!(find_in(cache.path()).is_some(), found, "{what}");
        }
        let empty = tempfile::tempdir().unwrap();
        assert_eq!(find_in(empty.path()), None);
    }

    #[test]
    fn the_choice_is_stable_when_several_folders_hold_it() {
        let cache = tempfile::tempdir().unwrap();
        for folder in ["ffff", "0000", "8888"] {
            package(
                cache.path(),
                folder,
                PLAYWRIGHT_MCP_PACKAGE,
                PLAYWRIGHT_MCP_VERSION,
                true,
            );
        }
        let cli = find_in(cache.path()).unwrap();
        assert!(
            cli.to_string_lossy().contains("/_npx/0000/"),
            "{}",
            cli.display()
        );
    }
}
