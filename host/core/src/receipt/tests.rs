#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;

use super::html::html;
use super::markdown::{self, markdown};
use super::*;
use crate::audit::{Finding, Kind, ScreenVisit};
use crate::record::RunRecord;

#[test]
fn a_receipt_says_what_the_record_says() {
    let root = tempfile::tempdir().unwrap();
    let mut record = RunRecord::create(root.path(), "netflix").unwrap();
    let shot = record.next_screenshot();
    std::fs::write(&shot, b"png").unwrap();
    let events = [
        json!({"type": "run_started", "service": "netflix", "display_name": "Netflix",
               "model": "claude-sonnet-4 (anthropic)", "start_url": "https://www.netflix.com/account",
               "plugin": {"id": "netflix", "version": "0.2.0", "sha256": "ab12"}}),
        json!({"type": "approval_asked", "turn": 4, "request": {
               "reason": "the plan marks this step irreversible", "action": "browser_click",
               "target": "button \"Finish Cancellation\"", "shows": "Finish Cancellation",
               "url": "https://www.netflix.com/cancelplan", "screenshot": shot}}),
        json!({"type": "approval_answered", "turn": 4, "answer": {"answer": "approved"}}),
        json!({"type": "tool_call", "turn": 4, "tool": "browser_click",
               "target": "button \"Finish Cancellation\""}),
        json!({"type": "tool_result", "turn": 4, "ok": true, "url": "https://www.netflix.com/cancelplan/done"}),
        json!({"type": "finished", "result": {"success": true, "verified": true, "turns": 6,
               "usage": {"input": 9000, "output": 400}, "cost_usd": 0.033}}),
    ];
    for event in &events {
        record.append(event).unwrap();
    }
    let head = record.head().to_owned();
    let receipt = Receipt::from_record(record.dir(), Confirmation::default()).unwrap();
    assert_eq!(receipt.display_name, "Netflix");
    assert_eq!(receipt.plugin_sha256, "ab12");
    assert_eq!(
        (receipt.turns, receipt.input_tokens, receipt.output_tokens),
        (6, 9000, 400)
    );
    assert_eq!(receipt.fingerprint, head);
    assert_eq!(receipt.approvals.len(), 1);
    let approval = &receipt.approvals[0];
    assert_eq!(approval.answer, "approved");
    assert_eq!(approval.screenshot.as_deref(), Some(shot.as_path()));
    assert!(!approval.answered_at.is_empty());
    // The audit read the same record: one screen before the final step.
    assert!(receipt.audit.committed);
    assert_eq!(receipt.audit.screens.len(), 1);
    assert!(receipt.audit.is_clean());
}

fn receipt(text: &str) -> Receipt {
    Receipt {
        run_id: "20261123T101500Z-netflix-1a2b3c4d".into(),
        service: "netflix".into(),
        display_name: "Netflix".into(),
        finished: chrono::Utc::now(),
        confirmation: Confirmation {
            url: "https://www.netflix.com/cancelplan/confirm".into(),
            title: "Cancelled".into(),
            text: text.into(),
            screenshot: None,
        },
        approvals: vec![Approval {
            action: "browser_click".into(),
            target: Some("button \"Finish <Cancellation>\"".into()),
            answer: "approved".into(),
            ..Approval::default()
        }],
        plugin_id: "netflix".into(),
        plugin_version: "0.2.0".into(),
        plugin_sha256: "ab12".into(),
        model: "offline policy (no model)".into(),
        turns: 5,
        steps: Steps {
            plan: 4,
            remembered: 0,
            model: 1,
        },
        input_tokens: 0,
        output_tokens: 0,
        cost_usd: Some(0.0),
        fingerprint: "f".repeat(64),
        lines: 40,
        audit: Audit::default(),
        record: String::new(),
        signed: None,
    }
}

fn finding(kind: Kind, evidence: &str) -> Finding {
    Finding {
        kind,
        evidence: evidence.into(),
        detail: String::new(),
        screen: "Before you go".into(),
        url: "https://www.netflix.com/cancelplan".into(),
        rules: kind.rules().to_vec(),
    }
}

#[test]
fn page_text_cannot_script_the_receipt() {
    let mut r = receipt("<script>alert(1)</script><img src=https://evil.example/x>");
    r.audit.findings = vec![finding(Kind::Confirmshaming, "link \"<script>x</script>\"")];
    let html = html(&r);
    assert!(!html.contains("<script>"));
    assert!(!html.contains("<img src=https"));
    assert!(html.contains("&lt;script&gt;"));
    assert!(html.contains("Finish &lt;Cancellation&gt;"));
    assert!(html.contains("default-src 'none'"));
}

#[test]
fn both_forms_name_the_run_and_its_fingerprint() {
    let r = receipt("Your membership ends on December 16.");
    for text in [html(&r), markdown(&r)] {
        assert!(text.contains(&r.run_id));
        assert!(text.contains(&r.fingerprint));
        assert!(text.contains("Your membership ends on December 16."));
        assert!(text.contains("$0.0000"));
        assert!(text.contains("4 by the plugin") && text.contains("plan, 1 by the model"));
    }
}

