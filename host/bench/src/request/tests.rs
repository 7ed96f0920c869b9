use super::*;

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
