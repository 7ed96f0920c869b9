//! Who vouches for a record: an ed25519 key made on this machine on first
//! use, kept in the config folder (never in a run folder, so whoever holds
//! the runs cannot re-sign them), readable by its owner only.
//!
//! A hash chain shows that a record was not changed after it was written;
//! it proves nothing to a bank or a regulator, because whoever holds the
//! folder can rewrite the chain from the first line. A signature by a key
//! that never leaves this machine does: the public half goes into every
//! receipt, `subterminator key` prints it, and anyone holding it can check
//! a receipt with `runs verify … --key`.
//!
//! What is signed is always a [`Statement`]: a few lines of plain text
//! naming the run, the head of its hash chain and the key, so that what a
//! signature vouches for can be read by a person, not only by this tool.
//! Rotating the key retires the old public half into the same file, so a
//! receipt signed before still verifies on this machine.

mod statement;

use std::path::{Path, PathBuf};

use base64::Engine as _;
use chrono::{DateTime, SecondsFormat, Utc};
use ring::rand::SecureRandom as _;
use ring::signature::{ED25519, Ed25519KeyPair, KeyPair as _, UnparsedPublicKey};
use serde::{Deserialize, Serialize};

pub use statement::{Signed, Statement, StatementError};

/// The file in the config folder that holds the keys.
pub const KEYS_FILE: &str = "signing-keys.toml";
/// How a public key is written: `ed25519:` and its 32 bytes in URL-safe
/// base64 without padding (43 characters, one word to paste).
const KEY_PREFIX: &str = "ed25519:";
const SEED_BYTES: usize = 32;
const PUBLIC_BYTES: usize = 32;
const SIGNATURE_BYTES: usize = 64;
/// Group and others may not read the file: a key others can read signs
/// nothing anyone should believe.
#[cfg(unix)]
const PRIVATE_MODE: u32 = 0o600;

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
}

/// Why a key cannot be made, read or used.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("cannot {doing} {}: {source}", path.display())]
    Io {
        doing: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{} is not a signing-key file this version reads ({why}); move it aside and run `subterminator key` to make a new key (receipts signed by the old one still carry its public half)",
        path.display()
    )]
    Damaged { path: PathBuf, why: String },
    #[error(
        "{} can be read by other users (mode {mode:o}): a key others can read proves nothing; run `chmod 600 {}`",
        path.display(),
        path.display()
    )]
    Exposed { path: PathBuf, mode: u32 },
    #[error("the system gave no random bytes for a new key")]
    NoRandomness,
}

/// A public key as receipts carry it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicKey([u8; PUBLIC_BYTES]);

impl PublicKey {
    /// Reads `ed25519:…` as [`PublicKey`]'s `Display` writes it.
    pub fn parse(text: &str) -> Option<Self> {
        let body = text.trim().strip_prefix(KEY_PREFIX)?;
        let bytes = b64().decode(body).ok()?;
        Some(Self(bytes.try_into().ok()?))
    }

    /// Whether `signature` is this key's over `message`.
    pub fn verifies(&self, message: &[u8], signature: &[u8]) -> bool {
        signature.len() == SIGNATURE_BYTES
            && UnparsedPublicKey::new(&ED25519, self.0)
                .verify(message, signature)
                .is_ok()
    }
}

impl std::fmt::Display for PublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{KEY_PREFIX}{}", b64().encode(self.0))
    }
}

/// The key this machine signs with, and who it says it is.
pub struct Signer {
    pair: Ed25519KeyPair,
    public: PublicKey,
    /// A name for people (`jane@laptop`), set when the key was made. The
    /// key is the identity; the name only says whose it claims to be.
    pub name: String,
    pub made: DateTime<Utc>,
}

impl std::fmt::Debug for Signer {
    // Never the secret, not even in a debug print.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signer")
            .field("public", &self.public.to_string())
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Signer {
    fn from_seed(seed: &[u8], name: String, made: DateTime<Utc>) -> Option<Self> {
        let pair = Ed25519KeyPair::from_seed_unchecked(seed).ok()?;
        let public = PublicKey(pair.public_key().as_ref().try_into().ok()?);
        Some(Self {
            pair,
            public,
            name,
            made,
        })
    }

    pub fn public(&self) -> PublicKey {
        self.public
    }

    /// Signs `statement`, which must name this key.
    pub fn sign(&self, statement: Statement) -> Signed {
        let signature = self.pair.sign(statement.text().as_bytes());
        Signed::new(statement, signature.as_ref().to_vec())
    }

    /// A statement of `head` by this key, signed now.
    pub fn statement(&self, run: &str, service: &str, head: &str, lines: u64) -> Statement {
        Statement {
            run: run.to_owned(),
            service: service.to_owned(),
            head: head.to_owned(),
            lines,
            signed_at: Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
            key: self.public,
            signer: statement::one_line(&self.name),
            content_sha256: None,
        }
    }
}

/// The keys file as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeysFile {
    current: CurrentKey,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    retired: Vec<RetiredKey>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CurrentKey {
    /// The 32-byte seed, URL-safe base64.
    secret: String,
    public: String,
    name: String,
    made: DateTime<Utc>,
}

/// A key that signed before the last rotation: its public half only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetiredKey {
    pub public: String,
    pub name: String,
    pub made: DateTime<Utc>,
    pub retired: DateTime<Utc>,
}