#[test]
fn both_forms_carry_the_audit_or_say_nothing_was_in_the_way() {
    let mut r = receipt("Cancelled.");
    r.audit.screens = vec![
        ScreenVisit {
            name: "Account".into(),
            url: "https://www.netflix.com/account".into(),
        },
        ScreenVisit {
            name: "Finish your cancellation".into(),
            url: "https://www.netflix.com/cancelplan".into(),
        },
    ];
    for text in [html(&r), markdown(&r)] {
        assert!(text.contains("What stood in the way"), "{text}");
        assert!(text.contains("2 screen(s) before the final step"), "{text}");
        assert!(text.contains("Nothing in the way."), "{text}");
        assert!(text.contains("not legal advice"), "{text}");
    }
    r.audit.findings = vec![
        finding(Kind::SaveOffer, "button \"Accept Offer\""),
        finding(
            Kind::Confirmshaming,
            "link \"No, I don't want to save money\"",
        ),
    ];
    let (page, note) = (html(&r), markdown(&r));
    for text in [&page, &note] {
        assert!(!text.contains("Nothing in the way."), "{text}");
        assert!(text.contains("Save offer on the way out"), "{text}");
        assert!(text.contains("Confirmshaming"), "{text}");
        // Either may write the apostrophe as an entity or escaped.
        assert!(
            text.contains("No, I don") && text.contains("t want to save money"),
            "{text}"
        );
        assert!(text.contains("California Automatic Renewal Law"), "{text}");
        assert!(text.contains("UK Digital Markets, Competition and Consumers Act 2024"));
    }
    assert!(page.contains("data-kind=\"save-offer\""));
    assert!(page.contains("data-kind=\"confirmshaming\""));
}

/// Whether every Markdown-special character of `line` has a backslash.
fn all_escaped(line: &str) -> bool {
    let chars: Vec<char> = line.chars().collect();
    chars.iter().enumerate().all(|(i, c)| {
        !matches!(c, '[' | ']' | '<' | '>' | '*' | '_' | '`' | '!' | '|' | '#')
            || (i > 0 && chars[i - 1] == '\\')
    })
}

#[test]
fn a_hostile_page_cannot_shape_the_markdown_receipt() {
    let title = "Done](https://evil.example) <img src=x onerror=alert(1)> **free** `x`\n# Refund\n- [ ] claim it | ~~no~~ www.evil.example";
    let text = "Cancelled.\n# You won\n- [prize](javascript:alert(1))\n```\n<script>x</script>\n````\n    code";
    let mut r = receipt(text);
    r.confirmation.title = title.into();
    r.confirmation.url = "https://site.example/done?`x`](https://evil.example)".into();
    r.approvals[0].shows = Some("Finish\n## Now".into());
    r.audit.screens = vec![ScreenVisit {
        name: "Offer\n1. step".into(),
        url: "https://site.example/offer".into(),
    }];
    r.audit.findings = vec![finding(Kind::Confirmshaming, "link \"No ![x](y) <b>\"")];
    let md = markdown(&r);

    // Outside the fenced block every line is one the receipt itself starts.
    let fence = "`````";
    let (before, rest) = md
        .split_once(&format!("{fence}text\n"))
        .expect("a fence longer than the text's");
    let (inside, after) = rest
        .split_once(&format!("\n{fence}\n"))
        .expect("the block closes once");
    assert_eq!(inside, text);
    assert!(!after.contains(fence), "{md}");
    let ours = [
        "# ",
        "## ",
        "- ",
        "  - ",
        "_These",
        "The page said",
        "Full receipt",
        "1 screen(s)",
        "Not signed",
    ];
    for line in before
        .lines()
        .chain(after.lines())
        .filter(|l| !l.is_empty())
    {
        assert!(
            ours.iter().any(|p| line.starts_with(p)),
            "a line the page started: {line:?}\n{md}"
        );
    }
    assert_eq!(
        before.lines().filter(|l| l.starts_with('#')).count(),
        2,
        "{md}"
    );

    // Page-supplied prose: every special character escaped, no autolink.
    let title_line = before
        .lines()
        .find(|l| l.starts_with("- Page title: "))
        .unwrap();
    let value = &title_line["- Page title: ".len()..];
    assert!(all_escaped(value), "{value}");
    assert!(
        value.contains("https\\://evil.example") && value.contains("www\\.evil"),
        "{value}"
    );
    let finding_line = before
        .lines()
        .find(|l| l.contains("Confirmshaming"))
        .unwrap();
    assert!(
        finding_line.contains("No \\!\\[x\\](y) \\<b\\>"),
        "{finding_line}"
    );

    // URLs are code spans whose fence outlasts any backticks inside.
    let url_line = before
        .lines()
        .find(|l| l.starts_with("- Confirmation page: "))
        .unwrap();
    assert!(
        url_line.ends_with("``https://site.example/done?`x`](https://evil.example)``"),
        "{url_line}"
    );
    assert!(md.contains("showing “Finish \\#\\# Now”"), "{md}");
}

