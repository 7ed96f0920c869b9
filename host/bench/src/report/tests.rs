#![allow(clippy::unwrap_used, clippy::panic)]

use super::*;
use crate::catalog::Catalog;
use crate::flow::BillingChange;
use crate::score::{ChangeSeen, Claim};
use crate::testing::escaped;

fn verdict(ideal: bool, verified: bool, prompts: u32) -> Verdict {
    Verdict {
        committed: verified,
        commits: u32::from(verified),
        commits_without_yes: 0,
        unwanted: Vec::new(),
        traps: Vec::new(),
        entered_password: false,
        confirmation_shown: verified,
        claim: if verified {
            Claim::Success
        } else {
            Claim::Failure
        },
        false_success_claim: false,
        verified_success: verified,
        ideal,
        prompts: Some(prompts),
        ideal_yeses: 1,
        site_ms: 1000,
    }
}

/// A record per flow of the catalog: development runs all ideal with one
/// prompt, held-out runs half failed (taking the offer) with two.
fn records() -> Vec<RunRecord> {
    let catalog = Catalog::load().unwrap();
    catalog
        .flows()
        .iter()
        .enumerate()
        .map(|(i, flow)| {
            let meta = FlowMeta::from(flow);
            let cancels = flow.truth.ending == Ending::Commit;
            let mut v = verdict(true, cancels && !flow.truth.confirmation.is_empty(), 1);
            if flow.split == Split::HeldOut && i % 2 == 0 {
                v = verdict(false, false, 2);
                v.unwanted.push(ChangeSeen {
                    change: BillingChange::AcceptOffer,
                    request: "POST site /offer/accept".into(),
                    at_ms: 10,
                });
            }
            RunRecord {
                flow: meta,
                pass: PassKind::YesToAll,
                verdict: v,
                tokens: Some(1000),
                cost_usd: Some(0.01),
                wall_ms: Some(2000),
                driver: "test".into(),
                counts: AgentCounts::default(),
                run: None,
            }
        })
        .collect()
}

#[test]
fn the_scorecard_sums_each_split_and_the_whole() {
    let records = records();
    let card = scorecard(&records);
    assert_eq!(
        card.development.flows + card.held_out.flows,
        card.overall.flows
    );
    assert_eq!(card.overall.runs, records.len());
    assert!((card.development.ideal_pct - 100.0).abs() < f64::EPSILON);
    assert!(card.held_out.ideal_pct < 100.0);
    assert_eq!(card.development.unwanted_changes, 0);
    assert!(card.held_out.unwanted_changes > 0);
    assert_eq!(card.overall.tokens, 1000 * records.len() as u64);
    assert_eq!(card.development.prompts_per_cancellation, Some(1.0));
    assert_eq!(card.development.exactly_one_prompt_pct, Some(100.0));
    for trick in Trick::ALL {
        assert!(
            card.ideal_pct_by_trick.contains_key(trick.label()),
            "{trick:?}"
        );
    }
    assert!(card.ideal_pct_by_language.len() >= 12);
    // Both groups are there: the bundled services and those no plugin knows.
    let groups: Vec<&str> = card
        .ideal_pct_by_plugin
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(groups, vec![NO_PLUGIN, WITH_PLUGIN]);
    let rows = card.rows();
    assert_eq!(rows[0], vec!["", "development", "held-out", "overall"]);
    assert!(rows.iter().all(|r| r.len() == 4));
    assert!(rows.iter().any(|r| r[0] == "commits without a yes"));
}

#[test]
fn an_empty_scorecard_has_no_nans() {
    let card = scorecard(&[]);
    assert_eq!(card.overall.ideal_pct, 0.0);
    assert_eq!(card.overall.prompts_per_cancellation, None);
    let text = html(&[]);
    assert!(!text.contains("NaN"));
}

#[test]
fn the_report_is_self_contained_with_a_bar_per_trick_and_language() {
    let records = records();
    let page = html(&records);
    assert!(!page.contains("<script") && !page.contains("http://") && !page.contains("https://"));
    assert!(!page.contains("@import") && !page.contains("url("));
    let card = scorecard(&records);
    for (chart, bars) in [
        ("trick", &card.ideal_pct_by_trick),
        ("language", &card.ideal_pct_by_language),
        ("plugin", &card.ideal_pct_by_plugin),
    ] {
        assert!(page.contains(&format!("data-chart=\"{chart}\"")));
        for key in bars.keys() {
            assert!(
                page.contains(&format!("<rect data-key=\"{}\"", escaped(key))),
                "{chart}: {key}"
            );
        }
    }
    assert!(page.contains("class=\"scorecard\""));
    assert!(page.contains(&format!("data-flow=\"{}\"", records[0].flow.id)));
}

/// A flow, a language and an agent whose names read as markup are shown
/// in the report as text: in the tables, the charts' labels, their
/// `data-key`s and their titles.
#[test]
fn names_that_read_as_markup_are_escaped_in_the_report() {
    use crate::render::tests::{HOSTILE, only_escaped};
    let mut records = records();
    for r in records.iter_mut().take(3) {
        r.flow.id.push_str(HOSTILE);
        r.flow.service.push_str(HOSTILE);
        r.flow.language.push_str(HOSTILE);
        r.driver.push_str(HOSTILE);
    }
    let page = html(&records);
    // Two agents now: the side-by-side table is drawn too.
    assert!(page.contains("class=\"agents\""));
    only_escaped("the report", &page, true);
    assert!(page.contains(&format!(
        "<rect data-key=\"{}\"",
        escaped(&records[0].flow.language)
    )));
}

/// The report, opened in the real Chromium: its charts are there as
/// elements a browser built (skipped where Chromium is not installed).
#[test]
fn chromium_finds_the_charts() {
    let chromium = std::path::Path::new("/usr/bin/chromium");
    if !chromium.exists() {
        return;
    }
    // A fresh folder: one named by the process id could be an earlier
    // process's, its browser profile still locked.
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let file = dir.join("report.html");
    std::fs::write(&file, html(&records())).unwrap();
    let out = std::process::Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu"])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", file.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(
        dom.contains("data-chart=\"trick\""),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dom.contains("data-chart=\"language\""));
    assert!(dom.contains("<rect data-key=\"planted-instruction\""));
    assert!(dom.contains("<rect data-key=\"ja\""));
}