/// This machine's keys: the one that signs, and the ones that did.
#[derive(Debug)]
pub struct Keyring {
    pub current: Signer,
    pub retired: Vec<RetiredKey>,
    pub path: PathBuf,
}

/// Whose a public key is, as far as this machine knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Known {
    /// The key this machine signs with now.
    Current,
    /// A key this machine signed with before it was rotated.
    Retired { retired: DateTime<Utc> },
}

impl Keyring {
    /// The keys in `config`, made now if there are none.
    pub fn open_or_create(config: &Path) -> Result<Self, KeyError> {
        let path = config.join(KEYS_FILE);
        if path.exists() {
            return Self::open(&path);
        }
        let file = KeysFile {
            current: new_key(None)?,
            retired: Vec::new(),
        };
        // Two runs starting at once on a fresh machine both get here; the
        // first key written is the machine's, and the other run signs
        // with it too.
        match write_private(&path, &file, Replace::No) {
            Ok(()) => Self::from_file(path, file),
            Err(KeyError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::AlreadyExists =>
            {
                Self::open(&path)
            }
            Err(e) => Err(e),
        }
    }

    /// The keys in `config`, if a key was ever made there.
    pub fn open_existing(config: &Path) -> Result<Option<Self>, KeyError> {
        let path = config.join(KEYS_FILE);
        if path.exists() {
            Self::open(&path).map(Some)
        } else {
            Ok(None)
        }
    }

    fn open(path: &Path) -> Result<Self, KeyError> {
        check_private(path)?;
        let text = std::fs::read_to_string(path).map_err(|source| KeyError::Io {
            doing: "read",
            path: path.to_owned(),
            source,
        })?;
        let file: KeysFile = toml::from_str(&text).map_err(|e| KeyError::Damaged {
            path: path.to_owned(),
            why: e.message().to_owned(),
        })?;
        Self::from_file(path.to_owned(), file)
    }

    fn from_file(path: PathBuf, file: KeysFile) -> Result<Self, KeyError> {
        let damaged = |why: &str| KeyError::Damaged {
            path: path.clone(),
            why: why.to_owned(),
        };
        let seed = b64()
            .decode(&file.current.secret)
            .ok()
            .filter(|s| s.len() == SEED_BYTES)
            .ok_or_else(|| damaged("the secret is not 32 bytes of base64"))?;
        let current = Signer::from_seed(&seed, file.current.name, file.current.made)
            .ok_or_else(|| damaged("the secret is not an ed25519 seed"))?;
        if PublicKey::parse(&file.current.public) != Some(current.public) {
            return Err(damaged("the public key does not belong to the secret"));
        }
        Ok(Self {
            current,
            retired: file.retired,
            path,
        })
    }

    /// A new key signs from now on; the current one's public half is kept
    /// as retired, so what it signed still verifies here. The old secret is
    /// gone with the rewrite: nothing can sign as it again.
    pub fn rotate(&mut self, name: Option<String>) -> Result<(), KeyError> {
        let now = Utc::now();
        let mut retired = vec![RetiredKey {
            public: self.current.public.to_string(),
            name: self.current.name.clone(),
            made: self.current.made,
            retired: now,
        }];
        retired.extend(self.retired.iter().cloned());
        let file = KeysFile {
            current: new_key(name.or_else(|| Some(self.current.name.clone())))?,
            retired,
        };
        write_private(&self.path, &file, Replace::Yes)?;
        *self = Self::from_file(self.path.clone(), file)?;
        Ok(())
    }

    /// Whether `key` is one of this machine's.
    pub fn knows(&self, key: &PublicKey) -> Option<Known> {
        if *key == self.current.public {
            return Some(Known::Current);
        }
        let text = key.to_string();
        self.retired
            .iter()
            .find(|r| r.public == text)
            .map(|r| Known::Retired { retired: r.retired })
    }
}

/// Why a good signature is still not one the checker should believe.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Untrusted {
    #[error("it was signed by another key: {signed_by}, not {}", list(given))]
    NotTheGivenKey {
        signed_by: PublicKey,
        given: Vec<PublicKey>,
    },
    #[error(
        "it was signed by {signed_by}, which is not a key of this machine; if that is the key of whoever gave you this, check with --key {signed_by} (ask them for `subterminator key`'s output)"
    )]
    Stranger { signed_by: PublicKey },
}

