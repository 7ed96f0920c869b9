//! The README says what the code does: its flow tables and counts are made
//! from the catalogue, and its `serve` example is run, line by line,
//! against a fresh server on the ports it names. `SUBTERMINATOR_WRITE_README=1
//! cargo test -p subterminator-bench readme` writes the tables again.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;

use crate::catalog::Catalog;
use crate::flow::{Flow, Split};
use crate::serve::MAX_LIVE_RUNS;
use crate::testing::http_with;

/// The scorer's token the README's example reads from `$SCORER_TOKEN`.
const TOKEN: &str = "0123456789abcdef0123456789abcdef";

const README: &str = include_str!("../README.md");
const TABLES: &str = "## All flows\n";

fn path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")
}

fn or_dash(items: Vec<&str>) -> String {
    if items.is_empty() {
        "–".to_owned()
    } else {
        items.join(", ")
    }
}

/// The "All flows" section, as the catalogue makes it.
fn tables(catalog: &Catalog) -> String {
    let mut out = String::from(
        "## All flows\n\nThe bundled services and the practice site:\n\n\
         | id | service | tricks | shapes | lang | split | service_steps | ideal yeses |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    let tricks = |f: &Flow| or_dash(f.tricks.iter().map(|t| t.label()).collect());
    let shapes = |f: &Flow| or_dash(f.shapes.iter().map(|s| s.label()).collect());
    for f in catalog.flows().iter().filter(|f| f.plugin) {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |",
            f.id,
            f.service,
            tricks(f),
            shapes(f),
            f.language,
            f.split.label(),
            if f.service_steps { "yes" } else { "no" },
            f.truth.ideal_yeses
        );
    }
    out.push_str(
        "\nServices no plugin knows (`plugin: false`):\n\n\
         | id | service | statutory | tricks | shapes | lang | split | ideal yeses |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for f in catalog.flows().iter().filter(|f| !f.plugin) {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |",
            f.id,
            f.service,
            f.statutory.map_or("–", |s| s.label()),
            tricks(f),
            shapes(f),
            f.language,
            f.split.label(),
            f.truth.ideal_yeses
        );
    }
    out
}

#[test]
fn the_flow_tables_and_counts_are_the_catalogues() {
    let catalog = Catalog::load().unwrap();
    let made = tables(&catalog);
    let at = README.find(TABLES).expect("the README has its flow tables");
    if std::env::var_os("SUBTERMINATOR_WRITE_README").is_some() {
        std::fs::write(path(), format!("{}{made}", &README[..at])).unwrap();
        return;
    }
    assert!(
        README[at..] == made,
        "the README's flow tables are not the catalogue's: run SUBTERMINATOR_WRITE_README=1 cargo test -p subterminator-bench readme"
    );
    let flows = catalog.flows();
    let bundled = flows.iter().filter(|f| f.plugin).count();
    let of = |split| flows.iter().filter(|f| f.split == split).count();
    for said in [
        format!("{} flows, generated", flows.len()),
        format!("({bundled} on the ten bundled services"),
        format!("{} on\nservices no plugin knows", flows.len() - bundled),
        format!("`development` ({} flows)", of(Split::Development)),
        format!("`held-out` ({} flows", of(Split::HeldOut)),
    ] {
        assert!(README.contains(&said), "the README does not say {said:?}");
    }
}

/// One `curl` line of the README: method, URL, body and headers (but its
/// content type, which the body's sender sets), `$SCORER_TOKEN` filled.
struct Curl {
    method: String,
    url: String,
    body: Option<String>,
    headers: Vec<(String, String)>,
}

fn curl(line: &str) -> Curl {
    let mut method = "GET".to_owned();
    let mut url = None;
    let mut body = None;
    let mut headers = Vec::new();
    let mut words = shell_words(&line.replace("$SCORER_TOKEN", TOKEN))
        .into_iter()
        .skip(1);
    while let Some(word) = words.next() {
        match word.as_str() {
            "-s" => {}
            "-X" => method = words.next().unwrap(),
            "-H" => {
                let header = words.next().unwrap();
                let (name, value) = header.split_once(':').unwrap();
                if !name.eq_ignore_ascii_case("content-type") {
                    headers.push((name.to_owned(), value.trim().to_owned()));
                }
            }
            "-d" => body = words.next(),
            "|" => break,
            other => url = Some(other.to_owned()),
        }
    }
    Curl {
        method,
        url: url.expect("a URL"),
        body,
        headers,
    }
}

/// Words as a POSIX shell splits them, for the quoting the README uses:
/// single or double quotes, a `\"` inside single ones left as the shell
/// leaves it.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in line.chars() {
        match c {
            '\'' | '"' if quote.is_none() => {
                quote = Some(c);
                any = true;
            }
            c if quote == Some(c) => quote = None,
            ' ' if quote.is_none() => {
                if any || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                any = false;
            }
            c => word.push(c),
        }
    }
    if any || !word.is_empty() {
        words.push(word);
    }
    words
}

/// The `serve` example: every `curl` line, in order, against a fresh
/// server listening where the README says (its ports swapped for free
/// ones), answers 2xx with the fields the README shows; the question it
/// asks names the flow's commit as the bench reads it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_serve_example_runs_as_written() {
    let block_at = README
        .find("A test runs these lines")
        .expect("the serve example");
    let block = &README[block_at..];
    let block = &block[block.find("```sh\n").unwrap() + 6..];
    let block = &block[..block.find("```").unwrap()];
    assert!(block.contains("localhost:8722") && block.contains("localhost:8723"));
    // The ports the README uses are the CLI's defaults.
    let cli = include_str!("../../cli/src/bench/serve.rs");
    for port in ["127.0.0.1:8722", "127.0.0.1:8723"] {
        assert!(
            cli.contains(&format!("default_value = \"{port}\"")),
            "{port}"
        );
    }

    let (a, s) = crate::testing::served(MAX_LIVE_RUNS, None, TOKEN).await;

    let mut ran = 0;
    for line in block.lines() {
        if !line.starts_with("curl ") {
            continue;
        }
        let Curl {
            method,
            url,
            body,
            headers,
        } = curl(line);
        let url = url
            .replace("localhost:8722", a.trim_start_matches("http://"))
            .replace("localhost:8723", s.trim_start_matches("http://"));
        let url = if url.starts_with("http") {
            url
        } else {
            format!("http://{url}")
        };
        let headers: Vec<(&str, &str)> = headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        let reply = http_with(
            &method,
            &url,
            body.map(|b| ("application/json", b)),
            &headers,
        )
        .await;
        assert!(
            (200..300).contains(&reply.status),
            "{line}: {} {}",
            reply.status,
            reply.body
        );
        ran += 1;
        if line.contains("POST localhost:8722/runs ") {
            // The answer the README shows has the fields the server sends.
            let sent: serde_json::Value = serde_json::from_str(&reply.body).unwrap();
            for key in sent.as_object().unwrap().keys() {
                assert!(
                    block.contains(&format!("\"{key}\"")),
                    "the README's answer lacks {key:?}"
                );
            }
        }
    }
    assert!(ran >= 6, "{ran} curl lines ran");
    let bearer = format!("Bearer {TOKEN}");
    let report = http_with(
        "GET",
        &format!("{s}/runs/r1"),
        None,
        &[("Authorization", &bearer)],
    )
    .await;
    let report: serde_json::Value = serde_json::from_str(&report.body).unwrap();
    assert_eq!(report["answers"][0]["about_commit"], true, "{report}");
}
