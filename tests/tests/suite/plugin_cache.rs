//! The compiled-component cache only ever deserializes files this host
//! wrote; and the registry's view of bundled and installed plugins.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use subterminator_core::plugin::{
    CacheOutcome, ComponentCache, Plugin, PluginEngine, PluginSource, Registry, bundled_component,
};

fn netflix_wasm() -> &'static [u8] {
    bundled_component("subterminator-plugin-netflix").unwrap()
}

fn load(dir: &std::path::Path) -> CacheOutcome {
    let engine = PluginEngine::with_cache(ComponentCache::open(dir).unwrap()).unwrap();
    Plugin::load(&engine, "netflix", netflix_wasm())
        .unwrap()
        .cache_outcome()
}

#[test]
fn a_second_load_comes_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(load(dir.path()), CacheOutcome::Compiled);
    assert_eq!(load(dir.path()), CacheOutcome::Cached);
}

#[test]
fn foreign_files_are_never_deserialized() {
    let dir = tempfile::tempdir().unwrap();
    let cache = ComponentCache::open(dir.path()).unwrap();
    let engine = PluginEngine::new().unwrap();
    let path = cache.path_for(engine.engine(), netflix_wasm());
    // What an attacker could drop there: a real compiled component without
    // our MAC, garbage, or a truncated copy of a valid file.
    let foreign = engine
        .engine()
        .precompile_component(netflix_wasm())
        .unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("a raw precompiled component", foreign),
        (
            "garbage",
            b"STCWASM1 not a mac and not a component".to_vec(),
        ),
        ("empty", Vec::new()),
    ];
    for (name, bytes) in cases {
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(load(dir.path()), CacheOutcome::Compiled, "{name}");
        assert_ne!(std::fs::read(&path).unwrap(), bytes, "{name}: not replaced");
        assert_eq!(load(dir.path()), CacheOutcome::Cached, "{name}");
    }
    let valid = std::fs::read(&path).unwrap();
    std::fs::write(&path, &valid[..valid.len() / 2]).unwrap();
    assert_eq!(load(dir.path()), CacheOutcome::Compiled, "truncated");
}

#[test]
fn another_hosts_cache_file_is_not_trusted() {
    let ours = tempfile::tempdir().unwrap();
    let theirs = tempfile::tempdir().unwrap();
    load(theirs.path());
    let engine = PluginEngine::new().unwrap();
    let their_file = ComponentCache::open(theirs.path())
        .unwrap()
        .path_for(engine.engine(), netflix_wasm());
    let our_file = ComponentCache::open(ours.path())
        .unwrap()
        .path_for(engine.engine(), netflix_wasm());
    std::fs::copy(their_file, our_file).unwrap();
    assert_eq!(load(ours.path()), CacheOutcome::Compiled);
}

#[test]
fn the_cache_key_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    load(dir.path());
    let key = std::fs::metadata(dir.path().join("cache.key")).unwrap();
    assert_eq!(key.permissions().mode() & 0o777, 0o600);
    let folder = std::fs::metadata(dir.path()).unwrap();
    assert_eq!(folder.permissions().mode() & 0o777, 0o700);
}

