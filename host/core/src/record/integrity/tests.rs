#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::record::RunRecord;

/// A finished record with two events, a screenshot and a nested file.
fn record() -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let mut record = RunRecord::create(root.path(), "practice").unwrap();
    record
        .append(&serde_json::json!({"type": "run_started", "service": "practice"}))
        .unwrap();
    let shot = record.next_screenshot();
    std::fs::write(&shot, b"\x89PNG not really").unwrap();
    std::fs::create_dir_all(record.dir().join("browser")).unwrap();
    std::fs::write(record.dir().join("browser/view-1.png"), b"view").unwrap();
    let result = serde_json::json!({"success": true, "turns": 3, "cost_usd": 0.0123});
    record
        .append(&serde_json::json!({"type": "finished", "result": result}))
        .unwrap();
    record.finish(&result).unwrap();
    let dir = record.dir().to_path_buf();
    (root, dir)
}

fn flip(path: &Path, at: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at] = if bytes[at] == b'1' { b'2' } else { b'1' };
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_finished_record_verifies_and_lists_its_files() {
    let (_root, dir) = record();
    let verified = verify(&dir).unwrap();
    assert_eq!(verified.lines, 3);
    let paths: Vec<_> = verified.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["browser/view-1.png", "screenshot-001.png"]);
}

#[test]
fn any_changed_transcript_byte_names_its_line() {
    let (_root, dir) = record();
    let path = dir.join(TRANSCRIPT_FILE);
    let original = std::fs::read(&path).unwrap();
    let text = String::from_utf8(original.clone()).unwrap();
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    for at in 0..original.len() {
        std::fs::write(&path, &original).unwrap();
        flip(&path, at);
        let line = starts.iter().filter(|&&s| s <= at).count() as u64;
        let error = verify(&dir).unwrap_err();
        let named = match &error {
            Mismatch::NotALine { line } | Mismatch::LineChanged { line } => Some(*line),
            _ => None,
        };
        // A newline turned into a byte joins two lines: the first is named.
        assert_eq!(named, Some(line), "byte {at}: {error}");
    }
}

#[test]
fn any_changed_result_byte_names_result_json() {
    let (_root, dir) = record();
    let path = dir.join(RESULT_FILE);
    let original = std::fs::read(&path).unwrap();
    for at in 0..original.len() {
        std::fs::write(&path, &original).unwrap();
        flip(&path, at);
        let error = verify(&dir).unwrap_err();
        assert!(
            matches!(error, Mismatch::ResultChanged { .. }),
            "byte {at}: {error}"
        );
        assert!(error.to_string().starts_with("result.json was changed"));
    }
}

#[test]
fn changed_missing_or_escaping_files_are_named() {
    let (_root, dir) = record();
    flip(&dir.join("screenshot-001.png"), 3);
    assert_eq!(
        verify(&dir).unwrap_err().to_string(),
        "screenshot-001.png was changed: its SHA-256 does not match the record"
    );
    let (_root, dir) = record();
    std::fs::remove_file(dir.join("browser/view-1.png")).unwrap();
    assert_eq!(
        verify(&dir).unwrap_err(),
        Mismatch::FileMissing {
            path: "browser/view-1.png".into()
        }
    );
    assert_eq!(file_path(&dir, "../../etc/passwd"), None);
    assert_eq!(file_path(&dir, "/etc/passwd"), None);
}

#[test]
fn removed_added_or_cut_lines_are_named() {
    let (_root, dir) = record();
    let path = dir.join(TRANSCRIPT_FILE);
    let original = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = original.lines().collect();
    let cases: Vec<(String, Mismatch)> = vec![
        (
            format!("{}\n{}\n", lines[1], lines[2]),
            Mismatch::LineOutOfChain { line: 1 },
        ),
        (
            format!("{}\n{}\n", lines[0], lines[2]),
            Mismatch::LineOutOfChain { line: 2 },
        ),
        (
            format!("{}\n{}\n{}\n{}\n", lines[0], lines[1], lines[1], lines[2]),
            Mismatch::LineOutOfChain { line: 3 },
        ),
        (format!("{}\n{}\n", lines[0], lines[1]), Mismatch::NotSealed),
        (String::new(), Mismatch::NotSealed),
    ];
    for (text, expected) in cases {
        std::fs::write(&path, &text).unwrap();
        assert_eq!(verify(&dir).unwrap_err(), expected, "{text}");
    }
    std::fs::write(&path, &original).unwrap();
    std::fs::remove_file(dir.join(RESULT_FILE)).unwrap();
    assert_eq!(verify(&dir).unwrap_err(), Mismatch::NoResult);
}

/// A finished record signed by a key made under `root`.
fn signed_record(root: &Path, service: &str) -> PathBuf {
    let keys = crate::signing::Keyring::open_or_create(&root.join("config")).unwrap();
    let mut record = RunRecord::create(&root.join("runs"), service).unwrap();
    record.sign_with(std::sync::Arc::new(keys.current));
    let result = serde_json::json!({"success": true, "turns": 1});
    record
        .append(&serde_json::json!({"type": "finished", "result": result}))
        .unwrap();
    record.finish(&result).unwrap();
    record.dir().to_path_buf()
}

#[test]
fn a_signed_record_names_its_signer_and_any_changed_signature_is_caught() {
    let root = tempfile::tempdir().unwrap();
    let dir = signed_record(root.path(), "practice");
    let signed = verify(&dir).unwrap().signed.expect("signed");
    assert_eq!(signed.statement.lines, 2);
    let sig = dir.join(SIGNATURE_FILE);
    let original = std::fs::read(&sig).unwrap();
    for at in 0..original.len() {
        let mut bytes = original.clone();
        bytes[at] ^= 0x01;
        std::fs::write(&sig, &bytes).unwrap();
        let err = verify(&dir).unwrap_err();
        assert!(
            matches!(
                err,
                Mismatch::Signature(_) | Mismatch::SignatureOfAnother { .. }
            ),
            "byte {at}: {err}"
        );
    }
    // Another record's signature, however good, is not this record's.
    let other = signed_record(root.path(), "other");
    std::fs::copy(other.join(SIGNATURE_FILE), &sig).unwrap();
    assert!(matches!(
        verify(&dir).unwrap_err(),
        Mismatch::SignatureOfAnother { .. }
    ));
}
