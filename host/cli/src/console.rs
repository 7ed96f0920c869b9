//! Lines from stdin, read on a thread of their own so the async loop can wait
//! for them next to Ctrl+C. Works the same for a terminal and a pipe.

use std::io::{BufRead, IsTerminal};

use tokio::sync::mpsc;

/// How many typed-ahead lines are kept before the reader waits.
const LINE_BUFFER: usize = 64;

#[derive(Debug)]
pub struct Console {
    lines: mpsc::Receiver<String>,
    /// Whether stdin is a terminal: there, an answer typed before the
    /// question appeared does not count.
    terminal: bool,
}

impl Console {
    /// Starts reading stdin. Call once per process: the reader owns stdin.
    pub fn stdin() -> Self {
        let (tx, rx) = mpsc::channel(LINE_BUFFER);
        let spawned = std::thread::Builder::new()
            .name("stdin-lines".into())
            .spawn(move || {
                for line in std::io::stdin().lock().lines() {
                    let Ok(line) = line else { break };
                    if tx.blocking_send(line).is_err() {
                        break;
                    }
                }
            });
        if let Err(e) = spawned {
            // No reader means every question reads as end of input: "no".
            tracing::error!("cannot read stdin: {e}");
        }
        Self {
            lines: rx,
            terminal: std::io::stdin().is_terminal(),
        }
    }

    /// Forgets what was typed before a question is shown. On a terminal, a
    /// `y` typed ahead is no answer to a question not yet on the screen; a
    /// pipe keeps its lines, so scripted answers still work. Called before
    /// the question is printed, so that nothing typed after it is lost.
    pub fn forget_typed_ahead(&mut self) {
        if self.terminal {
            while self.lines.try_recv().is_ok() {}
            discard_typed_ahead();
        }
    }

    /// The next line, or `None` at end of input.
    pub async fn read_line(&mut self) -> Option<String> {
        self.lines.recv().await
    }
}

/// Drops what the terminal holds of a line not yet finished.
#[cfg(unix)]
pub(crate) fn discard_typed_ahead() {
    use nix::sys::termios::{FlushArg, tcflush};
    if let Err(e) = tcflush(std::io::stdin(), FlushArg::TCIFLUSH) {
        tracing::debug!("cannot discard typed-ahead input: {e}");
    }
}

#[cfg(not(unix))]
pub(crate) fn discard_typed_ahead() {}
