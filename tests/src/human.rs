//! A person at the terminal, for end-to-end tests: runs the real binary,
//! reads each approval prompt as it appears, and answers it by a policy. At
//! the moment each prompt appears it also asks the test how many commit
//! requests the site has seen, so a test can prove that a commit waited for
//! the yes right before it.

use std::future::Future;
use std::pin::Pin;
use std::process::{Output, Stdio};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::e2e::RUN_TIMEOUT;

/// The line that ends every approval prompt.
pub const PROMPT: &str = "Approve? [y/N]: ";

/// The end of the notice a run waits at while the person signs in.
pub const SIGN_IN: &str = "then press Enter here to continue.";

/// What the person does at the browser when asked to sign in, before they
/// press Enter.
pub type SignIn = Box<dyn FnMut() -> Pin<Box<dyn Future<Output = ()> + Send>> + Send>;

/// One prompt as the person saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// The whole block, from "Human approval required" to the question.
    pub text: String,
    /// The `Action:` line's value.
    pub action: String,
    /// The `URL:` line's value.
    pub url: String,
    /// Commit requests the site had seen when the prompt appeared.
    pub commits_before: usize,
    pub approved: bool,
}

impl Prompt {
    fn parse(text: &str, commits_before: usize) -> Self {
        let field = |name: &str| {
            text.lines()
                .find_map(|l| l.trim().strip_prefix(name).map(|v| v.trim().to_owned()))
                .unwrap_or_default()
        };
        Self {
            action: field("Action:"),
            url: field("URL:"),
            text: text.to_owned(),
            commits_before,
            approved: false,
        }
    }
}

/// What a run left: its output and every prompt, in order.
#[derive(Debug)]
pub struct Session {
    pub output: Output,
    pub prompts: Vec<Prompt>,
}

/// Runs `command`, answering each prompt with `answer(prompt)` (true is
/// "y", false is "n"). `commits` is asked when each prompt appears. Asked
/// to sign in, the person presses Enter without doing it.
pub async fn run(
    command: tokio::process::Command,
    answer: impl FnMut(&Prompt) -> bool,
    commits: impl Fn() -> usize,
) -> anyhow::Result<Session> {
    run_signing_in(command, answer, commits, Box::new(|| Box::pin(async {}))).await
}

/// [`run`], where the person asked to sign in does `sign_in` at the
/// browser first.
pub async fn run_signing_in(
    mut command: tokio::process::Command,
    mut answer: impl FnMut(&Prompt) -> bool,
    commits: impl Fn() -> usize,
    mut sign_in: SignIn,
) -> anyhow::Result<Session> {
    command.stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = command.spawn()?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| anyhow::anyhow!("no stdin"))?;
    let mut stdout = child
        .stdout
        .take()
        .ok_or_else(|| anyhow::anyhow!("no stdout"))?;
    let mut stderr = child.stderr.take();
    let mut seen = String::new();
    let mut handled = 0;
    let mut signed = 0;
    let mut prompts = Vec::new();
    let reading = async {
        let mut buffer = [0u8; 4096];
        loop {
            let n = stdout.read(&mut buffer).await?;
            if n == 0 {
                break;
            }
            seen.push_str(&String::from_utf8_lossy(&buffer[..n]));
            while let Some(at) = seen[handled..].find(PROMPT) {
                let end = handled + at + PROMPT.len();
                let block_start = seen[..end]
                    .rfind("Human approval required")
                    .unwrap_or(handled);
                let mut prompt = Prompt::parse(&seen[block_start..end], commits());
                prompt.approved = answer(&prompt);
                let line = if prompt.approved { "y\n" } else { "n\n" };
                stdin.write_all(line.as_bytes()).await?;
                stdin.flush().await?;
                prompts.push(prompt);
                handled = end;
            }
            while let Some(at) = seen[signed..].find(SIGN_IN) {
                signed += at + SIGN_IN.len();
                sign_in().await;
                stdin.write_all(b"\n").await?;
                stdin.flush().await?;
            }
        }
        anyhow::Ok(())
    };
    tokio::time::timeout(RUN_TIMEOUT, reading).await??;
    drop(stdin);
    let status = tokio::time::timeout(RUN_TIMEOUT, child.wait()).await??;
    let mut err = Vec::new();
    if let Some(stderr) = stderr.as_mut() {
        stderr.read_to_end(&mut err).await?;
    }
    Ok(Session {
        output: Output {
            status,
            stdout: seen.into_bytes(),
            stderr: err,
        },
        prompts,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn a_prompt_block_is_read_into_its_fields() {
        let text = "⚠️  Human approval required\n  Reason: x\n  Action: browser_click button \"Finish\"\n  URL: http://127.0.0.1:1/a\n  Screenshot: s.png\nApprove? [y/N]: ";
        let prompt = Prompt::parse(text, 3);
        assert_eq!(prompt.action, "browser_click button \"Finish\"");
        assert_eq!(prompt.url, "http://127.0.0.1:1/a");
        assert_eq!(prompt.commits_before, 3);
    }
}
