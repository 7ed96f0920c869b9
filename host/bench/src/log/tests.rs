use super::*;

#[test]
fn secrets_are_masked_table() {
    let cases: &[(&[u8], &str, &str)] = &[
        (
            b"reason=Other",
            "application/x-www-form-urlencoded",
            "reason=Other",
        ),
        (
            b"password=hunter2&x=1",
            "application/x-www-form-urlencoded",
            "password=***&x=1",
        ),
        (
            b"note=4242 4242 4242 4242",
            "application/x-www-form-urlencoded",
            "note=***",
        ),
        (
            br#"{"card_number":"4242","choice":"pause"}"#,
            "application/json",
            "card_number=***&choice=pause",
        ),
        (b"call 555-0199", "text/plain", "call 555-0199"),
    ];
    for (body, ct, want) in cases {
        let masked = mask(&fields(body, ct));
        assert_eq!(
            summary(body, &masked),
            *want,
            "{ct}: {:?}",
            String::from_utf8_lossy(body)
        );
    }
}

#[test]
fn long_bodies_are_cut_on_a_char_boundary() {
    let body = "é".repeat(300);
    let cut = summary(body.as_bytes(), &[]);
    assert!(cut.len() <= BODY_SUMMARY_BYTES + "…".len());
    assert!(cut.ends_with('…'));
}
