#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

fn statement(signer: &Signer) -> Statement {
    signer.statement(
        "20261129T031500Z-practice-ab12cd34",
        "practice",
        &"ab".repeat(32),
        42,
    )
}

#[test]
fn a_key_is_made_once_private_and_read_back_the_same() {
    let config = tempfile::tempdir().unwrap();
    let made = Keyring::open_or_create(config.path()).unwrap();
    let again = Keyring::open_or_create(config.path()).unwrap();
    assert_eq!(made.current.public(), again.current.public());
    assert!(made.current.name.contains('@'), "{}", made.current.name);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(config.path().join(KEYS_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let text = std::fs::read_to_string(config.path().join(KEYS_FILE)).unwrap();
    assert!(text.contains(&made.current.public().to_string()));
    assert!(
        !format!("{:?}", made.current).contains("secret"),
        "a debug print never shows the secret"
    );
}

#[cfg(unix)]
#[test]
fn a_key_others_can_read_is_refused() {
    use std::os::unix::fs::PermissionsExt as _;
    let config = tempfile::tempdir().unwrap();
    Keyring::open_or_create(config.path()).unwrap();
    let path = config.path().join(KEYS_FILE);
    for mode in [0o640, 0o604, 0o660] {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        let refused = Keyring::open_or_create(config.path()).unwrap_err();
        assert!(
            matches!(refused, KeyError::Exposed { .. }),
            "{mode:o}: {refused}"
        );
        assert!(refused.to_string().contains("chmod 600"), "{refused}");
    }
}

#[test]
fn a_damaged_key_file_says_so() {
    let config = tempfile::tempdir().unwrap();
    let made = Keyring::open_or_create(config.path()).unwrap();
    let path = config.path().join(KEYS_FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    let other = Keyring::open_or_create(tempfile::tempdir().unwrap().path()).unwrap();
    let cases = [
        ("not toml", "this is not toml".to_owned()),
        (
            "a public half of another key",
            text.replace(
                &made.current.public().to_string(),
                &other.current.public().to_string(),
            ),
        ),
        ("an unknown field", format!("{text}\nextra = 1\n")),
    ];
    for (what, body) in cases {
        std::fs::write(&path, body).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let err = Keyring::open_or_create(config.path()).unwrap_err();
        assert!(matches!(err, KeyError::Damaged { .. }), "{what}: {err}");
    }
}

#[test]
fn rotating_keeps_the_old_public_half_and_signs_with_a_new_key() {
    let config = tempfile::tempdir().unwrap();
    let mut keys = Keyring::open_or_create(config.path()).unwrap();
    let old = keys.current.public();
    let signed_before = keys.current.sign(statement(&keys.current));
    keys.rotate(Some("Jane".to_owned())).unwrap();
    let reopened = Keyring::open_or_create(config.path()).unwrap();
    assert_ne!(reopened.current.public(), old);
    assert_eq!(reopened.current.name, "Jane");
    assert_eq!(
        reopened.knows(&reopened.current.public()),
        Some(Known::Current)
    );
    assert!(matches!(reopened.knows(&old), Some(Known::Retired { .. })));
    let stranger = Keyring::open_or_create(tempfile::tempdir().unwrap().path()).unwrap();
    assert_eq!(reopened.knows(&stranger.current.public()), None);
    // What the old key signed still checks: its public half is in it.
    signed_before.check().unwrap();
    let text = std::fs::read_to_string(config.path().join(KEYS_FILE)).unwrap();
    assert_eq!(
        text.matches("secret").count(),
        2,
        "one secret, and the header's word: {text}"
    );
}

#[test]
fn a_statement_reads_back_as_written_and_checks() {
    let keys = Keyring::open_or_create(tempfile::tempdir().unwrap().path()).unwrap();
    for content in [None, Some("cd".repeat(32))] {
        let mut s = statement(&keys.current);
        s.content_sha256 = content;
        let signed = keys.current.sign(s);
        let read = Signed::parse(&signed.text()).unwrap();
        assert_eq!(read, signed);
        read.check().unwrap();
    }
}

#[test]
fn every_changed_byte_of_a_signed_statement_is_caught() {
    let keys = Keyring::open_or_create(tempfile::tempdir().unwrap().path()).unwrap();
    let text = keys.current.sign(statement(&keys.current)).text();
    for at in 0..text.len() {
        let mut bytes = text.clone().into_bytes();
        bytes[at] = if bytes[at] == b'1' { b'2' } else { b'1' };
        let Ok(changed) = String::from_utf8(bytes) else {
            continue;
        };
        let caught = Signed::parse(&changed).and_then(|s| s.check());
        assert!(
            caught.is_err(),
            "byte {at} changed and still checks:\n{changed}"
        );
    }
}

#[test]
fn a_statement_signed_by_one_key_does_not_check_as_another_s() {
    let one = Keyring::open_or_create(tempfile::tempdir().unwrap().path()).unwrap();
    let two = Keyring::open_or_create(tempfile::tempdir().unwrap().path()).unwrap();
    // Two's words, one's signature: the key the statement names decides.
    let mut words = statement(&two.current);
    let by_one = one.current.sign(words.clone());
    words.key = two.current.public();
    let forged = by_one.text().replace(
        &one.current.public().to_string(),
        &two.current.public().to_string(),
    );
    let err = Signed::parse(&forged).unwrap().check().unwrap_err();
    assert_eq!(
        err,
        StatementError::BadSignature {
            key: two.current.public()
        }
    );
}

#[test]
fn a_signer_name_cannot_add_lines_to_a_statement() {
    let config = tempfile::tempdir().unwrap();
    let mut keys = Keyring::open_or_create(config.path()).unwrap();
    keys.rotate(Some("Jane\nhead: 00".to_owned())).unwrap();
    let signed = keys.current.sign(statement(&keys.current));
    assert_eq!(signed.text().lines().count(), 9, "{}", signed.text());
    Signed::parse(&signed.text()).unwrap().check().unwrap();
}

#[test]
fn public_keys_read_back_and_nothing_else_reads_as_one() {
    let keys = Keyring::open_or_create(tempfile::tempdir().unwrap().path()).unwrap();
    let key = keys.current.public();
    assert_eq!(PublicKey::parse(&key.to_string()), Some(key));
    assert_eq!(PublicKey::parse(&format!("  {key}\n")), Some(key));
    for bad in [
        "",
        "ed25519:",
        "ed25519:AAAA",
        "rsa:AAAA",
        &key.to_string()[8..],
    ] {
        assert_eq!(PublicKey::parse(bad), None, "{bad}");
    }
}

#[test]
fn runs_that_start_at_once_on_a_fresh_machine_sign_with_one_key() {
    let config = tempfile::tempdir().unwrap();
    let path = config.path().to_path_buf();
    let made: Vec<PublicKey> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| s.spawn(|| Keyring::open_or_create(&path).unwrap().current.public()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let kept = Keyring::open_or_create(config.path())
        .unwrap()
        .current
        .public();
    assert!(made.iter().all(|k| *k == kept), "{made:?}");
    let left: Vec<_> = std::fs::read_dir(config.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left.len(), 1, "no scratch file stays: {left:?}");
}