#[test]
fn code_spans_and_blocks_outlast_backticks() {
    let cases = [
        ("plain", "`plain`"),
        ("a`b", "``a`b``"),
        ("`edge`", "`` `edge` ``"),
        ("", "` `"),
        ("two\nlines", "`two lines`"),
    ];
    for (value, expected) in cases {
        assert_eq!(markdown::code(value), expected, "{value:?}");
    }
    assert_eq!(markdown::block("a\nb"), "```text\na\nb\n```");
    assert_eq!(markdown::block("x ```` y"), "`````text\nx ```` y\n`````");
}

/// A finished record with a receipt's worth of events, and its receipt.
fn recorded(root: &std::path::Path) -> (std::path::PathBuf, Receipt) {
    let mut record = RunRecord::create(root, "practice").unwrap();
    for event in [
        json!({"type": "run_started", "service": "practice", "display_name": "Practice",
               "plugin": {"id": "practice", "version": "0.1.0", "sha256": "ab12"}}),
        json!({"type": "finished", "result": {"success": true, "verified": true, "turns": 2}}),
    ] {
        record.append(&event).unwrap();
    }
    let dir = record.dir().to_path_buf();
    let receipt = Receipt::from_record(&dir, Confirmation::default()).unwrap();
    (dir, receipt)
}

#[test]
fn a_signed_receipt_file_proves_itself_and_every_changed_byte_is_caught() {
    let root = tempfile::tempdir().unwrap();
    let keys = crate::signing::Keyring::open_or_create(&root.path().join("config")).unwrap();
    let (dir, mut made) = recorded(root.path());
    made.sign(&keys.current);
    write(&dir, &made, Some(&keys.current)).unwrap();
    for name in [RECEIPT_HTML, RECEIPT_MD] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let sealed = seal::open(&bytes).unwrap();
        assert_eq!(sealed.signed.statement.head, made.fingerprint, "{name}");
        assert_eq!(sealed.signed.statement.key, keys.current.public());
        assert_eq!(sealed.record.len() as u64, made.lines);
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(
            text.contains(&made.signed.as_ref().unwrap().signature()),
            "{name} shows its signature"
        );
        for at in 0..bytes.len() {
            let mut changed = bytes.clone();
            changed[at] ^= 0x01;
            assert!(
                seal::open(&changed).is_err(),
                "{name}: byte {at} changed and still opens"
            );
        }
    }
}

#[test]
fn a_receipt_without_a_key_says_it_is_unsigned_and_carries_no_seal() {
    let root = tempfile::tempdir().unwrap();
    let (dir, made) = recorded(root.path());
    write(&dir, &made, None).unwrap();
    let html = std::fs::read(dir.join(RECEIPT_HTML)).unwrap();
    assert_eq!(seal::open(&html).unwrap_err(), seal::SealFault::NoSeal);
    assert!(String::from_utf8(html).unwrap().contains("Not signed"));
}

#[test]
fn a_pdf_carries_its_seal_before_startxref() {
    let root = tempfile::tempdir().unwrap();
    let keys = crate::signing::Keyring::open_or_create(&root.path().join("config")).unwrap();
    let (dir, mut made) = recorded(root.path());
    made.sign(&keys.current);
    let pdf = dir.join(RECEIPT_PDF);
    let body =
        b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\nxref\n0 1\ntrailer\n<</Size 1>>\nstartxref\n9\n%%EOF\n";
    std::fs::write(&pdf, body).unwrap();
    made.seal_pdf(&pdf, Some(&keys.current)).unwrap();
    let bytes = std::fs::read(&pdf).unwrap();
    assert!(
        bytes.ends_with(b"\nstartxref\n9\n%%EOF\n"),
        "the PDF still ends as a PDF ends"
    );
    let sealed = seal::open(&bytes).unwrap();
    assert_eq!(sealed.signed.statement.run, made.run_id);
    for at in 0..bytes.len() {
        let mut changed = bytes.clone();
        changed[at] ^= 0x01;
        assert!(
            seal::open(&changed).is_err(),
            "byte {at} changed and still opens"
        );
    }
}

#[test]
fn a_seal_moved_to_another_receipt_does_not_open_it() {
    let root = tempfile::tempdir().unwrap();
    let keys = crate::signing::Keyring::open_or_create(&root.path().join("config")).unwrap();
    let (one, mut first) = recorded(root.path());
    let (two, mut second) = recorded(root.path());
    first.sign(&keys.current);
    second.sign(&keys.current);
    write(&one, &first, Some(&keys.current)).unwrap();
    write(&two, &second, Some(&keys.current)).unwrap();
    let a = String::from_utf8(std::fs::read(one.join(RECEIPT_HTML)).unwrap()).unwrap();
    let b = String::from_utf8(std::fs::read(two.join(RECEIPT_HTML)).unwrap()).unwrap();
    let seal_of = |t: &str| t.lines().last().unwrap().to_owned();
    let swapped = a.replace(&seal_of(&a), &seal_of(&b));
    assert_eq!(
        seal::open(swapped.as_bytes()).unwrap_err(),
        seal::SealFault::ContentChanged
    );
}
