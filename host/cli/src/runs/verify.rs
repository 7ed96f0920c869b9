//! `runs verify`: a run folder (its chain, every file it lists, the
//! signature of its head, and each receipt's seal) or one receipt file on
//! its own (its seal, its bytes, the record it carries). Either way the
//! verdict names who signed, when, and why that signer is believed.

use std::path::Path;

use anstream::println;
use serde_json::{Value, json};

use subterminator_core::error::{Error, Result};
use subterminator_core::paths::Dirs;
use subterminator_core::receipt::seal::{self, Sealed};
use subterminator_core::receipt::{RECEIPT_HTML, RECEIPT_MD, RECEIPT_PDF};
use subterminator_core::record::integrity;
use subterminator_core::record::runs;
use subterminator_core::signing::{self, Keyring, Known, PublicKey, Signed, Trust};

/// One checked thing: a file or the record, and what was found.
struct Checked {
    what: String,
    problem: Option<String>,
    signed: Option<Signed>,
    detail: Vec<String>,
}

impl Checked {
    fn json(&self) -> Value {
        let s = self.signed.as_ref().map(|s| &s.statement);
        json!({
            "file": self.what,
            "ok": self.problem.is_none(),
            "problem": self.problem,
            "signed_by": s.map(|s| s.key.to_string()),
            "signer": s.map(|s| s.signer.clone()),
            "signed_at": s.map(|s| s.signed_at.clone()),
            "head": s.map(|s| s.head.clone()),
            "lines": s.map(|s| s.lines),
        })
    }
}

