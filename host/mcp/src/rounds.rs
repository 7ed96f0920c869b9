//! Multi round-trip requests (2026-07-28): a call the person must approve
//! returns `input_required`, carrying the approval as an elicitation request
//! under the parked question's id, and a `requestState` that names the
//! session and that question. The client calls again with the same
//! arguments, the person's answer under the same id, and the state echoed.
//!
//! The state is a name, not data: everything it points at stays on the
//! server, so a forged state can only name a question, and a question's id
//! is 128 random bits that only its own client was shown. A state naming a
//! question that is not waiting (answered, expired, another session's) is
//! refused, never taken as a yes.

use std::collections::BTreeMap;

use rmcp::model::{ElicitRequest, InputRequest, InputRequiredResult};

use super::desk::Parked;
use super::{MAX_SESSION_ID_CHARS, valid_session_id};

/// What a `requestState` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Continuation {
    pub session: String,
    pub question: String,
}

/// Why a `requestState` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`requestState` was not made by this server for a question (pass back the one the input_required result gave, unchanged)"
)]
pub struct BadState;

/// The first word of every state: a state of another shape (a later
/// version's, a forgery) is refused as a whole.
const PREFIX: &str = "st1";

const QUESTION_ID_CHARS: usize = 32;

/// The state for `question`, parked in `session`.
pub fn state(session: &str, question: &str) -> String {
    format!("{PREFIX}.{session}.{question}")
}

/// Reads a state this server made.
pub fn parse_state(state: &str) -> Result<Continuation, BadState> {
    let mut parts = state.split('.');
    let (Some(PREFIX), Some(session), Some(question), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(BadState);
    };
    let question_ok = question.len() == QUESTION_ID_CHARS
        && question
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase());
    if !valid_session_id(session) || session.len() > MAX_SESSION_ID_CHARS || !question_ok {
        return Err(BadState);
    }
    Ok(Continuation {
        session: session.to_owned(),
        question: question.to_owned(),
    })
}

/// The `input_required` result for `parked`, waiting in `session`.
pub fn input_required(session: &str, parked: &Parked) -> InputRequiredResult {
    let request = InputRequest::Elicitation(ElicitRequest::new(parked.params.clone()));
    InputRequiredResult::new(
        Some(BTreeMap::from([(parked.id.clone(), request)])),
        Some(state(session, &parked.id)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_state_this_server_made_is_read() {
        let id = "0123456789abcdef0123456789abcdef";
        let made = state("s-1", id);
        assert_eq!(
            parse_state(&made),
            Ok(Continuation {
                session: "s-1".into(),
                question: id.into()
            })
        );
        let cases = [
            String::new(),
            "st1".into(),
            format!("st2.s-1.{id}"),
            format!("st1.s-1.{id}.x"),
            format!("st1..{id}"),
            format!("st1.a b.{id}"),
            format!("st1.s-1.{}", &id[1..]),
            format!("st1.s-1.{}", id.to_uppercase()),
            format!("st1.s-1.{}g", &id[1..]),
            format!("st1.{}.{id}", "x".repeat(65)),
        ];
        for bad in cases {
            assert_eq!(parse_state(&bad), Err(BadState), "{bad:?}");
        }
    }
}
