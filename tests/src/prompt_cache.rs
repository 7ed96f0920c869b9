//! The providers' prompt caches, as the model server reports them, so a
//! bench can see what the host's cache-friendly requests save.
//!
//! - Anthropic caches at `cache_control` breakpoints: a request reads the
//!   longest prefix, ending at a block boundary, that an earlier request
//!   wrote at one of its breakpoints, and writes everything after that up to
//!   its own last breakpoint. The marks themselves are not content: a prefix
//!   is the same whichever of its blocks carried one. Prefixes under 1,024
//!   tokens are not cached.
//! - OpenAI caches by itself: the longest prefix shared with an earlier
//!   request, in 128-token steps from 1,024 tokens.
//!
//! Tokens are counted as bytes ÷ 4, as the server counts all input.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

/// The smallest prefix either provider caches.
pub const MIN_CACHED_TOKENS: u64 = 1024;
/// OpenAI's cache grows in steps of this many tokens.
const OPENAI_STEP_TOKENS: u64 = 128;

fn tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

/// What one server's caches hold.
#[derive(Debug, Default)]
pub struct PromptCache {
    /// Hashes of the Anthropic prefixes written, each ending at a block.
    written: HashSet<u64>,
    /// Earlier OpenAI prompts, serialised.
    seen: Vec<String>,
}

impl PromptCache {
    /// `(read, written)` tokens for an Anthropic Messages request.
    pub fn anthropic(&mut self, body: &Value) -> (u64, u64) {
        // The order the API reads a request in: tools, system, messages.
        let mut blocks: Vec<&Value> = Vec::new();
        let listed = |v: &Value| v.as_array().cloned().unwrap_or_default();
        let tools = listed(&body["tools"]);
        let system = listed(&body["system"]);
        let mut content = Vec::new();
        for message in body["messages"].as_array().into_iter().flatten() {
            match &message["content"] {
                Value::Array(parts) => content.extend(parts.iter().cloned()),
                other => content.push(other.clone()),
            }
        }
        blocks.extend(tools.iter());
        blocks.extend(system.iter());
        blocks.extend(content.iter());
        let mut hasher = DefaultHasher::new();
        let mut prefix = Vec::with_capacity(blocks.len());
        let mut total = 0;
        for block in &blocks {
            // The mark says where to cache; it is not part of what is cached
            // (a breakpoint moves to the newest block every turn).
            let mut bare = (*block).clone();
            if let Some(fields) = bare.as_object_mut() {
                fields.remove("cache_control");
            }
            let text = bare.to_string();
            text.hash(&mut hasher);
            total += tokens(&text);
            prefix.push((hasher.finish(), total, block.get("cache_control").is_some()));
        }
        let read = prefix
            .iter()
            .rev()
            .find(|(hash, _, _)| self.written.contains(hash))
            .map_or(0, |(_, upto, _)| *upto);
        let last = prefix
            .iter()
            .rev()
            .find(|(_, _, breakpoint)| *breakpoint)
            .map_or(0, |(_, upto, _)| *upto);
        for (hash, upto, breakpoint) in &prefix {
            if *breakpoint && *upto >= MIN_CACHED_TOKENS {
                self.written.insert(*hash);
            }
        }
        let write = if last >= MIN_CACHED_TOKENS {
            last.saturating_sub(read)
        } else {
            0
        };
        (read, write)
    }

    /// Cached tokens for an OpenAI Chat Completions request.
    pub fn openai(&mut self, body: &Value) -> u64 {
        let prompt = format!("{}{}", body["tools"], body["messages"]);
        let shared = self
            .seen
            .iter()
            .map(|old| common_prefix(old, &prompt))
            .max()
            .unwrap_or(0);
        self.seen.push(prompt);
        let shared = tokens_floor(shared);
        if shared < MIN_CACHED_TOKENS {
            0
        } else {
            shared - shared % OPENAI_STEP_TOKENS
        }
    }
}

fn tokens_floor(bytes: usize) -> u64 {
    bytes as u64 / 4
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}