#[test]
fn installed_plugins_load_beside_the_bundled_ones() {
    let home = tempfile::tempdir().unwrap();
    subterminator_tests::e2e::install_component(
        home.path(),
        "abuse",
        env!("SUBTERMINATOR_ABUSE_WASM"),
    )
    .unwrap();
    let dir = home.path().join("data/plugins");
    std::fs::write(dir.join("broken.wasm"), b"nope").unwrap();
    std::fs::write(dir.join("notes.txt"), b"ignored").unwrap();
    let registry = Registry::load(&PluginEngine::new().unwrap(), Some(&dir));
    let ids = registry.ids();
    assert_eq!(ids.first().map(String::as_str), Some("abuse"), "{ids:?}");
    assert_eq!(ids.len(), 12, "abuse and the eleven bundled: {ids:?}");
    assert!(matches!(
        registry.get("abuse").unwrap().source,
        PluginSource::Installed { .. }
    ));
    assert_eq!(
        registry.get("NETFLIX").unwrap().source,
        PluginSource::Bundled
    );
    // A file dropped in by hand is refused: nothing says where it came from.
    assert_eq!(registry.broken().len(), 1);
    let why = registry.broken()[0].1.to_string();
    assert!(
        why.contains("broken.wasm") && why.contains("not installed through"),
        "{why}"
    );
    let err = registry.get("crunchyroll").unwrap_err().to_string();
    assert_eq!(
        err,
        "Unknown service 'crunchyroll'. Available services: abuse, amazon-prime, disney-plus, hulu, max, netflix, nytimes, paramount-plus, peacock, practice, spotify, youtube-premium"
    );
}

#[test]
fn a_plugin_for_another_api_version_is_refused_clearly() {
    let wasm = std::fs::read(env!("SUBTERMINATOR_FUTURE_API_WASM")).unwrap();
    let err = Plugin::load(&PluginEngine::new().unwrap(), "future.wasm", &wasm).unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(
            err,
            subterminator_core::plugin::PluginError::UnsupportedApi { .. }
        ),
        "{text}"
    );
    assert!(
        text.contains("future.wasm")
            && text.contains("0.9.0")
            && text.contains("supports 0.4.0, 0.3.0, 0.2.0, 0.1.0"),
        "{text}"
    );
}

#[test]
fn an_api_0_2_plugin_that_marks_no_irreversible_step_is_refused_naming_it() {
    let wasm = std::fs::read(env!("SUBTERMINATOR_META_ONLY_V0_2_WASM")).unwrap();
    let err = Plugin::load(&PluginEngine::new().unwrap(), "meta.wasm", &wasm).unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(
            err,
            subterminator_core::plugin::PluginError::BadMetadata { .. }
        ),
        "{text}"
    );
    assert!(
        text.contains("meta-only-v0-2") && text.contains("marks no irreversible step"),
        "{text}"
    );
}

#[test]
fn an_api_0_1_plugin_still_loads_under_the_floor() {
    let wasm = std::fs::read(env!("SUBTERMINATOR_META_ONLY_V0_1_WASM")).unwrap();
    let plugin = Plugin::load(&PluginEngine::new().unwrap(), "meta.wasm", &wasm).unwrap();
    assert_eq!(plugin.api_version(), "0.1.0");
    assert!(plugin.plan().iter().all(|s| !s.irreversible));
}

#[test]
fn a_declarative_service_loads_as_any_plugin_and_runs_in_the_sandbox() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../sdk/declarative/examples/netflix.toml"),
    )
    .unwrap();
    let engine = PluginEngine::new().unwrap();
    let mut registry = Registry::load(&engine, None);
    registry.add_declarative(&engine, "netflix.toml", &text, PluginSource::Bundled);
    assert!(registry.broken().is_empty(), "{:?}", registry.broken());
    let entry = registry.get("netflix-declarative").unwrap();
    assert_eq!(
        entry.kind,
        subterminator_core::plugin::PluginKind::Declarative
    );
    assert_eq!(
        entry.sha256,
        subterminator_core::plugin::sha256_hex(text.as_bytes())
    );
    // The interpreter's API, whatever the file says.
    assert_eq!(entry.api_version, "0.4.0");
    assert!(entry.plan.iter().any(|s| s.irreversible));

    // A file the host's parser refuses never reaches the sandbox, and says
    // where it is wrong.
    registry.add_declarative(
        &engine,
        "broken.toml",
        &text.replacen("[service]", "[service]\ncolour = \"red\"", 1),
        PluginSource::Bundled,
    );
    let (name, why) = &registry.broken()[0];
    assert_eq!(name, "broken.toml");
    assert!(why.to_string().contains("colour"), "{why}");
}
