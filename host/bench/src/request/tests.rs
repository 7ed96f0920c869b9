use super::*;

#[test]
fn glob_table() {
    let cases = [
        ("/a/b", "/a/b", true),
        ("/a/b", "/a/b/", false),
        ("/a/*", "/a/b/c", true),
        ("*/confirm", "/x/y/confirm", true),
        ("/a/*/c", "/a/b/c", true),
        ("/a/*/c", "/a/b/d", false),
        ("*", "", true),
    ];
    for (pattern, text, want) in cases {
        assert_eq!(glob(pattern, text), want, "{pattern} ~ {text}");
    }
}

#[test]
fn a_pattern_with_a_body_needs_that_field() {
    let p = RequestPattern {
        method: "POST".into(),
        origin: Origin::Site,
        path: "/cancel/choose".into(),
        body_has: Some("choice=pause".into()),
    };
    let body = |v: &str| vec![("choice".to_owned(), v.to_owned())];
    assert!(p.matches("post", Origin::Site, "/cancel/choose", &body("pause")));
    assert!(!p.matches("POST", Origin::Site, "/cancel/choose", &body("cancel")));
    assert!(!p.matches("POST", Origin::Api, "/cancel/choose", &body("pause")));
}
