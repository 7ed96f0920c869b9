#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::*;

/// A folder holding an SDK crate, as `--sdk` would name.
fn fake_sdk(root: &Path) -> PathBuf {
    let sdk = root.join("sdk");
    std::fs::create_dir_all(&sdk).unwrap();
    std::fs::write(
        sdk.join("Cargo.toml"),
        "[package]\nname = \"subterminator-sdk\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    sdk
}

fn scaffold_into(dir: &Path, kind: Kind, id: &str, sdk: &Sdk) -> Vec<PathBuf> {
    write(dir, &render(kind, id, sdk)).unwrap()
}

#[test]
fn both_kinds_write_their_files_with_the_id_filled_in() {
    let root = tempfile::tempdir().unwrap();
    let sdk = Sdk::Path(fake_sdk(root.path()));
    let fixtures = [
        "fixtures/account.yaml",
        "fixtures/account.toml",
        "fixtures/confirm.yaml",
        "fixtures/confirm.toml",
        "fixtures/cancelled.yaml",
        "fixtures/cancelled.toml",
        "fixtures/login.yaml",
        "fixtures/login.toml",
        "README.md",
    ];
    // (kind, its own files, (file, text it must contain)).
    type Case<'a> = (Kind, &'a [&'a str], &'a [(&'a str, &'a str)]);
    let cases: [Case; 2] = [
        (
            Kind::Rust,
            &["Cargo.toml", "src/lib.rs", ".gitignore"],
            &[
                ("Cargo.toml", "name = \"subterminator-plugin-acme-tv\""),
                ("src/lib.rs", "id: \"acme-tv\".into()"),
                ("src/lib.rs", "display_name: \"Acme Tv\".into()"),
                ("src/lib.rs", ".irreversible()"),
                ("src/lib.rs", "register_service!(Plugin);"),
                ("README.md", "subterminator_plugin_acme_tv.wasm"),
                ("README.md", "subterminator plugin test ."),
                ("README.md", "plugin record acme-tv"),
                (".gitignore", "target/"),
            ],
        ),
        (
            Kind::Declarative,
            &["service.toml"],
            &[
                ("service.toml", "id = \"acme-tv\""),
                ("service.toml", "display-name = \"Acme Tv\""),
                ("service.toml", "irreversible = true"),
                ("README.md", "subterminator plugin install service.toml"),
                ("README.md", "plugin record acme-tv"),
            ],
        ),
    ];
    for (kind, own, contains) in cases {
        let dir = root.path().join(format!("{kind:?}"));
        let written = scaffold_into(&dir, kind, "acme-tv", &sdk);
        for file in fixtures.iter().chain(own) {
            assert!(dir.join(file).is_file(), "{kind:?}: {file} missing");
            assert!(
                written.contains(&PathBuf::from(file)),
                "{kind:?}: {file} not listed"
            );
            let text = std::fs::read_to_string(dir.join(file)).unwrap();
            assert!(
                !text.contains("{{"),
                "{kind:?}: {file} has a placeholder left"
            );
        }
        for (file, needle) in contains {
            let text = std::fs::read_to_string(dir.join(file)).unwrap();
            assert!(text.contains(needle), "{kind:?}: {file} lacks {needle:?}");
        }
    }
}

#[test]
fn every_key_line_of_service_toml_has_a_comment() {
    let files = render(Kind::Declarative, "acme-tv", &Sdk::Unpublished);
    let (_, text) = files
        .iter()
        .find(|(p, _)| p == Path::new("service.toml"))
        .unwrap();
    let mut keys = 0;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        keys += 1;
        assert!(
            line.contains(" # "),
            "line {} has no comment: {line}",
            n + 1
        );
    }
    assert!(keys > 20, "only {keys} key lines");
}

#[test]
fn the_service_toml_is_one_the_format_accepts() {
    let files = render(Kind::Declarative, "acme-tv", &Sdk::Unpublished);
    let (_, text) = files
        .iter()
        .find(|(p, _)| p == Path::new("service.toml"))
        .unwrap();
    let file = subterminator_declarative::parse(text).unwrap();
    assert_eq!(file.service.id, "acme-tv");
}

#[test]
fn the_example_fixtures_are_ones_plugin_test_reads() {
    let root = tempfile::tempdir().unwrap();
    scaffold_into(root.path(), Kind::Declarative, "acme-tv", &Sdk::Unpublished);
    let fixtures = subterminator_core::fixture::load_dir(&root.path().join("fixtures")).unwrap();
    let names: Vec<&str> = fixtures.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["account", "cancelled", "confirm", "login"]);
    for fixture in &fixtures {
        assert!(fixture.expect.verify.is_some(), "{}", fixture.name);
        assert!(fixture.expect.auth.is_some(), "{}", fixture.name);
        for call in &fixture.expect.checkpoint {
            let found = fixture
                .snapshot
                .elements
                .iter()
                .any(|e| e.role == call.role && e.name == call.name);
            assert!(found, "{}: no {} {:?}", fixture.name, call.role, call.name);
        }
    }
}

#[test]
fn ids_table() {
    let cases = [
        ("acme-tv", true),
        ("a", true),
        ("1password", true),
        (&*"x".repeat(ID_MAX_CHARS), true),
        (&*"x".repeat(ID_MAX_CHARS + 1), false),
        ("", false),
        ("Acme", false),
        ("acme_tv", false),
        ("acme tv", false),
        ("../etc", false),
        ("acmé", false),
    ];
    for (id, ok) in cases {
        assert_eq!(check_id(id).is_ok(), ok, "{id:?}");
    }
    let refused = check_id("Acme").unwrap_err().to_string();
    assert!(refused.contains("a-z, 0-9 and '-'"), "{refused}");
}

