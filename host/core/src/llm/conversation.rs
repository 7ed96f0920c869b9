//! The neutral history reshaped into what both APIs require before either
//! format is written: turns alternate, every tool call is answered in the
//! turn right after it, and every tool result answers a call.
//!
//! The agent runs only the first of several calls, may append a plain user
//! line after a tool result ("Call a tool or complete_task"), and may lose a
//! result on an error path. Each of those would get a 400 from both APIs if
//! sent as is, so the gaps are filled here rather than in the agent.

use std::borrow::Cow;
use std::collections::HashSet;

use super::{Message, ToolCall};

/// Content of the result supplied for a call the agent never answered.
pub const NOT_EXECUTED: &str = "This tool call was not executed.";

/// Stands in for an empty tool output, which an API may refuse.
const EMPTY_RESULT: &str = "(no output)";

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Turn<'a> {
    /// Results come first: Anthropic requires `tool_result` blocks to lead
    /// the user turn, and OpenAI requires `tool` messages to follow the
    /// assistant directly. Images come next, so the picture of the page sits
    /// right by the result that describes it (and Anthropic advises images
    /// before the text that refers to them).
    User {
        results: Vec<ToolReply<'a>>,
        images: Vec<ImageRef<'a>>,
        texts: Vec<Cow<'a, str>>,
    },
    Assistant {
        text: Option<Cow<'a, str>>,
        calls: Vec<&'a ToolCall>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolReply<'a> {
    pub call_id: &'a str,
    pub content: Cow<'a, str>,
    pub is_error: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ImageRef<'a> {
    pub media_type: &'a str,
    pub data_base64: &'a str,
}

pub(crate) fn turns(messages: &[Message]) -> Vec<Turn<'_>> {
    let mut builder = Builder::default();
    for message in messages {
        match message {
            Message::User(text) => builder.user_text(Cow::Borrowed(text)),
            Message::Assistant { text, tool_calls } => {
                builder.assistant(text.as_deref(), tool_calls)
            }
            Message::ToolResult {
                call_id,
                content,
                is_error,
            } => builder.tool_result(call_id, content, *is_error),
            Message::Image {
                media_type,
                data_base64,
            } => builder.image(media_type, data_base64),
        }
    }
    builder.finish()
}

#[derive(Default)]
struct Builder<'a> {
    turns: Vec<Turn<'a>>,
    /// The user turn being gathered; it joins `turns` when the next
    /// assistant message (or the end) arrives.
    results: Vec<ToolReply<'a>>,
    images: Vec<ImageRef<'a>>,
    texts: Vec<Cow<'a, str>>,
    /// Calls of the latest assistant turn, in order, still owed a result.
    pending: Vec<&'a str>,
    answered: HashSet<&'a str>,
}

impl<'a> Builder<'a> {
    fn user_text(&mut self, text: Cow<'a, str>) {
        if !text.trim().is_empty() {
            self.texts.push(text);
        }
    }

    fn image(&mut self, media_type: &'a str, data_base64: &'a str) {
        // An empty image is refused by both APIs and shows nothing anyway.
        if !data_base64.is_empty() {
            self.images.push(ImageRef {
                media_type,
                data_base64,
            });
        }
    }

    fn tool_result(&mut self, call_id: &'a str, content: &'a str, is_error: bool) {
        let content = Cow::Borrowed(if content.is_empty() {
            EMPTY_RESULT
        } else {
            content
        });
        if self.pending.contains(&call_id) && self.answered.insert(call_id) {
            self.results.push(ToolReply {
                call_id,
                content,
                is_error,
            });
        } else {
            // A result for no call we sent (or a second one for the same
            // call) would be refused; as text, the model still sees it.
            self.user_text(Cow::Owned(format!(
                "Result of tool call {call_id}{}:\n{content}",
                if is_error { " (error)" } else { "" }
            )));
        }
    }