fn list(keys: &[PublicKey]) -> String {
    keys.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" or ")
}

/// Whose key signed, as the checker sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// A key the checker named (`--key`).
    Given,
    /// One of this machine's own keys.
    Mine(Known),
}

/// Whether a signature by `signed_by` is one to believe: a key the checker
/// named, or else one of this machine's. A valid signature by a key nobody
/// vouched for proves only that someone signed.
pub fn trust(
    signed_by: PublicKey,
    given: &[PublicKey],
    keyring: Option<&Keyring>,
) -> Result<Trust, Untrusted> {
    if !given.is_empty() {
        return if given.contains(&signed_by) {
            Ok(Trust::Given)
        } else {
            Err(Untrusted::NotTheGivenKey {
                signed_by,
                given: given.to_vec(),
            })
        };
    }
    keyring
        .and_then(|k| k.knows(&signed_by))
        .map(Trust::Mine)
        .ok_or(Untrusted::Stranger { signed_by })
}

/// A fresh key named `name`, or `user@host`.
fn new_key(name: Option<String>) -> Result<CurrentKey, KeyError> {
    let mut seed = [0u8; SEED_BYTES];
    ring::rand::SystemRandom::new()
        .fill(&mut seed)
        .map_err(|_| KeyError::NoRandomness)?;
    let made = Utc::now();
    let name = name.unwrap_or_else(default_name);
    let signer = Signer::from_seed(&seed, name.clone(), made).ok_or(KeyError::NoRandomness)?;
    Ok(CurrentKey {
        secret: b64().encode(seed),
        public: signer.public.to_string(),
        name,
        made,
    })
}

/// `user@host`, as far as the system says.
fn default_name() -> String {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_else(|_| "someone".to_owned());
    let host = nix::unistd::gethostname()
        .ok()
        .and_then(|h| h.into_string().ok())
        .unwrap_or_else(|| "this machine".to_owned());
    format!("{user}@{host}")
}

const HEADER: &str = "# subterminator's signing keys. `current.secret` signs your receipts:\n\
# keep this file to yourself (mode 600), and out of backups you share.\n\
# `subterminator key` prints the public half; `subterminator key --rotate`\n\
# makes a new key and keeps this one's public half under [[retired]].\n\n";

/// Whether writing the keys may replace a file that is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Replace {
    Yes,
    No,
}

/// Writes `file` readable by its owner only: a new file made with that
/// mode, then moved into place, so no moment exists where the secret sits
/// in a file others can read or a half-written file is the key. With
/// `Replace::No` the move is a hard link, which fails when a key is
/// already there instead of replacing it.
fn write_private(path: &Path, file: &KeysFile, replace: Replace) -> Result<(), KeyError> {
    let io = |doing: &'static str, p: &Path| {
        let p = p.to_owned();
        move |source| KeyError::Io {
            doing,
            path: p,
            source,
        }
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io("make the folder of", parent))?;
    }
    let text = toml::to_string(file).map_err(|e| KeyError::Damaged {
        path: path.to_owned(),
        why: e.to_string(),
    })?;
    let scratch = path.with_extension(format!(
        "toml.{}-{}.new",
        std::process::id(),
        fastrand::u64(..)
    ));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, PRIVATE_MODE);
    let mut out = options.open(&scratch).map_err(io("create", &scratch))?;
    let written = std::io::Write::write_all(&mut out, format!("{HEADER}{text}").as_bytes())
        .and_then(|()| out.sync_all())
        .map_err(io("write", &scratch));
    let placed = written.and_then(|()| match replace {
        Replace::Yes => std::fs::rename(&scratch, path).map_err(io("replace", path)),
        Replace::No => std::fs::hard_link(&scratch, path).map_err(io("create", path)),
    });
    let _ = std::fs::remove_file(&scratch);
    placed
}

#[cfg(unix)]
fn check_private(path: &Path) -> Result<(), KeyError> {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(path)
        .map_err(|source| KeyError::Io {
            doing: "read",
            path: path.to_owned(),
            source,
        })?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        return Err(KeyError::Exposed {
            path: path.to_owned(),
            mode: mode & 0o777,
        });
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_path: &Path) -> Result<(), KeyError> {
    Ok(())
}

#[cfg(test)]
mod tests;
