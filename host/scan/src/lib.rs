//! Find what you pay for: subscriptions read from your own bank statements,
//! on your own machine.
//!
//! ```no_run
//! use std::path::Path;
//! use subterminator_scan::{ScanOptions, find_subscriptions, known_descriptors, read_statement};
//!
//! let options = ScanOptions::default();
//! let statement = read_statement(Path::new("chase.csv"), &options)?;
//! let report = find_subscriptions(&[statement], &known_descriptors(), None);
//! for subscription in &report.subscriptions {
//!     // the caller decides how it looks: a table, JSON, a page
//!     # let _ = (&subscription.descriptor, subscription.yearly_cost);
//! }
//! # Ok::<(), subterminator_scan::ScanError>(())
//! ```
//!
//! Statements: CSV exports of the banks in [`KNOWN_FORMATS`] (recognised by
//! their header line) or any CSV with a [`ColumnMap`]; OFX 1.x and 2.x,
//! QFX; CAMT.052, .053 and .054. Each is normalised so that money out is a
//! positive charge. What the file does not settle (day or month first, the
//! sign of a charge) the rows decide, or the read stops with
//! [`ErrorKind::NeedsFlag`]; what was decided, skipped or set aside is in
//! [`Report::notes`]. Every string from a statement is made inert (control
//! and bidi characters written escaped) before it leaves this crate.
//!
//! Data only: the crate returns values (a [`Report`] of [`Subscription`]s,
//! [`Money`], [`Cadence`], [`Action`]) and lays nothing out; the table and
//! the HTML page are the CLI's. [`Money`]'s `Display` (`15.49 USD`) and
//! [`Money::decimal`] are how an amount is written, not a layout.
//!
//! Privacy: this crate never prints, logs or writes a file; statements are
//! read into memory and nothing of them is kept. Errors and skip records
//! hold file names, header names and line numbers, never a transaction, and
//! the `Debug` of everything that holds transactions is redacted. The
//! descriptors and amounts leave this crate only through [`Report`]'s
//! fields and its `Serialize`, and [`service_charges`] (the charges of
//! services, for `scan --since-cancel`): the answer itself.

#![deny(clippy::print_stdout, clippy::print_stderr, clippy::dbg_macro)]
#![warn(missing_docs)]

mod address;
mod cadence;
mod camt;
mod charges;
mod columns;
mod csv_layouts;
mod csv_statement;
mod dates;
mod descriptor;
mod encoding;
mod error;
mod inert;
mod lines;
mod money;
mod ofx;
mod read;
mod recurring;
mod report;
mod services;
mod shops;
mod source;
mod statement;
mod xml_text;

pub use cadence::Cadence;
pub use charges::{ServiceCharge, service_charges};
pub use columns::{AmountColumns, ChargeSign, ColumnMap, parse_columns};
pub use error::{ErrorKind, HeaderSeen, KNOWN_FORMATS, ScanError};
pub use money::{Currency, Money};
pub use read::{read_statement, read_statement_bytes};
pub use report::{FileSummary, PriceChange, Report, Subscription, Total, find_subscriptions};
pub use services::{Action, ServiceDescriptors, known_descriptors};
pub use statement::{
    DEFAULT_MAX_BYTES, Format, ScanOptions, SkipReason, Skipped, Statement, Transaction,
};
