#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;

use super::*;
use crate::agent::toolset::compact::{CompactToolset, SUPERSEDED};
use crate::agent::toolset::full::FullToolset;

fn call(n: usize, name: &str, args: serde_json::Value) -> Message {
    Message::Assistant {
        text: None,
        tool_calls: vec![ToolCall {
            id: format!("c{n}"),
            name: name.into(),
            arguments: Ok(args),
        }],
    }
}

fn result(n: usize, content: String, is_error: bool) -> Message {
    Message::ToolResult {
        call_id: format!("c{n}"),
        content,
        is_error,
    }
}

/// A compact-toolset snapshot of about `bytes` bytes.
fn snapshot(id: usize, bytes: usize) -> String {
    // Field order as the toolset writes it: the id first.
    format!(
        "{{\"snapshot_id\":\"s{id}\",\"page\":{{\"url\":\"http://x/\",\"title\":\"T\"}},\"elements\":[{{\"ref\":\"@e0\",\"name\":\"{}\"}}]}}",
        "x".repeat(bytes)
    )
}

fn ok(id: usize, bytes: usize) -> String {
    format!(
        "{{\"error\":null,\"success\":true,\"snapshot\":{}}}",
        snapshot(id, bytes)
    )
}

/// The goal and `turns` clicks, each answered with a snapshot.
fn conversation(turns: usize, bytes: usize) -> Vec<Message> {
    let mut history = vec![Message::User(format!(
        "Goal: cancel\n\nCurrent page:\n{}",
        snapshot(0, bytes)
    ))];
    for n in 1..=turns {
        history.push(call(n, "browser_click", json!({"ref": format!("@e{n}")})));
        history.push(result(n, ok(n, bytes), false));
    }
    history
}

#[test]
fn compact_sends_a_line_for_each_turn_then_the_page() {
    let history = conversation(3, 500);
    let sent = for_request(&history, &CompactToolset::new(false));
    let texts: Vec<&str> = sent.iter().filter_map(text_of).collect();
    assert_eq!(sent.len(), 2, "{sent:?}");
    // The goal, its page a stub, then a line for each turn.
    assert_eq!(
        texts[0],
        format!(
            "Goal: cancel\n\nCurrent page:\n\"s0 {SUPERSEDED}\"\n\nPrevious actions:\n\
             - browser_click(@e1): success\n\
             - browser_click(@e2): success\n\
             - browser_click(@e3): success"
        )
    );
    // Then the latest page, whole, on its own.
    assert_eq!(texts[1], format!("{PAGE_NOW}\n{}", snapshot(3, 500)));
}

#[test]
fn the_last_result_is_quoted_when_it_says_more_than_success() {
    // A refusal's message (a person's words) is what the model acts on
    // next: it is quoted whole, its page a stub; older ones are a line.
    let mut history = conversation(2, 100);
    let refusal = |n: usize| {
        format!(
            "{{\"success\":false,\"error\":\"human_rejected\",\"message\":\"User feedback: not yet\",\"snapshot\":{}}}",
            snapshot(n, 100)
        )
    };
    history.push(call(3, "browser_click", json!({"ref": "@e4"})));
    history.push(result(3, refusal(3), true));
    history.push(Message::User("Call a tool or complete_task.".into()));
    let sent = for_request(&history, &CompactToolset::new(false));
    let texts: Vec<&str> = sent.iter().filter_map(text_of).collect();
    assert!(
        texts[0].ends_with(&format!(
            "- browser_click(@e2): success\n\
             - browser_click(@e4): failed (human_rejected): \
             {{\"success\":false,\"error\":\"human_rejected\",\"message\":\"User feedback: not yet\",\"snapshot\":\"s3 {SUPERSEDED}\"}}"
        )),
        "{}",
        texts[0]
    );
    // What the host said after the result, then the page.
    assert_eq!(texts[1], "Call a tool or complete_task.");
    assert!(texts[2].starts_with(PAGE_NOW), "{}", texts[2]);
    // A success with a note after it (a dialog it opened) is quoted too.
    let mut noted = conversation(1, 100);
    noted.push(call(2, "browser_click", json!({"ref": "@e1"})));
    noted.push(result(
        2,
        format!(
            "{}\nA confirm dialog is open: \"Sure?\". Nothing else works until it is answered.",
            ok(2, 100)
        ),
        false,
    ));
    let sent = for_request(&noted, &CompactToolset::new(false));
    let head = text_of(&sent[0]).unwrap();
    assert!(
        head.contains("- browser_click(@e1): success: {") && head.contains("dialog is open"),
        "{head}"
    );
    // A last reply with no call stays whole, with the host's answer to it.
    let mut chatty = conversation(1, 100);
    chatty.push(Message::Assistant {
        text: Some("{\"name\": \"browser_click\", \"arguments\": {".into()),
        tool_calls: vec![],
    });
    chatty.push(Message::User("Your reply was meant as a tool call".into()));
    let sent = for_request(&chatty, &CompactToolset::new(false));
    assert!(
        text_of(&sent[0])
            .unwrap()
            .ends_with("- browser_click(@e1): success"),
        "{sent:?}"
    );
    assert!(
        matches!(&sent[1], Message::Assistant { text: Some(t), .. } if t.contains("arguments"))
    );
    assert_eq!(
        text_of(&sent[2]),
        Some("Your reply was meant as a tool call")
    );
    // Once another turn follows, the refusal is a line like any other.
    history.push(call(4, "browser_click", json!({"ref": "@e1"})));
    history.push(result(4, ok(4, 100), false));
    let sent = for_request(&history, &CompactToolset::new(false));
    let head = text_of(&sent[0]).unwrap();
    assert!(
        head.ends_with(
            "- browser_click(@e4): failed (human_rejected)\n- browser_click(@e1): success"
        ),
        "{head}"
    );
}

