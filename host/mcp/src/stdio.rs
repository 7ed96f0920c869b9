//! The stdio transport, one JSON-RPC message a line, with every line
//! [screened](super::screen) first: a line that is not JSON, or a request
//! whose params do not fit, is answered here with its error; the rest goes
//! to rmcp as rmcp's own stdio transport would give it. Lines are bounded:
//! a client that never sends a newline cannot make the server hold its
//! stream in memory.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ErrorData, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};

use super::screen::{Screened, screen};

/// The longest line read: the HTTP transport's cap on a request body.
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// A screened line transport over `read` and `write` (the process's stdin
/// and stdout, or a pipe in tests).
pub struct Lines<R, W> {
    read: BufReader<R>,
    write: Arc<tokio::sync::Mutex<W>>,
}

impl<R, W> std::fmt::Debug for Lines<R, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lines").finish_non_exhaustive()
    }
}

/// The server's stdin and stdout, screened.
pub fn stdio() -> Lines<tokio::io::Stdin, tokio::io::Stdout> {
    Lines::new(tokio::io::stdin(), tokio::io::stdout())
}

impl<R, W> Lines<R, W>
where
    R: tokio::io::AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    pub fn new(read: R, write: W) -> Self {
        Self {
            read: BufReader::new(read),
            write: Arc::new(tokio::sync::Mutex::new(write)),
        }
    }
}

/// One line: its bytes, or that it was longer than the cap (what was read
/// of it is thrown away up to its newline).
enum Line {
    Text(Vec<u8>),
    TooLong,
}

/// Reads up to and without the next newline; `None` at the end of input.
async fn next_line(read: &mut (impl AsyncBufRead + Unpin)) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let available = read.fill_buf().await?;
        if available.is_empty() {
            // The end of input: a last line without its newline still counts.
            return Ok(match (line.is_empty() && !too_long, too_long) {
                (true, _) => None,
                (false, true) => Some(Line::TooLong),
                (false, false) => Some(Line::Text(line)),
            });
        }
        let (taken, ended) = match available.iter().position(|b| *b == b'\n') {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        let part = &available[..if ended { taken - 1 } else { taken }];
        if !too_long && line.len() + part.len() <= MAX_LINE_BYTES {
            line.extend_from_slice(part);
        } else {
            too_long = true;
            line.clear();
        }
        read.consume(taken);
        if ended {
            if too_long {
                return Ok(Some(Line::TooLong));
            }
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(Some(Line::Text(line)));
        }
    }
}

async fn write_line<W: AsyncWrite + Unpin>(
    write: &tokio::sync::Mutex<W>,
    message: &ServerJsonRpcMessage,
) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(message)?;
    line.push(b'\n');
    let mut write = write.lock().await;
    write.write_all(&line).await?;
    write.flush().await
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: tokio::io::AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn name() -> Cow<'static, str> {
        "screened stdio".into()
    }

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        async move { write_line(&write, &item).await }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            let line = match next_line(&mut self.read).await {
                Ok(Some(line)) => line,
                Ok(None) => return None,
                Err(e) => {
                    tracing::debug!("stdin failed: {e}");
                    return None;
                }
            };
            let screened = match line {
                Line::Text(text) if text.iter().all(u8::is_ascii_whitespace) => continue,
                Line::Text(text) => screen(&text),
                Line::TooLong => Screened::Refuse(Box::new(ServerJsonRpcMessage::error(
                    ErrorData::invalid_request(
                        format!("the message is longer than {MAX_LINE_BYTES} bytes"),
                        None,
                    ),
                    None,
                ))),
            };
            match screened {
                Screened::Pass(message) => return Some(*message),
                Screened::Refuse(reply) => {
                    if let Err(e) = write_line(&self.write, &reply).await {
                        tracing::debug!("stdout failed: {e}");
                        return None;
                    }
                }
                Screened::Drop => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test]
    async fn bad_lines_are_answered_and_good_ones_passed_on() {
        let input = concat!(
            "not json\n",
            "\n",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":[1,2]}}"#,
            "\r\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        );
        let (mut ours, theirs) = tokio::io::duplex(1 << 16);
        let mut lines = Lines::new(input.as_bytes(), theirs);
        let passed = lines.receive().await.unwrap();
        assert!(
            matches!(passed, ClientJsonRpcMessage::Request(ref r) if r.id == rmcp::model::NumberOrString::Number(2))
        );
        assert!(lines.receive().await.is_none());
        drop(lines);
        let mut written = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut ours, &mut written)
            .await
            .unwrap();
        let replies: Vec<serde_json::Value> = written
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(replies.len(), 2, "{written}");
        assert_eq!(replies[0]["error"]["code"], -32700);
        assert_eq!(replies[1]["error"]["code"], -32602);
        assert_eq!(replies[1]["id"], 1);
    }

    #[tokio::test]
    async fn a_line_past_the_cap_is_refused_and_the_next_one_read() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 10];
        input.push(b'\n');
        input.extend_from_slice(br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
        let (mut ours, theirs) = tokio::io::duplex(1 << 16);
        let mut lines = Lines::new(input.as_slice(), theirs);
        assert!(lines.receive().await.is_some());
        drop(lines);
        let mut written = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut ours, &mut written)
            .await
            .unwrap();
        assert!(written.contains("longer than"), "{written}");
    }
}
