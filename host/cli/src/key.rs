//! `subterminator key`: this machine's signing key, whose public half
//! whoever checks a receipt needs, and its rotation.

use anstream::println;
use clap::Args;

use subterminator_core::error::{Error, Result};
use subterminator_core::exit::EXIT_SUCCESS;
use subterminator_core::paths::Dirs;
use subterminator_core::signing::{KeyError, Keyring};

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    subterminator key                    the public key (made now if there is none)\n  \
    subterminator key --json             the same as one JSON object\n  \
    subterminator key --rotate           sign with a new key from now on\n  \
    subterminator key --rotate --name \"Jane Doe\"   and call it that in receipts\n\n\
    Every receipt and every run's record is signed with this key; the receipt carries\n\
    the public half. Give the public key to whoever checks your receipts (a bank, a\n\
    regulator): `subterminator runs verify receipt.html --key ed25519:…` checks one.\n\
    The key lives in the config folder, readable by you only. Rotating keeps the old\n\
    public half, so what it signed still verifies here; the old secret is destroyed.")]
pub struct KeyArgs {
    /// Make a new key that signs from now on; the current one is retired.
    #[arg(long)]
    pub rotate: bool,
    /// With --rotate: the name the new key gives in receipts (default: the
    /// current key's, which is user@host when first made).
    #[arg(long, requires = "rotate", value_name = "NAME")]
    pub name: Option<String>,
}

fn key_error(e: KeyError) -> Error {
    Error::Configuration(e.to_string())
}

pub fn run(args: KeyArgs, dirs: &Dirs, json: bool) -> Result<u8> {
    let mut keys = Keyring::open_or_create(&dirs.config).map_err(key_error)?;
    let before = keys.current.public();
    if args.rotate {
        keys.rotate(args.name).map_err(key_error)?;
    }
    let current = &keys.current;
    if json {
        println!(
            "{}",
            serde_json::json!({
                "public_key": current.public().to_string(),
                "name": current.name,
                "made": current.made,
                "file": keys.path,
                "rotated_from": args.rotate.then(|| before.to_string()),
                "retired": keys.retired,
            })
        );
        return Ok(EXIT_SUCCESS);
    }
    if args.rotate {
        println!("Rotated: receipts are signed with a new key from now on.");
        println!("Retired: {before} (what it signed still verifies here)\n");
    }
    println!("Public key: {}", current.public());
    println!("Name:       {}", current.name);
    println!("Made:       {}", current.made.format("%Y-%m-%d %H:%M UTC"));
    println!("Kept in:    {} (readable by you only)", keys.path.display());
    for old in &keys.retired {
        println!(
            "Retired:    {} ({}, {} to {})",
            old.public,
            old.name,
            old.made.format("%Y-%m-%d"),
            old.retired.format("%Y-%m-%d")
        );
    }
    println!(
        "\nWhoever checks a receipt of yours needs the public key:\n  subterminator runs verify receipt.html --key {}",
        current.public()
    );
    Ok(EXIT_SUCCESS)
}
