//! subterminator: cancel subscriptions by letting an AI model drive your own
//! browser, with a human "yes" before every irreversible step, and each
//! service described by a sandboxed WebAssembly plugin.

pub mod agent;
pub mod approval;
pub mod batch;
pub mod browser;
pub mod cli;
pub mod config;
pub mod demo;
pub mod error;
pub mod exit;
pub mod fixture;
pub mod llm;
pub mod mcp;
pub mod memory;
pub mod page;
pub mod paths;
pub mod plugin;
pub mod profiles;
pub mod receipt;
pub mod record;
pub mod safety;
pub mod scaffold;
pub mod session;
pub mod text;

pub use error::{Error, Result};
pub use exit::ErrorClass;
