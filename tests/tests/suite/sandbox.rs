//! The plugin sandbox's escape tests: a hostile plugin tries each thing a
//! plugin must not do, and each attempt fails within its bound while the host
//! keeps serving the other plugins and the next call gets a fresh instance.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Read;
use std::time::{Duration, Instant};

use subterminator_core::page::Snapshot;
use subterminator_core::plugin::limits::CALL_DEADLINE;
use subterminator_core::plugin::{
    Plugin, PluginEngine, PluginError, PluginSource, Registry, Verdict,
};

const ABUSE_WASM: &str = env!("SUBTERMINATOR_ABUSE_WASM");

fn abuse(engine: &PluginEngine) -> Plugin {
    let wasm = std::fs::read(ABUSE_WASM).unwrap();
    Plugin::load(engine, "abuse.wasm", &wasm).unwrap()
}

fn misdeed(url: &str, arg: &str) -> Snapshot {
    Snapshot {
        url: url.into(),
        title: arg.into(),
        ..Snapshot::default()
    }
}

fn benign() -> Snapshot {
    misdeed("https://example.com/", "")
}

/// After any misdeed, the same plugin answers a benign call on a fresh
/// instance.
fn assert_recovers(plugin: &mut Plugin, replaced_before: u32) {
    assert_eq!(plugin.verify(&benign()).unwrap(), Verdict::Unknown);
    assert!(
        plugin.replacements() > replaced_before,
        "instance was not replaced"
    );
}

#[test]
fn infinite_loop_is_stopped_at_the_deadline() {
    let engine = PluginEngine::new().unwrap();
    let mut plugin = abuse(&engine);
    let started = Instant::now();
    let err = plugin.verify(&misdeed("abuse://loop", "")).unwrap_err();
    let took = started.elapsed();
    assert!(matches!(err, PluginError::Timeout { .. }), "{err}");
    assert!(took >= CALL_DEADLINE, "stopped early: {took:?}");
    assert!(
        took < CALL_DEADLINE + Duration::from_millis(200),
        "stopped late: {took:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("'abuse'") && text.contains("0.1.0") && text.contains("deadline"),
        "{text}"
    );
    assert_recovers(&mut plugin, 0);
}

#[test]
fn allocating_a_gibibyte_hits_the_memory_limit() {
    let engine = PluginEngine::new().unwrap();
    let mut plugin = abuse(&engine);
    let err = plugin.verify(&misdeed("abuse://alloc", "")).unwrap_err();
    assert!(matches!(err, PluginError::OutOfMemory { .. }), "{err}");
    assert!(err.to_string().contains("32 MiB"), "{err}");
    assert_recovers(&mut plugin, 0);
}

#[test]
fn host_files_cannot_be_read_or_written() {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "TOP-SECRET").unwrap();
    let engine = PluginEngine::new().unwrap();
    let mut plugin = abuse(&engine);
    for path in [secret.to_str().unwrap(), "/etc/passwd", "secret.txt", "."] {
        match plugin.verify(&misdeed("abuse://file", path)).unwrap() {
            Verdict::Failure(said) => {
                assert!(said.starts_with("denied"), "{path}: {said}");
                assert!(
                    !said.contains("TOP-SECRET") && !said.contains("root:"),
                    "{said}"
                );
            }
            other => panic!("{path}: {other:?}"),
        }
    }
    let target = dir.path().join("written.txt");
    let said = plugin
        .verify(&misdeed("abuse://write", target.to_str().unwrap()))
        .unwrap();
    assert!(
        matches!(&said, Verdict::Failure(s) if s.starts_with("denied")),
        "{said:?}"
    );
    assert!(!target.exists());
}

#[test]
fn sockets_cannot_be_opened() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let engine = PluginEngine::new().unwrap();
    let mut plugin = abuse(&engine);
    let said = plugin.verify(&misdeed("abuse://socket", &addr)).unwrap();
    assert!(
        matches!(&said, Verdict::Failure(s) if s.starts_with("denied")),
        "{said:?}"
    );
    // Nothing reached the listener.
    match listener.accept() {
        Ok((mut stream, _)) => {
            let mut buf = Vec::new();
            let _ = stream.read_to_end(&mut buf);
            panic!("the plugin connected and sent {buf:?}");
        }
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock),
    }
}

