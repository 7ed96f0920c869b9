//! `subterminator bench serve`: the flows for any agent on loopback, the
//! scorer's side on a port of its own, finished runs kept in a folder.

use clap::Args;

use subterminator_bench::serve::Scorer;
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

    /// Read the scorer's token from this file (one line, 32 characters or
    /// more) instead of making one.
    #[arg(long, value_name = "PATH", conflicts_with = "no_scorer")]
    pub scorer_token_file: Option<std::path::PathBuf>,

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
    // The MCP server's bearer tokens, made and read the same way: random
    // from the OS's source, or one line of a file, checked.
    let token = match &scorer {
        None => None,
        Some(_) => Some(subterminator_mcp::http::token(args.scorer_token_file.as_deref())?.0),
    };
    if let (Some(out), Some(token)) = (&args.out, &token) {
        keep_token(out, token)?;
    }
    if json {
        // One line a harness reads to find the ports it asked to be chosen.
        anstream::println!(
            "{}",
            serde_json::json!({
                "agent": agent_url,
                "scorer": scorer_url,
                "scorer_token": token,
                "out": args.out,
            })
        );
    }
    anstream::eprintln!(
        "CancelBench for the agent at {agent_url} (GET /flows, POST /runs, POST /runs/<run>/ask, POST /runs/<run>/claim, DELETE /runs/<run>)"
    );
    match (&scorer_url, &token) {
        (Some(url), Some(token)) => anstream::eprintln!(
            "The scorer at {url} (GET /flows/<id>, GET /runs/<run>, GET /runs/<run>/log, GET /scorecard, GET /report), \
             each with `Authorization: Bearer {token}`: give it to whoever scores, never to the agent"
        ),
        _ => anstream::eprintln!("No scorer's port: verdicts are in the output folder only"),
    }
    if let Some(out) = &args.out {
        anstream::eprintln!("Finished runs are kept in {}", out.display());
    }
    anstream::eprintln!("Ctrl+C stops it");
    tokio::select! {
        served = subterminator_bench::serve::serve(
            agent,
            scorer.zip(token).map(|((listener, _), token)| Scorer { listener, token }),
            args.out,
        ) => {
            served.map_err(|e| Error::Configuration(e.to_string()))?;
        }
        () = subterminator_core::session::interrupted() => {}
    }
    Ok(0)
}

/// `DIR/scorer-token`, readable by its owner only: whoever scores the
/// folder's runs later finds it there, an agent running as another user
/// does not.
fn keep_token(out: &std::path::Path, token: &str) -> Result<()> {
    std::fs::create_dir_all(out).map_err(|e| Error::io("cannot make the output folder", out, e))?;
    let path = out.join("scorer-token");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(&path)
        .map_err(|e| Error::io("cannot write the scorer's token", &path, e))?;
    std::io::Write::write_all(&mut file, format!("{token}\n").as_bytes())
        .map_err(|e| Error::io("cannot write the scorer's token", &path, e))
}
