//! Every integration and end-to-end test, in one binary: wasmtime and the
//! host are linked once instead of once per file. Each suite is a module
//! named for what it tests; shared support lives in the `subterminator-tests`
//! library (`tests/src`).

mod suite {
    mod attach;
    mod audit;
    mod batch;
    mod bench;
    mod bench_mcp;
    mod bench_serve;
    mod browser;
    mod cancel_model;
    mod cancel_offline;
    mod channels;
    mod cli;
    mod compact;
    mod ecosystem;
    mod generic;
    mod guard;
    mod honest_sample;
    mod hostile;
    mod llm;
    mod map;
    mod mcp;
    mod mcp_conformance;
    mod mcp_faults;
    mod mcp_modern;
    mod origins;
    mod plan_first;
    mod plugin_cache;
    mod proof;
    mod record;
    mod robust;
    mod sandbox;
    mod scan;
    mod scan_crate;
    mod services;
}
