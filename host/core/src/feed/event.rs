//! One stream of events per run. The same events become the JSONL run
//! record and what a front-end shows (the terminal's lines, an MCP client's
//! progress), so the two never disagree.

use serde::Serialize;

use super::result::TaskResult;
use super::result::Tokens;
use crate::approval::{Answer, ApprovalRequest};

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    RunStarted {
        service: String,
        display_name: String,
        model: String,
        start_url: String,
        /// Set when `--start-url` points the plugin at a local copy.
        local_copy: Option<String>,
        tools: String,
        max_turns: u32,
        checkpoints: bool,
        /// Which plugin ran: id, version, API, SHA-256 and where it came from.
        plugin: crate::plugin::Provenance,
        /// How its charges read on the statement the run came from (`scan
        /// --cancel`), for `plugin new --from-run`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        billing_descriptors: Vec<String>,
    },
    /// What was sent to the model this turn, in summary.
    ModelRequest {
        turn: u32,
        messages: usize,
        tools: usize,
        /// Characters of system prompt, text messages and tool schemas;
        /// images are counted apart, by size only (never their data).
        chars: usize,
        /// Images sent (`--vision`): at most the latest screenshot.
        images: usize,
        /// Base64 characters of those images.
        image_chars: usize,
    },
    ModelReply {
        turn: u32,
        text: Option<String>,
        tool_calls: Vec<String>,
        usage: Tokens,
        elapsed_ms: u64,
    },
    ToolCall {
        turn: u32,
        tool: String,
        /// The element as resolved from the page, e.g. `button "Cancel Membership"`.
        target: Option<String>,
        arguments: serde_json::Value,
        /// Who proposed it: the model, the offline policy, a replayed step,
        /// an MCP client.
        #[serde(skip_serializing_if = "Option::is_none")]
        origin: Option<Origin>,
    },
    Refused {
        turn: u32,
        tool: String,
        code: String,
        why: String,
    },
    ToolResult {
        turn: u32,
        tool: String,
        ok: bool,
        error: Option<String>,
        url: String,
        elapsed_ms: u64,
        /// The page text the model was shown; in the record always, on screen with -v.
        page: Option<String>,
    },
    CheckpointPassed {
        turn: u32,
        reason: String,
    },
    /// Requests to other sites the network guard stopped during an
    /// unapproved action (they were no commit).
    GuardBlocked {
        turn: u32,
        requests: Vec<crate::browser::guard::BlockedRequest>,
    },
    /// Requests a yes let through: the evidence a cancellation is believed
    /// on.
    Released {
        turn: u32,
        requests: Vec<ReleasedRequest>,
    },
    /// Requests the network guard held during an unapproved action, put to
    /// the person at the effect.
    GuardHeld {
        turn: u32,
        requests: Vec<crate::browser::guard::HeldRequest>,
        /// The action that sent them was still in flight when they were
        /// put to the person (`run.rs`, the watch beside its call): the
        /// question did not wait for the browser to give up on them.
        #[serde(default)]
        while_acting: bool,
    },
    /// An overlay (cookie banner, promotion, chat widget) the host
    /// dismissed before the next move, or left alone and why. Its JSON name
    /// is older than the word "overlay" and stays.
    #[serde(rename = "interruption")]
    Overlay {
        turn: u32,
        kind: crate::page::overlay::Kind,
        /// The button it pressed, or would have.
        button: String,
        /// Words of the box it sits in.
        context: String,
        url: String,
        dismissed: bool,
        left: Option<String>,
    },
    /// A failed action the host tried once more after mending what was in
    /// the way (`ok`: the retry worked, and the model never heard of it).
    Recovered {
        turn: u32,
        tool: String,
        trouble: Trouble,
        /// What the host did first: dismissed, scrolled, waited.
        after: String,
        ok: bool,
    },
    /// The page after an action looked exactly like the step it was taken
    /// on: the host waited `waited_ms` and looked again (`agent/look.rs`);
    /// `changed` says whether the page had moved on by then.
    PageWaitedFor {
        turn: u32,
        waited_ms: u64,
        changed: bool,
    },
    /// Who takes the steps changed: the remembered path or the plan
    /// stopped matching the page and the plan or the driver goes on, or the
    /// page matches the plan again and it takes back over from the model.
    HandedOver {
        turn: u32,
        /// The remembered path, the plan, or the driver's label.
        from: String,
        /// Steps `from` took since the driver last looked.
        replayed: usize,
        why: String,
        to: String,
    },
    /// The model wrote its tool call as text: read and used (`tool`), or
    /// not usable (`problem`, sent back to it as a repair prompt).
    CallInText {
        turn: u32,
        tool: Option<String>,
        problem: Option<String>,
    },
    /// The path this verified run took, remembered for the next.
    Remembered {
        steps: usize,
        file: String,
    },
    /// A dialog the host answered by itself (alerts, `beforeunload`).
    DialogAnswered {
        turn: u32,
        kind: String,
        message: String,
        accepted: bool,
    },
    /// Something about an element the accessibility tree cannot show and
    /// the host's DOM probe measured: `kind` is `low_contrast`, `hidden` or
    /// `tiny` (and `required`, a form field the page will not go on
    /// without); `target` the element as resolved (`link "Cancel"`);
    /// `detail` the measurement (`contrast 1.3:1`, `9 px`). The run's
    /// audit (`audit.rs`) turns it into a finding. No probe emits it yet:
    /// the record's shape comes first so the audit and its tests are ready.
    Observed {
        turn: u32,
        kind: String,
        target: String,
        detail: String,
    },
    ApprovalAsked {
        turn: u32,
        request: ApprovalRequest,
    },
    ApprovalAnswered {
        turn: u32,
        answer: Answer,
    },
    Verification {
        turn: u32,
        verified: bool,
        detail: String,
    },
    AuthRequired {
        turn: u32,
        kind: String,
        message: String,
        url: String,
    },
    /// Where a turn's time went; `host_us` is everything but the model, the
    /// browser and the human.
    TurnTiming {
        turn: u32,
        total_us: u64,
        model_us: u64,
        browser_us: u64,
        human_us: u64,
        host_us: u64,
        /// The safety layers' share of the turn (within the figures above).
        safety_us: u64,
    },
    DryRun {
        tool: String,
        target: Option<String>,
        arguments: serde_json::Value,
    },
    Finished {
        result: TaskResult,
    },
    /// The receipt of a verified success, in the run folder.
    ReceiptWritten {
        files: Vec<String>,
    },
}

/// One request a yes let through, as the record keeps it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReleasedRequest {
    pub method: String,
    pub url: String,
}

/// Who proposed an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// A model the host talks to.
    Model,
    /// The plugin's plan: the offline policy, or plan first before a model.
    Plan,
    /// A step of a remembered path (`--replay`, or the offline policy's
    /// first choice).
    Replay,
    /// The host's second try of an action that failed on something in the
    /// way; it runs only where the decision would not ask.
    Retry,
    /// The host's press on the button that closes an overlay; it runs only
    /// where the decision would not ask.
    Dismissal,
    /// An MCP client's own model, one call a turn.
    Client,
}

impl Origin {
    /// Whether the host itself proposed it. The host never asks the person
    /// for its own moves: where one would need a yes it is not made.
    pub fn is_hosts(self) -> bool {
        matches!(self, Origin::Retry | Origin::Dismissal)
    }
}

/// Why an action failed, when it is worth one more try.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trouble {
    /// Something else was on top of it.
    Obscured,
    /// Not visible, or outside the viewport.
    NotVisible,
    /// Taken out of the page and put back (a re-render).
    Detached,
    /// Not ready in time (not stable, still loading).
    Slow,
}
