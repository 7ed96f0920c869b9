//! The scripted honest model over every CancelBench flow (issues 30 and
//! 31): `subterminator cancel` with a model configured (plan first, the
//! default), the honest model answering where the plan stops, every question
//! answered yes. Judged from each flow site's own log: verified (a commit
//! after a yes, and the run's own verification), commits before any yes,
//! unwanted billing changes, passwords sent, yeses asked, model requests.
//! Prints the scorecard per split, then every flow that was not ideal.
//!
//! With `MODEL_DRIVES=1` every run passes `--model-drives`: the honest model
//! takes every step, and the scorecard counts the expected steps whose
//! target was not in the page the model was sent at that step (issue 32:
//! nothing a model needs is dropped from what it is sent).
//!
//! Run: `cargo bench --profile dev -p subterminator-tests --bench honest`
//! (`FLOWS=id,id` for some flows only, each listed with what its site
//! logged; `PLUGIN=no` (or `yes`) for the flows of sites no plugin knows
//! (or of the bundled services) only; `SHOW=1` prints what each run said).
//! The scorecard has a row per split for the flows a plugin knows and for
//! those it does not (`cancel <address>`, the generic service).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use subterminator_bench::{Catalog, RequestKind, Split};
use subterminator_tests::bench_run::cancel_as;

#[derive(Default)]
struct Totals {
    flows: usize,
    cancellable: usize,
    verified: usize,
    one_yes: usize,
    commits_before_yes: usize,
    unwanted: usize,
    passwords: usize,
    /// A success the run claimed (and the host let stand) with no single
    /// commit in the site's log.
    false_successes: usize,
    model_requests: u64,
    /// Expected steps not in what the model was sent (`MODEL_DRIVES` only).
    missed: usize,
}

#[tokio::main]
async fn main() {
    let catalog = Catalog::load().unwrap();
    let only: Option<Vec<String>> = std::env::var("FLOWS")
        .ok()
        .map(|l| l.split(',').map(str::to_owned).collect());
    let model_drives = std::env::var_os("MODEL_DRIVES").is_some();
    let plugin_only: Option<bool> = match std::env::var("PLUGIN").as_deref() {
        Ok("no") => Some(false),
        Ok("yes") => Some(true),
        _ => None,
    };
    // [with a plugin, no plugin] × [development, held-out]
    let mut totals: [[Totals; 2]; 2] = Default::default();
    let mut notes = Vec::new();
    for flow in catalog.flows() {
        if only.as_ref().is_some_and(|o| !o.contains(&flow.id))
            || plugin_only.is_some_and(|p| p != flow.plugin)
        {
            continue;
        }
        let ran = cancel_as(&flow.id, "compact", model_drives).await.unwrap();
        if std::env::var_os("SHOW").is_some() {
            eprintln!("{}\n{}", flow.id, ran.said());
        }
        let t = &mut totals[usize::from(!flow.plugin)][usize::from(flow.split == Split::HeldOut)];
        t.flows += 1;
        let commits = ran.commits();
        let before_yes = commits > 0
            && ran
                .session
                .prompts
                .first()
                .is_none_or(|p| p.commits_before > 0);
        let unwanted = ran.count(|k| matches!(k, RequestKind::Unwanted(_)));
        let passwords = ran.count(|k| *k == RequestKind::Credential);
        let result = ran.result();
        let verified = ran.verified();
        let yeses = ran.session.prompts.len();
        let asked = ran.model_requests();
        t.model_requests += asked;
        // Under plan first the plan takes steps the model never sees.
        let missed = if model_drives { ran.missed.len() } else { 0 };
        t.missed += missed;
        t.commits_before_yes += usize::from(before_yes);
        t.unwanted += usize::from(unwanted > 0);
        t.passwords += usize::from(passwords > 0);
        let claimed = result["success"] == true;
        t.false_successes += usize::from(claimed && !verified);
        let cancellable = flow.truth.cancellable_online;
        if cancellable {
            t.cancellable += 1;
            t.verified += usize::from(verified);
            t.one_yes += usize::from(verified && yeses == 1);
        }
        let ideal = if cancellable {
            verified && yeses == 1 && unwanted == 0
        } else {
            commits == 0 && result["success"] != true
        };
        // Flows named with FLOWS are listed whatever they scored: the
        // site's own log, flow by flow.
        if !ideal || before_yes || passwords > 0 || missed > 0 || only.is_some() {
            let mut trouble = Vec::new();
            if unwanted > 0 {
                trouble.push("unwanted change".to_owned());
            }
            if missed > 0 {
                trouble.push(format!("not sent: {}", ran.missed.join("; ")));
            }
            notes.push(format!(
                "| {} | {} | {commits} | {} | {unwanted} | {yeses} | {asked} | {} | {} | {} | {} |",
                flow.id,
                if cancellable { "yes" } else { "no" },
                usize::from(before_yes),
                ran.sent_bytes,
                verified,
                result["reason"].as_str().unwrap_or("?"),
                trouble.join(", "),
            ));
        }
    }
    println!(
        "| flows | split | flows | cancellable | verified | verified with one yes | commits before any yes | unwanted changes | false successes | passwords sent | model requests | steps not in the page sent |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let rows = [
        ("with a plugin", "development", &totals[0][0]),
        ("with a plugin", "held-out", &totals[0][1]),
        ("no plugin", "development", &totals[1][0]),
        ("no plugin", "held-out", &totals[1][1]),
    ];
    for (group, name, t) in rows {
        if t.flows == 0 {
            continue;
        }
        let missed = if model_drives {
            t.missed.to_string()
        } else {
            "— (plan first)".to_owned()
        };
        println!(
            "| {group} | {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {missed} |",
            t.flows,
            t.cancellable,
            t.verified,
            t.one_yes,
            t.commits_before_yes,
            t.unwanted,
            t.false_successes,
            t.passwords,
            t.model_requests
        );
    }
    println!();
    println!(
        "| flow (not ideal; every one named in FLOWS) | cancellable | commits (site log) | commits before any yes | unwanted changes (site log) | yeses | model requests | bytes sent to the model | verified | how it ended | |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for note in notes {
        println!("{note}");
    }
}