/// `runs verify TARGET [--key K]…`.
pub fn run(target: &str, given: &[String], dirs: &Dirs, json: bool) -> Result<u8> {
    let given = given
        .iter()
        .map(|k| {
            PublicKey::parse(k).ok_or_else(|| {
                Error::Configuration(format!(
                    "--key {k:?} is not a public key; it looks like ed25519:… (43 characters after the colon), as `subterminator key` prints it"
                ))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    // A key file that cannot be read only means no key of this machine is
    // known; a `--key` still decides.
    let keyring = Keyring::open_existing(&dirs.config).ok().flatten();
    let path = Path::new(target);
    let verdicts = if path.is_file() {
        vec![receipt_file(path, &given, keyring.as_ref())]
    } else {
        let run = runs::find(&dirs.runs(), target)?;
        run_folder(&run.dir, &run.id, &given, keyring.as_ref())
    };
    let ok = verdicts.iter().all(|v| v.problem.is_none());
    if json {
        println!(
            "{}",
            json!({ "target": target, "ok": ok, "checked": verdicts.iter().map(Checked::json).collect::<Vec<_>>() })
        );
    } else {
        for v in &verdicts {
            print(v);
        }
    }
    Ok(super::exit_code(ok))
}

fn print(v: &Checked) {
    use subterminator_core::text::sanitize;
    match &v.problem {
        None => println!("✓ {}", v.what),
        Some(problem) => println!("✗ {}: {problem}", v.what),
    }
    if let Some(signed) = &v.signed {
        let s = &signed.statement;
        println!(
            "  signed by {} ({}) at {}",
            s.key,
            sanitize(&s.signer),
            sanitize(&s.signed_at)
        );
    }
    for line in &v.detail {
        println!("  {line}");
    }
}

/// Whose the signature is, said for the verdict, or why it is not believed.
fn judged(
    signed: &Signed,
    given: &[PublicKey],
    keyring: Option<&Keyring>,
) -> std::result::Result<String, String> {
    match signing::trust(signed.statement.key, given, keyring) {
        Ok(Trust::Given) => Ok("the key is the one you gave".to_owned()),
        Ok(Trust::Mine(Known::Current)) => Ok("the key is this machine's".to_owned()),
        Ok(Trust::Mine(Known::Retired { retired })) => Ok(format!(
            "the key is this machine's, retired {}",
            retired.format("%Y-%m-%d")
        )),
        Err(why) => Err(why.to_string()),
    }
}

/// A receipt file on its own.
fn receipt_file(path: &Path, given: &[PublicKey], keyring: Option<&Keyring>) -> Checked {
    let what = path.display().to_string();
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            return Checked {
                what,
                problem: Some(format!("cannot be read: {e}")),
                signed: None,
                detail: Vec::new(),
            };
        }
    };
    match seal::open(&bytes) {
        Ok(sealed) => {
            let trusted = judged(&sealed.signed, given, keyring);
            let mut detail = vec![carried(&sealed)];
            let problem = match trusted {
                Ok(said) => {
                    detail.insert(0, said);
                    None
                }
                Err(why) => Some(why),
            };
            Checked {
                what,
                problem,
                signed: Some(sealed.signed),
                detail,
            }
        }
        Err(fault) => Checked {
            what,
            problem: Some(fault.to_string()),
            signed: None,
            detail: Vec::new(),
        },
    }
}

/// What the record inside a receipt says: its size, the run, and when the
/// cancellation was confirmed.
fn carried(sealed: &Sealed) -> String {
    let s = &sealed.signed.statement;
    let confirmed = sealed
        .record
        .iter()
        .rev()
        .find(|l| l.event.get("type").and_then(Value::as_str) == Some("finished"))
        .map(|l| format!("; finished {}", l.time))
        .unwrap_or_default();
    format!(
        "it carries its record intact: {} lines to head {}, run {} ({}){confirmed}",
        s.lines, s.head, s.run, s.service
    )
}

/// A run folder: the record, its signature, then each receipt it has.
fn run_folder(
    dir: &Path,
    id: &str,
    given: &[PublicKey],
    keyring: Option<&Keyring>,
) -> Vec<Checked> {
    let mut verdicts = Vec::new();
    let record = match integrity::verify(dir) {
        Ok(v) => {
            let mut detail = vec![format!(
                "the record is as written: {} lines, chain head {}, {} files match",
                v.lines,
                v.head,
                v.files.len()
            )];
            detail.extend(
                v.files
                    .iter()
                    .map(|f| format!("  {}  {}", f.sha256, f.path)),
            );
            let problem = match &v.signed {
                Some(signed) => match judged(signed, given, keyring) {
                    Ok(said) => {
                        detail.push(said);
                        None
                    }
                    Err(why) => Some(why),
                },
                None if !given.is_empty() => Some(
                    "it is not signed, so no key vouches for it (it was made before records were signed, or without a key)"
                        .to_owned(),
                ),
                None => {
                    detail.push(
                        "not signed (made before records were signed, or without a key): the chain shows it unchanged to you, but proves nothing to anyone else"
                            .to_owned(),
                    );
                    None
                }
            };
            Checked {
                what: id.to_owned(),
                problem,
                signed: v.signed,
                detail,
            }
        }
        Err(m) => Checked {
            what: id.to_owned(),
            problem: Some(m.to_string()),
            signed: None,
            detail: Vec::new(),
        },
    };
    let record_key = record.signed.as_ref().map(|s| s.statement.key);
    verdicts.push(record);
    for name in [RECEIPT_HTML, RECEIPT_MD, RECEIPT_PDF] {
        let path = dir.join(name);
        if !path.is_file() {
            continue;
        }
        let mut verdict = receipt_file(&path, given, keyring);
        verdict.what = format!("{id}/{name}");
        // A receipt sealed by a key other than its record's is not this
        // record's receipt.
        if let (None, Some(signed), Some(key)) = (&verdict.problem, &verdict.signed, record_key)
            && signed.statement.key != key
        {
            verdict.problem = Some(format!(
                "it was sealed by {}, but its run's record by {key}",
                signed.statement.key
            ));
        }
        verdict.detail.retain(|d| d.starts_with("it carries"));
        verdicts.push(verdict);
    }
    verdicts
}
