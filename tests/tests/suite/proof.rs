//! Proof you can use (issue 45): signed receipts checked on another
//! machine, and the dispute letter. Real binary, Playwright MCP, Chromium
//! and the practice site on 127.0.0.1; "another machine" is another
//! `SUBTERMINATOR_HOME` that never held the key.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use subterminator_core::receipt::seal;
use subterminator_core::signing::Keyring;
use subterminator_tests::e2e;

async fn sub(home: &Path, args: &[&str]) -> (Option<i32>, String) {
    e2e::sub(home, args).await.unwrap()
}

/// The offline policy cancels Netflix on a practice copy, approved.
async fn cancelled(home: &Path) -> PathBuf {
    let (code, said, run) = e2e::offline_netflix(home, "y\n").await.unwrap();
    assert_eq!(code, Some(0), "{said}");
    run
}

async fn public_key(home: &Path) -> String {
    let (code, said) = sub(home, &["key", "--json"]).await;
    assert_eq!(code, Some(0), "{said}");
    let json = said
        .lines()
        .find(|l| l.starts_with('{'))
        .expect("one JSON line");
    let value: Value = serde_json::from_str(json).unwrap();
    value["public_key"].as_str().unwrap().to_owned()
}

fn files(dir: &Path) -> Vec<PathBuf> {
    e2e::files_under(dir).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_receipt_copied_to_another_machine_verifies_with_its_key_and_fails_on_any_changed_byte() {
    let mine = tempfile::tempdir().unwrap();
    let run = cancelled(mine.path()).await;
    let key = public_key(mine.path()).await;
    let made = files(&run);
    for file in ["record.sig", "receipt.html", "receipt.md", "receipt.pdf"] {
        assert!(made.contains(&PathBuf::from(file)), "{file}: {made:?}");
    }

    // Another machine: a home that never held the key, and the run copied
    // under its own name.
    let theirs = tempfile::tempdir().unwrap();
    let copy = theirs.path().join("mail").join(run.file_name().unwrap());
    e2e::copy_dir(&run, &copy).unwrap();
    let copy_arg = copy.display().to_string();
    for target in ["receipt.html", "receipt.md", "receipt.pdf"] {
        let file = copy.join(target).display().to_string();
        let (code, said) = sub(theirs.path(), &["runs", "verify", &file]).await;
        assert_eq!(code, Some(1), "no key named, none of its own: {said}");
        assert!(said.contains("not a key of this machine"), "{said}");
        let (code, said) = sub(theirs.path(), &["runs", "verify", &file, "--key", &key]).await;
        assert_eq!(code, Some(0), "{said}");
        assert!(said.contains(&format!("signed by {key}")), "{said}");
        assert!(said.contains("it carries its record intact"), "{said}");
    }
    let (code, said) = sub(theirs.path(), &["runs", "verify", &copy_arg, "--key", &key]).await;
    assert_eq!(code, Some(0), "{said}");

    // One changed byte in any file of the copy (its first, middle and last
    // byte) fails the run; in a receipt, the receipt alone fails too.
    let receipts = ["receipt.html", "receipt.md", "receipt.pdf"];
    for relative in files(&copy) {
        let path = copy.join(&relative);
        let original = std::fs::read(&path).unwrap();
        for at in [0, original.len() / 2, original.len() - 1] {
            let mut bytes = original.clone();
            bytes[at] ^= 0x20;
            std::fs::write(&path, &bytes).unwrap();
            let (code, said) =
                sub(theirs.path(), &["runs", "verify", &copy_arg, "--key", &key]).await;
            assert_eq!(code, Some(1), "{} byte {at}: {said}", relative.display());
            let name = relative.display().to_string();
            if receipts.contains(&name.as_str()) {
                let alone = path.display().to_string();
                let (code, said) =
                    sub(theirs.path(), &["runs", "verify", &alone, "--key", &key]).await;
                assert_eq!(code, Some(1), "{name} alone, byte {at}: {said}");
            }
            std::fs::write(&path, &original).unwrap();
        }
    }
    let (code, said) = sub(theirs.path(), &["runs", "verify", &copy_arg, "--key", &key]).await;
    assert_eq!(code, Some(0), "restored: {said}");

    // Signed by another key: named so, for the receipt and the run.
    let other = tempfile::tempdir().unwrap();
    let other_key = public_key(other.path()).await;
    let html = copy.join("receipt.html").display().to_string();
    for target in [&html, &copy_arg] {
        let (code, said) = sub(
            theirs.path(),
            &["runs", "verify", target, "--key", &other_key],
        )
        .await;
        assert_eq!(code, Some(1), "{said}");
        assert!(
            said.contains(&format!("signed by another key: {key}, not {other_key}")),
            "{said}"
        );
    }

    // Whoever holds another key can re-seal a changed receipt, and it
    // then checks as theirs, never as the key it was sent as.
    let forger = Keyring::open_or_create(&other.path().join("config")).unwrap();
    let text = std::fs::read_to_string(&html).unwrap();
    let sealed = seal::open(text.as_bytes()).unwrap();
    let body = &text[..text.find("<!-- subterminator-record").unwrap()];
    let changed = body.replace(
        "cancellation confirmed",
        "cancellation confirmed on 1 January",
    );
    let mut statement = sealed.signed.statement.clone();
    statement.key = forger.current.public();
    let transcript = std::fs::read_to_string(copy.join("transcript.jsonl")).unwrap();
    let carried: String = transcript
        .split_inclusive('\n')
        .take(sealed.signed.statement.lines as usize)
        .collect();
    let forged = seal::seal(changed.into_bytes(), &carried, &statement, &forger.current);
    std::fs::write(&html, forged).unwrap();
    let (code, said) = sub(theirs.path(), &["runs", "verify", &html, "--key", &key]).await;
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("signed by another key"), "{said}");

    // Rotating keeps old receipts verifiable on the machine that made them.
    let (code, said) = sub(mine.path(), &["key", "--rotate"]).await;
    assert_eq!(code, Some(0), "{said}");
    assert_ne!(public_key(mine.path()).await, key);
    let (code, said) = sub(mine.path(), &["runs", "verify", "last"]).await;
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("the key is this machine's, retired"),
        "{said}"
    );
}

