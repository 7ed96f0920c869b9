//! What part of the conversation the model is sent each turn (seed 002
//! §2.1.3). For now the whole history; the compact profile's budget work
//! replaces this.

use crate::llm::Message;

/// The messages to send for `history`.
pub fn for_request(history: &[Message]) -> Vec<Message> {
    history.to_vec()
}
