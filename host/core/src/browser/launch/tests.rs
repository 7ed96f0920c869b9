#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use super::*;
use crate::exit::ErrorClass;

#[test]
fn node_versions() {
    let cases = [
        ("v20.20.2", Some(20)),
        ("v18.0.0\n", Some(18)),
        ("v16.14.0", Some(16)),
        ("22.1.0", Some(22)),
        ("", None),
        ("node: not found", None),
    ];
    for (input, want) in cases {
        assert_eq!(parse_node_major(input), want, "{input:?}");
    }
}

#[test]
fn node_errors_are_configuration_errors_with_instructions() {
    let missing = BrowserError::NodeMissing {
        command: "node --version".into(),
        detail: "cannot find binary path".into(),
    };
    let old = BrowserError::NodeTooOld {
        found: "v16.14.0".into(),
    };
    for err in [missing, old] {
        assert_eq!(err.class(), ErrorClass::Configuration);
        let message = err.to_string();
        assert!(message.contains("https://nodejs.org/"), "{message}");
        assert!(message.contains("18"), "{message}");
    }
}

#[test]
fn this_machine_has_a_recent_node() {
    let node = preflight_node().unwrap();
    assert!(node.major >= 18, "{node:?}");
}

#[test]
fn executable_detection_order() {
    let none = |_: &str| None;
    let chromium_on_path =
        |name: &str| (name == "chromium").then(|| PathBuf::from("/path/chromium"));
    let sh = Path::new("/bin/sh");

    // An explicit setting wins, then the variable, then PATH.
    assert_eq!(
        detect_executable_from(Some(sh), Some(Path::new("/x")), &chromium_on_path).unwrap(),
        sh
    );
    assert_eq!(
        detect_executable_from(None, Some(sh), &chromium_on_path).unwrap(),
        sh
    );
    assert_eq!(
        detect_executable_from(None, None, &chromium_on_path).unwrap(),
        PathBuf::from("/path/chromium")
    );
    // Nothing on PATH: the known locations (this machine has /usr/bin/chromium).
    assert_eq!(
        detect_executable_from(None, None, &none).unwrap(),
        PathBuf::from("/usr/bin/chromium")
    );
}

#[test]
fn bad_explicit_paths_are_never_replaced() {
    let chromium_on_path = |_: &str| Some(PathBuf::from("/usr/bin/chromium"));
    let dir = tempfile::tempdir().unwrap();
    let plain_file = dir.path().join("not-a-browser.txt");
    std::fs::write(&plain_file, "text").unwrap();
    let plain_file = plain_file.display().to_string();
    let cases = [
        (
            "/nonexistent/chromium",
            "does not exist",
            "the browser setting",
        ),
        ("/tmp", "is a directory", "the browser setting"),
        (
            plain_file.as_str(),
            "is not executable",
            "the browser setting",
        ),
    ];
    for (path, problem, origin) in cases {
        let err =
            detect_executable_from(Some(Path::new(path)), None, &chromium_on_path).unwrap_err();
        assert_eq!(err.class(), ErrorClass::Configuration);
        let message = err.to_string();
        assert!(
            message.contains(path) && message.contains(problem) && message.contains(origin),
            "{message}"
        );
    }
    let err =
        detect_executable_from(None, Some(Path::new("/nope")), &chromium_on_path).unwrap_err();
    assert!(
        err.to_string().contains(crate::browser::BROWSER_ENV),
        "{err}"
    );
}

#[test]
fn no_browser_says_how_to_install_or_point_to_one() {
    let err = BrowserError::NoBrowser {
        searched: vec![PathBuf::from("/usr/bin/chromium")],
    };
    assert_eq!(err.class(), ErrorClass::Configuration);
    let message = err.to_string();
    assert!(message.contains("apt-get install chromium"), "{message}");
    assert!(message.contains("SUBTERMINATOR_BROWSER"), "{message}");
    assert!(message.contains("/usr/bin/chromium"), "{message}");
}

fn options(user_data: UserData, headless: bool) -> BrowserOptions {
    BrowserOptions {
        headless,
        ..BrowserOptions::new(user_data, "/runs/r1/browser")
    }
}

#[test]
fn argv_for_each_setting() {
    let exe = Path::new("/usr/bin/chromium");
    let config = Path::new("/runs/r1/browser/playwright-mcp.json");
    let pinned = format!("@playwright/mcp@{}", crate::browser::PLAYWRIGHT_MCP_VERSION);

    let p = plan(&options(UserData::Isolated, true), Some(exe), config, true).unwrap();
    assert_eq!(p.program, "npx");
    assert_eq!(p.args[..2], ["-y".to_owned(), pinned.clone()]);
    assert!(!p.display.contains("@latest"));
    for flag in [
        "--headless",
        "--no-sandbox",
        "--isolated",
        "--image-responses",
        "--block-service-workers",
    ] {
        assert!(p.args.iter().any(|a| a == flag), "{flag} in {:?}", p.args);
    }
    let after = |flag: &str| {
        p.args
            .iter()
            .position(|a| a == flag)
            .map(|i| p.args[i + 1].clone())
    };
    assert_eq!(
        after("--executable-path").as_deref(),
        Some("/usr/bin/chromium")
    );
    assert_eq!(after("--output-dir").as_deref(), Some("/runs/r1/browser"));
    assert_eq!(
        after("--config").as_deref(),
        Some("/runs/r1/browser/playwright-mcp.json")
    );
    assert_eq!(p.cwd, PathBuf::from("/runs/r1/browser"));

    let profile = PathBuf::from("/data/browser-profile");
    let p = plan(
        &options(UserData::Persistent(profile), false),
        Some(exe),
        config,
        false,
    )
    .unwrap();
    assert!(
        !p.args
            .iter()
            .any(|a| a == "--headless" || a == "--no-sandbox" || a == "--isolated")
    );
    let i = p.args.iter().position(|a| a == "--user-data-dir").unwrap();
    assert_eq!(p.args[i + 1], "/data/browser-profile");

    let mut custom = options(UserData::Isolated, true);
    custom.command = Some(vec![
        "/opt/pw/cli.js".into(),
        "--caps".into(),
        "vision".into(),
    ]);
    let p = plan(&custom, Some(exe), config, false).unwrap();
    assert_eq!(p.program, "/opt/pw/cli.js");
    assert_eq!(p.args[..2], ["--caps".to_owned(), "vision".to_owned()]);

    custom.command = Some(vec![]);
    assert!(plan(&custom, Some(exe), config, false).is_err());
}