#[test]
fn a_past_turn_costs_a_line_on_later_requests() {
    // Whole, a turn is its call and its result (some 340 characters on
    // the wire, resent on every later request); summed up, one line.
    let toolset = CompactToolset::new(false);
    let size = |turns| {
        tokens(&for_request(&conversation(turns, 500), &toolset)) * BYTES_PER_TEN_TOKENS / 10
    };
    for turns in 2..8 {
        let grew = size(turns + 1).saturating_sub(size(turns));
        assert!(grew <= 40, "turn {turns}: {grew} bytes more");
    }
}

#[test]
fn the_full_profile_resends_everything_under_the_budget() {
    let history = conversation(3, 500);
    assert_eq!(for_request(&history, &FullToolset::new(&[])), history);
}

#[test]
fn past_the_budget_the_goal_a_summary_and_ten_turns_remain() {
    // Raw snapshots (full toolset) of ~6,000 bytes: far over 10,000 tokens.
    let mut history = vec![Message::User("Goal: cancel".into())];
    let big = "y".repeat(6_000);
    for n in 1..=14 {
        let (name, args, content, is_error) = match n {
            2 => (
                "browser_type",
                json!({"target": "e8", "text": "test"}),
                big.clone(),
                false,
            ),
            3 => (
                "browser_click",
                json!({"target": "e12"}),
                format!(
                    "{}\n{big}",
                    json!({"error": true, "code": "element_disabled", "message": "no"})
                ),
                true,
            ),
            _ => (
                "browser_click",
                json!({"target": format!("e{n}")}),
                big.clone(),
                false,
            ),
        };
        history.push(call(n, name, args));
        history.push(result(n, content, is_error));
    }
    let sent = for_request(&history, &FullToolset::new(&[]));
    assert_eq!(sent.len(), 1 + 2 * KEPT_TURNS);
    let Message::User(head) = &sent[0] else {
        panic!("{:?}", sent[0]);
    };
    assert_eq!(
        head,
        "Goal: cancel\n\nPrevious actions:\n\
         - browser_click(e1): success\n\
         - browser_type(e8, \"test\"): success\n\
         - browser_click(e12): failed (element_disabled)\n\
         - browser_click(e4): success"
    );
    assert_eq!(sent[1..], history[history.len() - 2 * KEPT_TURNS..]);
    assert!(matches!(sent[1], Message::Assistant { .. }));
}

#[test]
fn compact_histories_stay_small_for_long_runs() {
    // 40 turns of 5 KB snapshots: shrinking alone keeps it under budget
    // for a while; past it, the summary takes over.
    let history = conversation(40, 5_000);
    let sent = for_request(&history, &CompactToolset::new(false));
    assert!(tokens(&sent) <= HISTORY_TOKEN_BUDGET, "{}", tokens(&sent));
    let short = conversation(5, 5_000);
    let sent = for_request(&short, &CompactToolset::new(false));
    assert_eq!(sent.len(), 2, "the goal with its summary, the page");
}

