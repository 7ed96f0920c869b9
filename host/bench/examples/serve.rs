//! Serves CancelBench on loopback, for any agent, with the scorer's side
//! beside it: `cargo run -p subterminator-bench --example serve --
//! 127.0.0.1:8722 127.0.0.1:8723 [OUT_DIR]`, the scorer's token in
//! `SCORER_TOKEN`. `subterminator bench serve`
//! is the same; the interfaces are documented in the crate's README.

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let agent = args.next().unwrap_or_else(|| "127.0.0.1:8722".into());
    let scorer = args.next().unwrap_or_else(|| "127.0.0.1:8723".into());
    let out = args.next().map(std::path::PathBuf::from);
    let agent = tokio::net::TcpListener::bind(&agent).await?;
    let scorer = tokio::net::TcpListener::bind(&scorer).await?;
    eprintln!(
        "CancelBench for the agent on http://{}, the scorer on http://{}",
        agent.local_addr()?,
        scorer.local_addr()?
    );
    let token = std::env::var("SCORER_TOKEN")
        .map_err(|_| "set SCORER_TOKEN to the scorer's token, e.g. $(openssl rand -hex 32)")?;
    eprintln!("The scorer's token: {token}");
    let scorer = subterminator_bench::serve::Scorer {
        listener: scorer,
        token,
    };
    subterminator_bench::serve::serve(agent, Some(scorer), out).await?;
    Ok(())
}
