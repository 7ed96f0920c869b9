//! Builds the test plugins under `tests/plugins/` to wasm components and
//! tells the tests where they are: one `SUBTERMINATOR_*_WASM` variable per
//! plugin, read with `env!` at compile time.

use std::path::PathBuf;

/// Each test plugin's package, and the variable that gives the tests its
/// `.wasm` path.
const TEST_PLUGINS: &[(&str, &str)] = &[
    // Tries every escape from the sandbox.
    ("subterminator-plugin-abuse", "SUBTERMINATOR_ABUSE_WASM"),
    // Speaks a made-up API 0.9.0: refused as unsupported.
    (
        "subterminator-plugin-future-api",
        "SUBTERMINATOR_FUTURE_API_WASM",
    ),
    // Built straight from the frozen wit/v0.1.0, metadata only: loads, and
    // the host's floor alone guards it.
    (
        "subterminator-plugin-meta-only-v0-1",
        "SUBTERMINATOR_META_ONLY_V0_1_WASM",
    ),
    // API 0.2.0 from the SDK with no irreversible step: refused at load.
    (
        "subterminator-plugin-meta-only-v0-2",
        "SUBTERMINATOR_META_ONLY_V0_2_WASM",
    ),
    // Built straight from the frozen wit/v0.3.0, its overlay the commit
    // button: refused at load.
    (
        "subterminator-plugin-commit-overlay-v0-3",
        "SUBTERMINATOR_COMMIT_OVERLAY_V0_3_WASM",
    ),
    // API 0.4.0 declaring `POST *` harmless: refused at load.
    (
        "subterminator-plugin-lying-harmless",
        "SUBTERMINATOR_LYING_HARMLESS_WASM",
    ),
];

fn main() {
    if let Err(message) = run() {
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    println!("cargo:rerun-if-env-changed=SUBTERMINATOR_BROWSER");
    need_browser_tools()?;
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let workspace = manifest
        .parent()
        .ok_or("the tests crate has no parent")?
        .to_path_buf();
    for watched in ["tests/plugins", "sdk/rust/src", "wit"] {
        println!(
            "cargo:rerun-if-changed={}",
            workspace.join(watched).display()
        );
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"))
        .join("wasm-plugins");
    let (packages, vars): (Vec<&str>, Vec<&str>) = TEST_PLUGINS.iter().copied().unzip();
    let wasm = subterminator_sdk::build::build_components(&workspace, &packages, &target_dir)?;
    // Where the plugins' dependencies are compiled for wasm32: the tests
    // that scaffold a Rust plugin build it there too.
    println!(
        "cargo:rustc-env=SUBTERMINATOR_WASM_PLUGINS_TARGET={}",
        target_dir.display()
    );
    for (var, path) in vars.iter().zip(&wasm) {
        println!("cargo:rustc-env={var}={}", path.display());
    }
    Ok(())
}

/// The end-to-end tests drive a real Chromium through Node.js: stop the
/// build at once, with what to run, rather than fail every test later.
fn need_browser_tools() -> Result<(), String> {
    let on_path = |name: &str| {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(name).is_file()))
    };
    if !on_path("npx") {
        return Err(
            "the tests need Node.js 18+ with npx; run: apt-get install -y nodejs npm".into(),
        );
    }
    let explicit = std::env::var_os("SUBTERMINATOR_BROWSER").map(PathBuf::from);
    let found = explicit.as_ref().is_some_and(|p| p.is_file())
        || [
            "chromium",
            "chromium-browser",
            "google-chrome",
            "google-chrome-stable",
        ]
        .iter()
        .any(|name| on_path(name));
    if !found {
        return Err(
            "the tests need Chromium; run: apt-get install -y chromium (or set SUBTERMINATOR_BROWSER=/path/to/chrome)"
                .into(),
        );
    }
    Ok(())
}
