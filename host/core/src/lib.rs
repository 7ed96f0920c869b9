//! The core of subterminator: cancel subscriptions by letting an AI model
//! drive your own browser, with a human "yes" before every irreversible step,
//! and each service described by a sandboxed WebAssembly plugin.
//!
//! The core prints nothing. A run reports what happens as events and asks
//! its questions through one queue ([`feed`]); the front-ends (the
//! `subterminator` command, the MCP server) show the events and answer the
//! questions. `ARCHITECTURE.md` has the map.

#![deny(clippy::print_stdout, clippy::print_stderr, clippy::dbg_macro)]

pub mod agent;
pub mod approval;
pub mod audit;
pub mod batch;
pub mod browser;
pub mod config;
pub mod dispute;
pub mod error;
pub mod exit;
pub mod feed;
pub mod fixture;
pub mod llm;
pub mod memory;
pub mod page;
pub mod paths;
pub mod plugin;
pub mod profiles;
pub mod receipt;
pub mod record;
pub mod safety;
pub mod session;
pub mod signing;
pub mod text;
pub mod tls;

pub use error::{Error, Result};
pub use exit::ErrorClass;