#[test]
fn attaching_keeps_the_endpoint_and_its_token_off_the_command_line() {
    let config = Path::new("/runs/r1/browser/playwright-mcp.json");
    let mut opts = options(
        UserData::Persistent(PathBuf::from("/data/profiles/x")),
        false,
    );
    opts.attach = Some(
        crate::browser::Attach::parse(
            "wss://grid.example/chromium?token=Q-SECRET",
            Some("Authorization: Bearer H-SECRET"),
        )
        .unwrap(),
    );
    let p = plan(&opts, None, config, true).unwrap();
    // A context of its own in that browser; no launch switches, no profile.
    assert!(p.args.iter().any(|a| a == "--isolated"), "{:?}", p.args);
    for absent in [
        "--executable-path",
        "--user-data-dir",
        "--no-sandbox",
        "--cdp-endpoint",
    ] {
        assert!(
            !p.args.iter().any(|a| a == absent),
            "{absent} in {:?}",
            p.args
        );
    }
    // The safety flags stay.
    assert!(p.args.iter().any(|a| a == "--block-service-workers"));
    let everything = format!("{} {:?} {}", p.program, p.args, p.display);
    assert!(!everything.contains("SECRET"), "{everything}");
    assert!(
        p.display
            .ends_with("(attached to wss://grid.example/chromium)"),
        "{}",
        p.display
    );
    assert_eq!(
        p.env,
        [
            (
                CDP_ENDPOINT_ENV.to_owned(),
                "wss://grid.example/chromium?token=Q-SECRET".to_owned()
            ),
            (
                CDP_HEADERS_ENV.to_owned(),
                "Authorization: Bearer H-SECRET".to_owned()
            ),
        ]
    );
    // Without a browser to launch and nothing to attach to, no plan.
    assert!(plan(&options(UserData::Isolated, true), None, config, false).is_err());
}

#[test]
fn config_carries_the_quiet_network_switches() {
    let config = config_json();
    let args = config["browser"]["launchOptions"]["args"]
        .as_array()
        .unwrap();
    for flag in [
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
    ] {
        assert!(args.iter().any(|a| a == flag), "{flag}");
    }
}

#[test]
fn profile_lock_of_a_live_process_is_in_use() {
    let dir = tempfile::tempdir().unwrap();
    assert!(check_profile_free(dir.path()).is_ok());
    let me = std::process::id();
    #[cfg(unix)]
    std::os::unix::fs::symlink(format!("somehost-{me}"), dir.path().join("SingletonLock")).unwrap();
    let err = check_profile_free(dir.path()).unwrap_err();
    assert_eq!(err.class(), ErrorClass::Configuration);
    assert!(
        err.to_string().contains(&dir.path().display().to_string()),
        "{err}"
    );

    let stale = tempfile::tempdir().unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("somehost-2147483600", stale.path().join("SingletonLock")).unwrap();
    assert!(check_profile_free(stale.path()).is_ok());
}

#[test]
fn error_classes() {
    let cases: Vec<(BrowserError, ErrorClass)> = vec![
        (
            BrowserError::Connect {
                command: "npx".into(),
                detail: "x".into(),
            },
            ErrorClass::Connection,
        ),
        (
            BrowserError::ConnectionLost {
                tool: "browser_click".into(),
                detail: "x".into(),
                reconnected: true,
            },
            ErrorClass::Connection,
        ),
        (
            BrowserError::Timeout {
                tool: "browser_click".into(),
                after: std::time::Duration::from_secs(1),
            },
            ErrorClass::Connection,
        ),
        (
            BrowserError::Tool {
                tool: "browser_click".into(),
                message: "x".into(),
            },
            ErrorClass::Failure,
        ),
        (
            BrowserError::ProfileInUse { path: "/p".into() },
            ErrorClass::Configuration,
        ),
        (
            BrowserError::BrowserLaunch {
                path: Some("/bin/false".into()),
                detail: "x".into(),
            },
            ErrorClass::Configuration,
        ),
        (
            BrowserError::MissingTools {
                command: "npx".into(),
                missing: vec!["browser_click".into()],
            },
            ErrorClass::Configuration,
        ),
    ];
    for (err, class) in cases {
        assert_eq!(err.class(), class, "{err}");
    }
}

#[test]
fn the_connect_error_uses_the_prototypes_wording_with_the_pin() {
    let err = BrowserError::Connect {
        command: "npx -y @playwright/mcp@0.0.83".into(),
        detail: "no answer".into(),
    };
    let message = err.to_string();
    assert!(
        message.starts_with(
            "Failed to connect to Playwright MCP. Ensure Node.js is installed and run: npx @playwright/mcp@0.0.83"
        ),
        "{message}"
    );
}
