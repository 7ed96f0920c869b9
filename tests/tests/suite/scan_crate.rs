//! The scan crate's own tests, in the one integration binary: its
//! fixtures read row by row against hand-written expectations, issue 42's
//! cases, the privacy of what it prints, and the report. `scan.rs` beside
//! this drives the real binary.

mod common;
mod fixtures;
mod issue42;
mod privacy;
mod report;
