//! Plugins drafted from verified runs (issue 40): for each CancelBench flow
//! of a site no plugin knows, the scripted honest model cancels it once
//! (`cancel <address>`, plan first), `plugin new --from-run` drafts a
//! declarative plugin from that run's record, `plugin test` checks the
//! draft, and a second run of the same flow (a fresh site) with the draft
//! installed counts the model requests it still needs. Prints one row per
//! flow and the totals: drafts written, drafts that pass `plugin test`,
//! second runs verified, model requests in the first and second runs.
//!
//! Run: `cargo bench --profile dev -p subterminator-tests --bench drafts`
//! (`FLOWS=id,id` for some flows; by default the first `COUNT` (10)
//! development flows of sites no plugin knows whose first run verifies).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use subterminator_bench::{Catalog, Split};
use subterminator_tests::bench_run::{Ran, cancel_in};
use subterminator_tests::e2e;

#[tokio::main]
async fn main() {
    let catalog = Catalog::load().unwrap();
    let only: Option<Vec<String>> = std::env::var("FLOWS")
        .ok()
        .map(|l| l.split(',').map(str::to_owned).collect());
    let count: usize = std::env::var("COUNT")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(10);
    println!(
        "| flow | first run verified | model requests (first) | draft written | plugin test | second run verified | model requests (second) |"
    );
    println!("|---|---|---|---|---|---|---|");
    let (mut tried, mut written, mut passing, mut second_ok) = (0, 0, 0, 0);
    let (mut first_requests, mut second_requests) = (0u64, 0u64);
    for flow in catalog.flows() {
        let wanted = match &only {
            Some(ids) => ids.contains(&flow.id),
            None => {
                !flow.plugin && flow.split == Split::Development && flow.truth.cancellable_online
            }
        };
        if !wanted || tried >= count {
            continue;
        }
        let first = cancel_in(
            tempfile::tempdir().unwrap(),
            &flow.id,
            "compact",
            false,
            None,
        )
        .await
        .unwrap();
        if !first.verified() {
            if only.is_some() {
                println!(
                    "| {} | no | {} | — | — | — | — |",
                    flow.id,
                    first.model_requests()
                );
            }
            continue;
        }
        tried += 1;
        let asked_first = first.model_requests();
        first_requests += asked_first;
        // The draft is written in the same home, where the run is.
        let id = format!("drafted-{}", tried);
        let folder = first.home.path().join(&id);
        let run = first.run_dir().unwrap();
        let mut new = e2e::command(first.home.path());
        new.args(["plugin", "new", &id, "--from-run"])
            .arg(&run)
            .arg("--dir")
            .arg(&folder);
        let drafted = e2e::run(new, "").await.unwrap();
        let wrote = drafted.status.success();
        written += usize::from(wrote);
        let mut test = e2e::command(first.home.path());
        test.args(["plugin", "test"]).arg(&folder);
        let tested = wrote && e2e::run(test, "").await.unwrap().status.success();
        passing += usize::from(tested);
        let mut second_verified = false;
        let mut asked_second = String::from("—");
        if tested {
            e2e::install_declarative(first.home.path(), &id, &folder.join("service.toml")).unwrap();
            let Ran { home, .. } = first;
            let second = cancel_in(home, &flow.id, "compact", false, Some(&id))
                .await
                .unwrap();
            second_verified = second.verified();
            second_ok += usize::from(second_verified);
            let asked = second.model_requests();
            second_requests += asked;
            asked_second = asked.to_string();
        } else if !wrote {
            eprintln!("{}: {}", flow.id, e2e::text(&drafted));
        }
        println!(
            "| {} | yes | {asked_first} | {} | {} | {} | {asked_second} |",
            flow.id,
            if wrote { "yes" } else { "no" },
            if tested { "passes" } else { "fails" },
            if second_verified { "yes" } else { "no" },
        );
    }
    println!();
    println!(
        "Drafted from {tried} verified runs: {written} written, {passing} pass `plugin test`, {second_ok} second runs verified; model requests: {first_requests} in the first runs, {second_requests} in the second."
    );
}
