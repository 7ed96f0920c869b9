#![allow(clippy::unwrap_used, clippy::panic)]

use super::*;

#[test]
fn addresses_read_as_a_person_writes_them() {
    // (input, start address, site, id)
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "crunchyroll.com",
            "https://crunchyroll.com/",
            "crunchyroll.com",
            "crunchyroll-com",
        ),
        (
            "  www.audible.co.uk/account ",
            "https://www.audible.co.uk/account",
            "audible.co.uk",
            "audible-co-uk",
        ),
        (
            "HELP.MAX.COM",
            "https://help.max.com/",
            "max.com",
            "max-com",
        ),
        (
            "https://www.example.org/settings/subscription?x=1#top",
            "https://www.example.org/settings/subscription?x=1",
            "example.org",
            "example-org",
        ),
        // Plain http is upgraded, except on this machine.
        (
            "http://gym.example.de/mein-konto",
            "https://gym.example.de/mein-konto",
            "example.de",
            "example-de",
        ),
        (
            "http://127.0.0.1:8123/account",
            "http://127.0.0.1:8123/account",
            "127.0.0.1:8123",
            "127-0-0-1-8123",
        ),
        (
            "localhost:8080",
            "https://localhost:8080/",
            "localhost:8080",
            "localhost-8080",
        ),
        (
            "http://localhost:8080/",
            "http://localhost:8080/",
            "localhost:8080",
            "localhost-8080",
        ),
        // A site on a private suffix is its own site.
        (
            "someone.github.io",
            "https://someone.github.io/",
            "someone.github.io",
            "someone-github-io",
        ),
        (
            "bücher.de",
            "https://xn--bcher-kva.de/",
            "xn--bcher-kva.de",
            "xn--bcher-kva-de",
        ),
    ];
    for (input, url, site, id) in cases {
        let a = Address::parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(a.as_str(), *url, "{input}");
        assert_eq!(a.site(), *site, "{input}");
        assert_eq!(a.service_id(), *id, "{input}");
        assert!(Address::looks_like_address(input), "{input}");
    }
}

#[test]
fn addresses_that_are_no_web_page_are_refused() {
    let cases: &[(&str, &str)] = &[
        ("file:///etc/passwd", "file: address"),
        ("javascript:alert(1)", "javascript: address"),
        ("JavaScript:alert(document.cookie)", "javascript: address"),
        ("data:text/html,<form method=post>", "data: address"),
        ("ftp://example.com/", "ftp: address"),
        ("chrome://settings", "chrome: address"),
        ("about:blank", "about: address"),
        ("mailto:cancel@example.com", "mailto: address"),
        ("view-source:https://example.com", "view-source: address"),
        ("https://user:secret@example.com/", "password"),
        ("https://user@example.com/", "password"),
        ("com", "names no site"),
        ("co.uk", "names no site"),
        ("http://10.0.0.1/", "names no site"),
        ("https://[::2]/", "names no site"),
        ("intranet", "names no site"),
        ("   ", "is empty"),
        ("https://exa mple.com", "not a web address"),
    ];
    for (input, want) in cases {
        let e = Address::parse(input).unwrap_err().to_string();
        assert!(e.contains(want), "{input}: {e}");
    }
}

#[test]
fn a_plugin_id_is_not_an_address() {
    for name in ["netflix", "disney-plus", "crunchyroll"] {
        assert!(!Address::looks_like_address(name), "{name}");
    }
}

#[test]
fn the_site_covers_its_subdomains_over_https_only() {
    let generic = Generic {
        domain: Some("max.com".into()),
        paths: Vec::new(),
    };
    let cases: &[(&str, bool)] = &[
        ("https://max.com", true),
        ("https://www.max.com", true),
        ("https://auth.hbo.max.com:443", true),
        ("https://help.max.com:8443", true),
        ("http://www.max.com", false),
        ("https://evilmax.com", false),
        ("https://max.com.evil.example", false),
        ("https://www.paypal.com", false),
        ("not an origin", false),
    ];
    for (origin, want) in cases {
        assert_eq!(generic.covers(origin), *want, "{origin}");
    }
    let loopback = Generic {
        domain: None,
        paths: Vec::new(),
    };
    assert!(!loopback.covers("http://127.0.0.1:9"));
}

#[test]
fn the_service_file_passes_the_declarative_checks() {
    for input in [
        "crunchyroll.com",
        "http://127.0.0.1:8123/account",
        "https://www.audible.co.uk/",
    ] {
        let address = Address::parse(input).unwrap();
        let text = service_file(&address, Some("Crunchyroll"));
        let parsed =
            subterminator_declarative::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(parsed.service.id, address.service_id());
        assert_eq!(parsed.service.display_name, "Crunchyroll");
        assert!(parsed.plan.iter().any(|s| s.irreversible));
        assert!(
            parsed
                .service
                .allowed_origins
                .contains(&address.url.origin().ascii_serialization())
        );
    }
}

#[test]
fn the_plan_knows_the_statutory_buttons() {
    let address = Address::parse("example.de").unwrap();
    let parsed = subterminator_declarative::parse(&service_file(&address, None)).unwrap();
    let names = |irreversible: bool| -> Vec<String> {
        parsed
            .plan
            .iter()
            .filter(|s| s.irreversible == irreversible)
            .flat_map(|s| s.targets.iter().flat_map(|t| t.name.clone()))
            .collect()
    };
    for opener in [
        "verträge hier kündigen",
        "withdraw from contract here",
        "vertrag widerrufen",
    ] {
        assert!(names(false).iter().any(|n| n == opener), "{opener}");
    }
    for last in [
        "jetzt kündigen",
        "confirm withdrawal",
        "widerruf bestätigen",
    ] {
        assert!(names(true).iter().any(|n| n == last), "{last}");
        // The last button never opens the flow: it would be taken as a
        // step on the way rather than the one that commits.
        assert!(!names(false).iter().any(|n| n.contains(last)), "{last}");
    }
}
