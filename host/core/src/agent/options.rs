//! What a run is told before it starts: its options, and the limits every
//! run keeps. Its own module so that the stages read them from here, not
//! from `agent.rs`, which calls into the stages.

/// Turns one run may take unless told otherwise (`--max-turns`).
pub const DEFAULT_MAX_TURNS: u32 = 20;
/// Replies in a row with no tool call before the run gives up.
pub const MAX_NO_ACTION_REPLIES: u32 = 3;
/// Output tokens one model reply may use; one tool call needs few.
pub const MAX_REPLY_TOKENS: u32 = 1024;
/// How many sign-in pauses one run allows before it gives up.
pub const MAX_AUTH_PAUSES: u32 = 3;

/// Said to the model when it answers without calling a tool.
pub const NUDGE: &str = "Call a tool or complete_task.";

#[derive(Debug, Clone)]
pub struct RunOptions {
    pub max_turns: u32,
    pub dry_run: bool,
    /// False only under `--no-checkpoint`.
    pub checkpoints: bool,
    /// Where the run starts; `--start-url` or the plugin's initial URL.
    pub start_url: String,
    /// Set for `--start-url`: its origin joins the allowed origins.
    pub local_copy: bool,
    /// Whether a sign-in wall may pause for the human (headed, on a terminal).
    pub interactive: bool,
    /// Whether cookie banners, promotions and chat widgets in the way are
    /// dismissed by the host (`[agent] dismiss-interruptions`, on by default).
    pub dismiss_overlays: bool,
    /// Where paths that worked are remembered; `None` remembers nothing.
    pub memory: Option<crate::memory::Memory>,
    /// `--replay`: follow the remembered path with no model until it no
    /// longer matches the page.
    pub replay: bool,
    /// `--model-drives`: a configured model takes every turn, with the
    /// plan and the remembered path as hints only. Off, the path and then
    /// the plan take every turn whose step they find on the page.
    pub model_drives: bool,
    /// See `SessionSpec::billing_descriptors`.
    pub billing_descriptors: Vec<String>,
    /// The config's list prices (`[prices]`), over the defaults.
    pub prices: std::collections::BTreeMap<String, crate::llm::pricing::Price>,
}