#[test]
fn summary_lines_table() {
    for (message, want) in [
        (
            vec![
                call(1, "browser_fill", json!({"ref": "@e8", "value": "test"})),
                result(1, ok(1, 10), false),
            ],
            "- browser_fill(@e8, \"test\"): success",
        ),
        (
            vec![
                call(1, "browser_click", json!({"ref": "@e12"})),
                result(
                    1,
                    "{\"error\":\"element_disabled\",\"success\":false}".into(),
                    true,
                ),
            ],
            "- browser_click(@e12): failed (element_disabled)",
        ),
        (
            vec![
                call(
                    1,
                    "request_human_approval",
                    json!({"action": "finish", "reason": "r"}),
                ),
                result(
                    1,
                    "{\"approved\":false,\"message\":\"User feedback: no\"}".into(),
                    true,
                ),
            ],
            "- request_human_approval(\"finish\"): failed (human_rejected)",
        ),
        (
            vec![
                call(1, "browser_scroll", json!({"direction": "down"})),
                result(1, "plain text".into(), true),
            ],
            "- browser_scroll(down): failed",
        ),
        (
            vec![
                Message::Assistant {
                    text: Some("hm".into()),
                    tool_calls: vec![],
                },
                Message::User("Call a tool or complete_task.".into()),
            ],
            "- (no tool call) (hm)",
        ),
        (
            vec![
                Message::Assistant {
                    text: Some("Replaying step 1: on /account: click link \"Cancel\"".into()),
                    tool_calls: vec![ToolCall {
                        id: "c1".into(),
                        name: "browser_click".into(),
                        arguments: Ok(json!({"ref": "@e2"})),
                    }],
                },
                result(1, ok(1, 10), false),
            ],
            "- browser_click(@e2) (Replaying step 1: on /account: click link \"Cancel\"): success",
        ),
        (
            vec![Message::User(
                "The host took 2 step(s) for you, from what it knew of this service (do not repeat them):\n\
                 1. browser_click button \"Continue to Cancel\"\n\
                 2. browser_select combobox \"Reason\" = \"Other\"\n\
                 It stopped: no button \"Finish\"\nGo on from this page.\n\nCurrent page:\n\"s3 (old)\""
                    .into(),
            )],
            "- (the host) browser_click button \"Continue to Cancel\"\n\
             - (the host) browser_select combobox \"Reason\" = \"Other\"",
        ),
    ] {
        assert_eq!(summarize(&message), format!("Previous actions:\n{want}"));
    }
}

#[test]
fn estimates_err_on_the_high_side() {
    assert_eq!(estimate_tokens(""), 0);
    assert_eq!(estimate_tokens("abcde"), 2);
    assert_eq!(estimate_tokens("abcdef"), 3);
}

fn image(data: &str) -> Message {
    Message::Image {
        media_type: "image/png".into(),
        data_base64: data.into(),
    }
}

fn images_in(messages: &[Message]) -> Vec<&str> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Image { data_base64, .. } => Some(data_base64.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn only_the_latest_image_is_sent() {
    let mut history = conversation(0, 100);
    history.push(image("first"));
    for n in 1..=3 {
        history.push(call(n, "browser_click", json!({"ref": "@e1"})));
        history.push(result(n, ok(n, 100), false));
        history.push(image(&format!("shot{n}")));
    }
    let sent = for_request(&history, &CompactToolset::new(true));
    assert_eq!(images_in(&sent), ["shot3"]);
    // The picture, then the page it shows.
    assert!(matches!(sent[sent.len() - 2], Message::Image { .. }));
    assert!(matches!(&sent[sent.len() - 1], Message::User(t) if t.starts_with(PAGE_NOW)));
    // The goal with its summary, the picture, the page.
    assert_eq!(sent.len(), 3);
    // A refused call takes no new picture: the latest one stays.
    history.push(call(4, "browser_click", json!({"ref": "@e99"})));
    history.push(result(4, ok(3, 100), true));
    let sent = for_request(&history, &CompactToolset::new(true));
    assert_eq!(images_in(&sent), ["shot3"]);
}

#[test]
fn images_are_neither_counted_nor_summarized() {
    let huge = "A".repeat(1_000_000);
    assert_eq!(tokens(&[image(&huge)]), 0);
    let dropped = [
        call(1, "browser_click", json!({"ref": "@e1"})),
        image("between"),
        result(1, ok(1, 10), false),
        image("after"),
    ];
    assert_eq!(
        summarize(&dropped),
        "Previous actions:\n- browser_click(@e1): success"
    );
    // Past the budget, the goal (followed by its own picture) still takes
    // the summary, and the latest picture survives the cut.
    let mut history = vec![Message::User("Goal: cancel".into()), image("goal-shot")];
    let big = "y".repeat(6_000);
    for n in 1..=14 {
        history.push(call(n, "browser_click", json!({"target": format!("e{n}")})));
        history.push(result(n, big.clone(), false));
        history.push(image(&format!("shot{n}")));
    }
    let sent = for_request(&history, &FullToolset::new(&[]));
    let Message::User(head) = &sent[0] else {
        panic!("{:?}", sent[0]);
    };
    assert!(
        head.starts_with("Goal: cancel\n\nPrevious actions:\n- browser_click(e1): success"),
        "{head}"
    );
    assert_eq!(images_in(&sent), ["shot14"]);
    assert!(matches!(sent[1], Message::Assistant { .. }));
}