/// The run folder a bench flow's yes pass left in `home`.
fn bench_run(home: &Path, flow: &str) -> PathBuf {
    let bench = home.join("data/bench");
    let stamp = std::fs::read_dir(&bench)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let runs = stamp.join("runs").join(flow).join("yes/runs");
    std::fs::read_dir(runs)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path()
}

#[tokio::test(flavor = "multi_thread")]
async fn dispute_letters_for_a_verified_practice_run_and_a_phone_only_bench_flow() {
    let home = tempfile::tempdir().unwrap();
    let run = cancelled(home.path()).await;
    let flow = "nytimes-chat-or-phone-only-en";
    let (code, said) = sub(home.path(), &["bench", "--flow", flow, "--yes-pass-only"]).await;
    assert_eq!(code, Some(0), "{said}");
    let phone = bench_run(home.path(), flow);
    assert!(
        phone.join("final.png").is_file(),
        "the page it stopped on is kept"
    );
    let signature = |dir: &Path| {
        let text = std::fs::read_to_string(dir.join("record.sig")).unwrap();
        text.lines()
            .find_map(|l| l.strip_prefix("signature: "))
            .unwrap()
            .to_owned()
    };
    let receipt_sha = subterminator_core::record::chain::sha256_hex(
        &std::fs::read(run.join("receipt.pdf")).unwrap(),
    );
    let out = home.path().join("letters");
    let out_arg = out.display().to_string();
    let run_arg = run.display().to_string();
    let phone_arg = phone.display().to_string();
    // (run, to, jurisdiction, language, words the letter must hold)
    let cases: [(&str, &str, &str, &str, &[&str]); 6] = [
        (
            &run_arg,
            "bank",
            "us",
            "en",
            &[
                "Dispute of charges",
                "Your membership ends on",
                &receipt_sha,
            ],
        ),
        (
            &run_arg,
            "merchant",
            "de",
            "de",
            &[
                "Meine Kündigung vom",
                "Your membership ends on",
                &receipt_sha,
            ],
        ),
        (
            &phone_arg,
            "regulator",
            "us-ca",
            "en",
            &[
                "Phone or chat only",
                "California Automatic Renewal Law",
                "data:image/png;base64,",
            ],
        ),
        (
            &phone_arg,
            "regulator",
            "de",
            "de",
            &[
                "Kündigung nur per Telefon oder Chat",
                "§ 312k BGB",
                "data:image/png;base64,",
            ],
        ),
        (
            &phone_arg,
            "bank",
            "uk",
            "en",
            &["could not stop online", "Available on request"],
        ),
        (
            &phone_arg,
            "merchant",
            "de",
            "de",
            &["hiermit kündige ich", "Telefon oder Chat"],
        ),
    ];
    for (target, to, jurisdiction, lang, expected) in cases {
        let (code, said) = sub(
            home.path(),
            &[
                "runs",
                "dispute",
                target,
                "--to",
                to,
                "--jurisdiction",
                jurisdiction,
                "--lang",
                lang,
                "--out",
                &out_arg,
            ],
        )
        .await;
        assert_eq!(code, Some(0), "{said}");
        let html = std::fs::read_to_string(out.join(format!("dispute-{to}-{lang}.html"))).unwrap();
        for words in expected {
            assert!(html.contains(words), "{to} {lang}: no {words:?}\n{html}");
        }
        let dir = if target == run_arg { &run } else { &phone };
        assert!(
            html.contains(&signature(dir)),
            "{to} {lang}: the record's signature"
        );
        let pdf = std::fs::read(out.join(format!("dispute-{to}-{lang}.pdf"))).unwrap();
        assert!(pdf.starts_with(b"%PDF-"), "{to} {lang}");
        let text = String::from_utf8_lossy(&pdf);
        let pages = text.matches("/Type /Page").count() - text.matches("/Type /Pages").count();
        assert!(pages >= 1, "{to} {lang}: no page");
    }

    // A run a letter cannot state is refused, and nothing is written.
    let rejected = tempfile::tempdir().unwrap();
    let (code, said, _) = e2e::offline_netflix(rejected.path(), "n\n").await.unwrap();
    assert_eq!(code, Some(1), "{said}");
    let nowhere = rejected.path().join("letters");
    let (code, said) = sub(
        rejected.path(),
        &[
            "runs",
            "dispute",
            "last",
            "--to",
            "bank",
            "--out",
            &nowhere.display().to_string(),
        ],
    )
    .await;
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("no letter can be written"), "{said}");
    assert!(!nowhere.exists(), "nothing written for a refused letter");
}
