//! `subterminator bench serve`: the flows for any agent on loopback, the
//! scorer's side on a port of its own, finished runs kept in a folder.

use clap::Args;

use subterminator_core::error::{Error, Result};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Where the agent's interface listens (loopback only).
    #[arg(long, default_value = "127.0.0.1:8722")]
    pub addr: String,

    /// Where the scorer's interface listens (loopback only): the truth,
    /// verdicts, logs, scorecard and report, never on the agent's port.
    #[arg(long, default_value = "127.0.0.1:8723", conflicts_with = "no_scorer")]
    pub scorer: String,

    /// No scorer's port: verdicts only in the output folder.
    #[arg(long)]
    pub no_scorer: bool,

    /// Keep every finished run here (record, log, claim), with the
    /// scorecard and report of them all; a folder that holds runs is
    /// carried on.
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
}

pub async fn run(args: ServeArgs, json: bool) -> Result<u8> {
    let bind = |addr: String| async move {
        let listener = tokio::net::TcpListener::bind(&addr)
            .await
            .map_err(|e| Error::io("cannot listen", &addr, e))?;
        let bound = listener
            .local_addr()
            .map_err(|e| Error::io("cannot listen", &addr, e))?;
        Ok::<_, Error>((listener, format!("http://{bound}")))
    };
    let (agent, agent_url) = bind(args.addr.clone()).await?;
    let scorer = if args.no_scorer {
        None
    } else {
        Some(bind(args.scorer.clone()).await?)
    };
    let scorer_url = scorer.as_ref().map(|(_, url)| url.clone());
    if json {
        // One line a harness reads to find the ports it asked to be chosen.
        anstream::println!(
            "{}",
            serde_json::json!({ "agent": agent_url, "scorer": scorer_url, "out": args.out })
        );
    }
    anstream::eprintln!(
        "CancelBench for the agent at {agent_url} (GET /flows, POST /runs, POST /runs/<run>/ask, POST /runs/<run>/claim, DELETE /runs/<run>)"
    );
    match &scorer_url {
        Some(url) => anstream::eprintln!(
            "The scorer at {url} (GET /flows/<id>, GET /runs/<run>, GET /runs/<run>/log, GET /scorecard, GET /report)"
        ),
        None => anstream::eprintln!("No scorer's port: verdicts are in the output folder only"),
    }
    if let Some(out) = &args.out {
        anstream::eprintln!("Finished runs are kept in {}", out.display());
    }
    anstream::eprintln!("Ctrl+C stops it");
    tokio::select! {
        served = subterminator_bench::serve::serve(agent, scorer.map(|(l, _)| l), args.out) => {
            served.map_err(|e| Error::Configuration(e.to_string()))?;
        }
        () = subterminator_core::session::interrupted() => {}
    }
    Ok(0)
}
