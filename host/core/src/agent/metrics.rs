//! What the run record says about each model request: its size in
//! characters and its images.

use crate::llm::{Message, Request};

/// The size of a request in characters, for the run record.
pub(super) fn request_chars(request: &Request) -> usize {
    let messages: usize = request
        .messages
        .iter()
        .map(|m| match m {
            Message::User(text) => text.len(),
            Message::Assistant { text, tool_calls } => {
                text.as_ref().map_or(0, String::len)
                    + tool_calls
                        .iter()
                        .map(|c| {
                            c.name.len() + c.arguments.as_ref().map_or(0, |a| a.to_string().len())
                        })
                        .sum::<usize>()
            }
            Message::ToolResult { content, .. } => content.len(),
            // Counted apart by `request_images`: an image's size in
            // characters says little about its tokens.
            Message::Image { .. } => 0,
        })
        .sum();
    let tools: usize = request
        .tools
        .iter()
        .map(|t| t.name.len() + t.description.len() + t.input_schema.to_string().len())
        .sum();
    request.system.len() + messages + tools
}

/// How many images a request carries, and their base64 characters.
pub(super) fn request_images(request: &Request) -> (usize, usize) {
    request
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Image { data_base64, .. } => Some(data_base64.len()),
            _ => None,
        })
        .fold((0, 0), |(n, chars), len| (n + 1, chars + len))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use crate::agent::MAX_REPLY_TOKENS;
    use crate::agent::image::SCREENSHOT_MEDIA_TYPE;

    #[test]
    fn the_run_record_counts_images_by_size_only() {
        let request = Request {
            system: "s".into(),
            messages: vec![
                Message::User("goal".into()),
                Message::Image {
                    media_type: SCREENSHOT_MEDIA_TYPE.into(),
                    data_base64: "A".repeat(4_000),
                },
            ],
            tools: Vec::new(),
            max_tokens: MAX_REPLY_TOKENS,
            cache_history: true,
        };
        assert_eq!(request_chars(&request), "s".len() + "goal".len());
        assert_eq!(request_images(&request), (1, 4_000));
    }
}
