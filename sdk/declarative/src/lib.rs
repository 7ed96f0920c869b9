//! The `service.toml` format: a subscription service described as data, for
//! people who write no Rust. `README.md` beside this crate is the format's
//! specification.
//!
//! The host parses a file only to validate it and report errors with line
//! and key; the rules are evaluated by the interpreter component inside the
//! plugin sandbox, which parses the same text with the same [`parse`].
//!
//! ```
//! let file = subterminator_declarative::parse(r#"
//! api = "0.4.0"
//!
//! [service]
//! id = "example"
//! display-name = "Example"
//! version = "0.1.0"
//! initial-url = "https://www.example.com/account"
//! goal = "Cancel the Example subscription."
//! allowed-origins = ["https://www.example.com"]
//!
//! [[plan]]
//! description = "Finish the cancellation"
//! done-when = "The page says the subscription is cancelled"
//! irreversible = true
//! targets = [{ action = "click", role = "button", name = ["finish cancellation"] }]
//! "#)?;
//! assert_eq!(file.service.id, "example");
//! # Ok::<(), subterminator_declarative::FileError>(())
//! ```

mod check;
mod error;
pub mod limits;
mod schema;

use serde::Deserialize;
use toml::de::DeTable;

pub use error::{ErrorKind, FileError};
pub use limits::{API_VERSION, API_VERSIONS, MAX_FILE_BYTES};
pub use schema::*;

/// Parses `text` as a `service.toml` and checks every bound of the format.
///
/// The file is refused (never partly read) when it is over
/// [`MAX_FILE_BYTES`], is not TOML, has a key the format does not know, lacks
/// a required key, or breaks a bound; the error names the key and, where it
/// can be placed, the line.
pub fn parse(text: &str) -> Result<ServiceFile, FileError> {
    if text.len() > MAX_FILE_BYTES {
        return Err(FileError {
            line: None,
            key: None,
            kind: ErrorKind::TooLarge,
            message: format!(
                "the file is {} bytes, over the {MAX_FILE_BYTES}-byte limit",
                text.len()
            ),
        });
    }
    let root = DeTable::parse(text).map_err(|e| error::from_toml(text, None, &e))?;
    // A missing or non-string `api` is left to the schema to report.
    if let Some(api) = root.get_ref().get("api").and_then(|v| v.get_ref().as_str()) {
        check::api(api).map_err(|r| error::bound(text, root.get_ref(), r.key, r.message))?;
    }
    // The spans kept in `root` place the errors below; the copy is cheap, as
    // its strings still borrow from `text`.
    let file = ServiceFile::deserialize(toml::de::Deserializer::from(root.clone()))
        .map_err(|e| error::from_toml(text, Some(root.get_ref()), &e))?;
    check::file(&file).map_err(|r| error::bound(text, root.get_ref(), r.key, r.message))?;
    Ok(file)
}

#[cfg(test)]
mod tests;