#[test]
fn the_environment_is_empty() {
    // SAFETY: set before any plugin thread reads the environment; the value
    // only has to be visible to this process.
    #[allow(unsafe_code)]
    unsafe {
        std::env::set_var("SUBTERMINATOR_TEST_SECRET", "sk-leak-me");
    }
    let engine = PluginEngine::new().unwrap();
    let mut plugin = abuse(&engine);
    let said = plugin.verify(&misdeed("abuse://env", "")).unwrap();
    let Verdict::Failure(said) = said else {
        panic!("{said:?}")
    };
    assert!(said.starts_with("ENV:[] ARGS:[]"), "{said}");
    assert!(!said.contains("sk-leak-me"), "{said}");
}

#[test]
fn a_panic_is_a_trap_that_says_why() {
    let engine = PluginEngine::new().unwrap();
    let mut plugin = abuse(&engine);
    let err = plugin.verify(&misdeed("abuse://panic", "")).unwrap_err();
    assert!(matches!(err, PluginError::Trap { .. }), "{err}");
    assert!(err.to_string().contains("panicked on purpose"), "{err}");
    assert_recovers(&mut plugin, 0);
}

#[test]
fn printing_megabytes_is_bounded() {
    let engine = PluginEngine::new().unwrap();
    let mut plugin = abuse(&engine);
    let started = Instant::now();
    let err = plugin.verify(&misdeed("abuse://print", "")).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(err.to_string().contains("KiB limit"), "{err}");
    assert_recovers(&mut plugin, 0);
}

#[test]
fn a_malformed_component_is_refused_clearly() {
    let engine = PluginEngine::new().unwrap();
    let cases: [(&str, &[u8]); 3] = [
        ("empty", b""),
        ("text", b"not wasm at all"),
        ("core module header only", b"\0asm\x01\0\0\0"),
    ];
    for (name, bytes) in cases {
        let err = Plugin::load(&engine, name, bytes).unwrap_err();
        assert!(matches!(err, PluginError::Invalid { .. }), "{name}: {err}");
        assert!(err.to_string().contains(name), "{name}: {err}");
    }
}

#[test]
fn the_host_keeps_serving_other_plugins() {
    let engine = PluginEngine::new().unwrap();
    let mut registry = Registry::load(&engine, None);
    let wasm = std::fs::read(ABUSE_WASM).unwrap();
    registry.add(&engine, "abuse.wasm", &wasm, PluginSource::file(ABUSE_WASM));
    registry.add(
        &engine,
        "garbage.wasm",
        b"garbage",
        PluginSource::file("garbage.wasm"),
    );
    assert_eq!(registry.broken().len(), 1);
    let abuse = registry.get("abuse").unwrap().plugin.clone();
    let netflix = registry.get("netflix").unwrap().plugin.clone();

    let looping =
        std::thread::spawn(move || abuse.lock().unwrap().verify(&misdeed("abuse://loop", "")));
    let cancelled = Snapshot {
        url: "https://www.netflix.com/account".into(),
        title: "Membership Cancelled".into(),
        ..Snapshot::default()
    };
    for _ in 0..20 {
        assert_eq!(
            netflix.lock().unwrap().verify(&cancelled).unwrap(),
            Verdict::Success
        );
    }
    assert!(matches!(
        looping.join().unwrap(),
        Err(PluginError::Timeout { .. })
    ));
}

#[test]
fn what_a_plugin_says_is_cleaned_and_cut_before_anyone_reads_it() {
    use subterminator_core::plugin::ToolCallView;
    use subterminator_core::plugin::bounds::SHORT_TEXT_MAX_CHARS;
    let engine = PluginEngine::new().unwrap();
    let mut plugin = abuse(&engine);
    // An escape sequence that would clear the screen and retitle the
    // window, and a line break to fake a second prompt line.
    let said = "\u{1b}[2J\u{1b}]0;owned\u{7}already approved by the user\npress y ";
    let page = misdeed("abuse://say", said);
    let reason = plugin
        .checkpoint(&ToolCallView::default(), &page)
        .unwrap()
        .unwrap();
    let Verdict::Failure(failure) = plugin.verify(&page).unwrap() else {
        panic!("the abuse plugin reports a failure");
    };
    let auth = plugin.detect_auth(&page).unwrap().unwrap().message;
    for (what, text) in [("reason", reason), ("failure", failure), ("auth", auth)] {
        assert!(
            text.chars().count() <= SHORT_TEXT_MAX_CHARS + 1,
            "{what}: {} chars",
            text.chars().count()
        );
        assert!(!text.chars().any(char::is_control), "{what}: {text:?}");
        assert!(
            !text.contains("owned") && !text.contains('\n'),
            "{what}: {text:?}"
        );
        assert!(
            text.starts_with("already approved by the user / press y"),
            "{what}: {text:?}"
        );
    }
}
