//! The `subterminator` binary; everything lives in the library.

fn main() -> std::process::ExitCode {
    subterminator::main()
}