    fn assistant(&mut self, text: Option<&'a str>, calls: &'a [ToolCall]) {
        let text = text.filter(|t| !t.trim().is_empty());
        if text.is_none() && calls.is_empty() {
            return;
        }
        self.flush_user();
        if let Some(Turn::Assistant {
            text: previous,
            calls: previous_calls,
        }) = self.turns.last_mut()
        {
            // Only a text-only assistant turn can be last here: one with calls
            // is always followed by the results it is owed.
            if let Some(text) = text {
                *previous = Some(match previous.take() {
                    Some(before) => Cow::Owned(format!("{before}\n\n{text}")),
                    None => Cow::Borrowed(text),
                });
            }
            previous_calls.extend(calls);
        } else {
            self.turns.push(Turn::Assistant {
                text: text.map(Cow::Borrowed),
                calls: calls.iter().collect(),
            });
        }
        self.pending = calls.iter().map(|call| call.id.as_str()).collect();
        self.answered.clear();
    }

    fn finish(mut self) -> Vec<Turn<'a>> {
        self.flush_user();
        self.turns
    }

    /// Ends the user turn being gathered, first answering every call still
    /// owed a result and putting the results in the order of the calls.
    fn flush_user(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        for &call_id in &pending {
            if !self.answered.contains(call_id) {
                self.results.push(ToolReply {
                    call_id,
                    content: Cow::Borrowed(NOT_EXECUTED),
                    is_error: true,
                });
            }
        }
        self.results
            .sort_by_key(|reply| pending.iter().position(|id| *id == reply.call_id));
        if self.results.is_empty() && self.images.is_empty() && self.texts.is_empty() {
            return;
        }
        self.turns.push(Turn::User {
            results: std::mem::take(&mut self.results),
            images: std::mem::take(&mut self.images),
            texts: std::mem::take(&mut self.texts),
        });
    }
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use serde_json::json;

    use super::*;

    pub(crate) fn call(id: &str, name: &str) -> ToolCall {
        ToolCall {
            id: id.to_owned(),
            name: name.to_owned(),
            arguments: Ok(json!({})),
        }
    }

    pub(crate) fn assistant(text: Option<&str>, calls: Vec<ToolCall>) -> Message {
        Message::Assistant {
            text: text.map(str::to_owned),
            tool_calls: calls,
        }
    }

    pub(crate) fn result(id: &str, content: &str) -> Message {
        Message::ToolResult {
            call_id: id.to_owned(),
            content: content.to_owned(),
            is_error: false,
        }
    }

    pub(crate) fn image(data: &str) -> Message {
        Message::Image {
            media_type: "image/png".to_owned(),
            data_base64: data.to_owned(),
        }
    }

    /// A compact picture of the turns: `U[id=result,...|text,...]` (with
    /// `|img:data,...` before the texts when there are images) and
    /// `A[text|id,...]`.
    fn picture(messages: &[Message]) -> Vec<String> {
        turns(messages)
            .iter()
            .map(|turn| match turn {
                Turn::User {
                    results,
                    images,
                    texts,
                } => format!(
                    "U[{}{}|{}]",
                    results
                        .iter()
                        .map(|r| format!(
                            "{}{}={}",
                            if r.is_error { "!" } else { "" },
                            r.call_id,
                            r.content
                        ))
                        .collect::<Vec<_>>()
                        .join(","),
                    images
                        .iter()
                        .map(|i| format!("|img:{}", i.data_base64))
                        .collect::<String>(),
                    texts.join(",")
                ),
                Turn::Assistant { text, calls } => format!(
                    "A[{}|{}]",
                    text.as_deref().unwrap_or(""),
                    calls
                        .iter()
                        .map(|c| c.id.as_str())
                        .collect::<Vec<_>>()
                        .join(",")
                ),
            })
            .collect()
    }

    #[test]
    fn ordinary_turns_alternate() {
        let history = [
            Message::User("goal".into()),
            assistant(Some("looking"), vec![call("c1", "snapshot")]),
            result("c1", "page"),
            assistant(None, vec![call("c2", "click")]),
            result("c2", "clicked"),
        ];
        assert_eq!(
            picture(&history),
            [
                "U[|goal]",
                "A[looking|c1]",
                "U[c1=page|]",
                "A[|c2]",
                "U[c2=clicked|]"
            ]
        );
    }

    #[test]
    fn a_nudge_after_a_result_joins_the_same_user_turn_after_the_result() {
        let history = [
            Message::User("goal".into()),
            assistant(None, vec![call("c1", "snapshot")]),
            result("c1", "page"),
            Message::User("Call a tool or complete_task".into()),
        ];
        assert_eq!(
            picture(&history),
            [
                "U[|goal]",
                "A[|c1]",
                "U[c1=page|Call a tool or complete_task]"
            ]
        );
    }

    #[test]
    fn text_before_a_result_is_moved_after_it() {
        let history = [
            Message::User("goal".into()),
            assistant(None, vec![call("c1", "snapshot")]),
            Message::User("note".into()),
            result("c1", "page"),
        ];
        assert_eq!(picture(&history), ["U[|goal]", "A[|c1]", "U[c1=page|note]"]);
    }

    #[test]
    fn calls_that_were_not_run_get_an_error_result_in_call_order() {
        let history = [
            Message::User("goal".into()),
            assistant(
                None,
                vec![call("c1", "a"), call("c2", "b"), call("c3", "c")],
            ),
            result("c2", "ran"),
            assistant(Some("next"), vec![]),
        ];
        let not_run = format!("!c1={NOT_EXECUTED}");
        let not_run_3 = format!("!c3={NOT_EXECUTED}");
        assert_eq!(
            picture(&history),
            [
                "U[|goal]".to_owned(),
                "A[|c1,c2,c3]".to_owned(),
                format!("U[{not_run},c2=ran,{not_run_3}|]"),
                "A[next|]".to_owned(),
            ]
        );
    }

    #[test]
    fn the_last_assistant_call_is_answered_even_at_the_end() {
        let history = [
            Message::User("goal".into()),
            assistant(None, vec![call("c1", "a")]),
        ];
        assert_eq!(
            picture(&history),
            [
                "U[|goal]".to_owned(),
                "A[|c1]".to_owned(),
                format!("U[!c1={NOT_EXECUTED}|]")
            ]
        );
    }

    #[test]
    fn orphan_and_duplicate_results_become_text() {
        let history = [
            Message::User("goal".into()),
            result("ghost", "boo"),
            assistant(None, vec![call("c1", "a")]),
            result("c1", "one"),
            result("c1", "again"),
        ];
        assert_eq!(
            picture(&history),
            [
                "U[|goal,Result of tool call ghost:\nboo]",
                "A[|c1]",
                "U[c1=one|Result of tool call c1:\nagain]",
            ]
        );
    }

    #[test]
    fn consecutive_assistant_texts_merge_and_empty_messages_vanish() {
        let history = [
            Message::User("goal".into()),
            Message::User("  ".into()),
            Message::User("more".into()),
            assistant(Some("a"), vec![]),
            assistant(Some(" "), vec![]),
            assistant(Some("b"), vec![call("c1", "x")]),
            result("c1", ""),
        ];
        assert_eq!(
            picture(&history),
            ["U[|goal,more]", "A[a\n\nb|c1]", "U[c1=(no output)|]"]
        );
    }

    #[test]
    fn images_join_their_user_turn_after_the_results_table() {
        let cases: Vec<(&str, Vec<Message>, Vec<&str>)> = vec![
            (
                "with the goal",
                vec![Message::User("goal".into()), image("AAA")],
                vec!["U[|img:AAA|goal]"],
            ),
            (
                "after a result",
                vec![
                    Message::User("goal".into()),
                    assistant(None, vec![call("c1", "click")]),
                    result("c1", "page"),
                    image("BBB"),
                ],
                vec!["U[|goal]", "A[|c1]", "U[c1=page|img:BBB|]"],
            ),
            (
                "before its result, still after it",
                vec![
                    Message::User("goal".into()),
                    assistant(None, vec![call("c1", "click")]),
                    image("CCC"),
                    result("c1", "page"),
                ],
                vec!["U[|goal]", "A[|c1]", "U[c1=page|img:CCC|]"],
            ),
            (
                "unanswered call still answered first",
                vec![
                    Message::User("goal".into()),
                    assistant(None, vec![call("c1", "click")]),
                    image("DDD"),
                ],
                vec![
                    "U[|goal]",
                    "A[|c1]",
                    "U[!c1=This tool call was not executed.|img:DDD|]",
                ],
            ),
            (
                "empty image vanishes",
                vec![Message::User("goal".into()), image("")],
                vec!["U[|goal]"],
            ),
        ];
        for (name, history, want) in cases {
            assert_eq!(picture(&history), want, "{name}");
        }
    }
}