#[test]
fn display_names_table() {
    let cases = [
        ("acme-tv", "Acme Tv"),
        ("netflix", "Netflix"),
        ("1password", "1password"),
        ("a--b-", "A B"),
        ("-", "-"),
    ];
    for (id, want) in cases {
        assert_eq!(display_name(id), want, "{id:?}");
    }
}

#[test]
fn a_folder_with_anything_in_it_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let full = root.path().join("full");
    std::fs::create_dir_all(&full).unwrap();
    std::fs::write(full.join("notes.txt"), "mine").unwrap();
    let file = root.path().join("a-file");
    std::fs::write(&file, "mine").unwrap();
    let empty = root.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let cases = [
        (full.clone(), false),
        (file.clone(), false),
        (empty, true),
        (root.path().join("new/nested"), true),
    ];
    for (dir, ok) in cases {
        let result = write(&dir, &render(Kind::Declarative, "acme", &Sdk::Unpublished));
        assert_eq!(result.is_ok(), ok, "{}: {result:?}", dir.display());
    }
    let refused = write(&full, &render(Kind::Rust, "acme", &Sdk::Unpublished))
        .unwrap_err()
        .to_string();
    assert!(refused.contains("--dir"), "{refused}");
    assert_eq!(
        std::fs::read_to_string(full.join("notes.txt")).unwrap(),
        "mine"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

#[test]
fn sdk_sources_table() {
    let root = tempfile::tempdir().unwrap();
    let sdk = fake_sdk(root.path());
    let canonical = std::fs::canonicalize(&sdk).unwrap();
    let not_sdk = root.path().join("other");
    std::fs::create_dir_all(&not_sdk).unwrap();
    std::fs::write(
        not_sdk.join("Cargo.toml"),
        "[package]\nname = \"other\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    let gone = root.path().join("gone");
    let found = Some(Sdk::Path(canonical));
    // (case, --sdk, the environment variable, the source tree's SDK, the
    // answer or None for a refusal).
    type Case<'a> = (
        &'a str,
        Option<&'a Path>,
        Option<&'a Path>,
        &'a Path,
        Option<Sdk>,
    );
    let cases: [Case; 7] = [
        ("flag", Some(&sdk), None, &gone, found.clone()),
        (
            "flag beats env",
            Some(&sdk),
            Some(&not_sdk),
            &gone,
            found.clone(),
        ),
        ("flag not an SDK", Some(&not_sdk), None, &sdk, None),
        ("env", None, Some(&sdk), &gone, found.clone()),
        ("env not an SDK", None, Some(&gone), &sdk, None),
        ("source tree", None, None, &sdk, found),
        ("nothing", None, None, &gone, Some(Sdk::Unpublished)),
    ];
    for (name, flag, env, built_from, want) in cases {
        let got = resolve_sdk(flag, env.map(Path::as_os_str), built_from);
        match want {
            Some(want) => assert_eq!(got.unwrap(), want, "{name}"),
            None => assert!(got.is_err(), "{name}: {got:?}"),
        }
    }
    let refused = resolve_sdk(Some(&not_sdk), None, &gone)
        .unwrap_err()
        .to_string();
    assert!(refused.contains("`sdk` folder"), "{refused}");
}

#[test]
fn cargo_toml_is_its_own_workspace_with_either_sdk() {
    let cases = [
        (
            Sdk::Path(PathBuf::from("/src/sub \"terminator\"/sdk")),
            true,
        ),
        (Sdk::Unpublished, false),
    ];
    for (sdk, has_path) in cases {
        let files = render(Kind::Rust, "acme", &sdk);
        let (_, text) = files
            .iter()
            .find(|(p, _)| p == Path::new("Cargo.toml"))
            .unwrap();
        let manifest: toml::Table = toml::from_str(text).unwrap();
        assert!(manifest["workspace"].as_table().unwrap().is_empty());
        let types = manifest["lib"]["crate-type"].as_array().unwrap();
        assert_eq!(types.len(), 2, "{types:?}");
        let dependency = &manifest["dependencies"]["subterminator-sdk"];
        if has_path {
            assert_eq!(
                dependency["path"].as_str(),
                Some("/src/sub \"terminator\"/sdk")
            );
        } else {
            assert_eq!(dependency["version"].as_str(), Some("0.1"));
            assert!(text.contains("--sdk"), "{text}");
        }
    }
}

/// Where the scaffold check builds, shared between runs so that only the
/// plugin itself is compiled again.
const SCAFFOLD_TARGET_DIR: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/scaffold-check");

#[test]
#[ignore = "builds a crate: slow"]
fn the_rust_scaffold_builds_and_passes_its_own_tests() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("acme-tv");
    let sdk = resolve_sdk(None, None, Path::new(BUILT_FROM_SDK)).unwrap();
    assert!(matches!(sdk, Sdk::Path(_)), "no SDK at {BUILT_FROM_SDK}");
    scaffold_into(&dir, Kind::Rust, "acme-tv", &sdk);
    let started = Instant::now();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .arg("test")
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", SCAFFOLD_TARGET_DIR)
        // The outer build's flags are for the host, not for this crate.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!(
        "cargo test of the scaffold took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(
        output.status.success(),
        "cargo test failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("every_fixture_gets_the_expected_answers ... ok"),
        "{stdout}"
    );
    assert!(stdout.contains("test result: ok. 2 passed"), "{stdout}");
}
