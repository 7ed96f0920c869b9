//! The same program as host's binary, built here so that this crate's
//! end-to-end tests get it as `CARGO_BIN_EXE_subterminator-under-test` (a different name from host's binary, so the two never collide in target/).

fn main() -> std::process::ExitCode {
    subterminator::main()
}
