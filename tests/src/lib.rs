//! Support for the integration and end-to-end tests: the sites they serve on
//! 127.0.0.1, the scripted model server, and the abuse plugins.

pub mod bench_run;
pub mod compact_script;
pub mod e2e;
pub mod flow_script;
pub mod honest_model;
pub mod hostile;
pub mod hostile_model;
pub mod human;
pub mod mcp_client;
pub mod model_server;
pub mod prompt_cache;
pub mod remote_chromium;
pub mod scripted;
pub mod served_bench;
pub mod site;
pub mod sloppy;
