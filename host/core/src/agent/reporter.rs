//! A run's events, to where they go: the run record always, and the run's
//! front-end through its [`Feed`], in order, with what the run waits on and
//! the notices a person must see. Nothing here prints.

use crate::feed::event::Event;
use crate::feed::{Feed, Update};
use crate::record::RunRecord;

/// Where a run's events go.
pub struct Reporter {
    record: Option<RunRecord>,
    feed: Feed,
}

impl std::fmt::Debug for Reporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reporter")
            .field("record", &self.record.as_ref().map(RunRecord::dir))
            .finish_non_exhaustive()
    }
}

impl Reporter {
    /// Events go to `record` (when there is one) and to `feed`; the feed
    /// hears first where the record is.
    pub fn new(record: Option<RunRecord>, feed: Feed) -> Self {
        if let Some(record) = &record {
            feed.send(Update::Record(record.dir().to_path_buf()));
        }
        Self { record, feed }
    }

    pub fn record(&mut self) -> Option<&mut RunRecord> {
        self.record.as_mut()
    }

    /// The queue this reporter sends on, for the run's questions: the same
    /// one, so a question comes after the events before it.
    pub fn feed(&self) -> &Feed {
        &self.feed
    }

    pub fn emit(&mut self, event: Event) {
        if let Some(record) = &mut self.record
            && let Err(e) = record.append(&event)
        {
            tracing::warn!("{e}");
        }
        self.feed.send(Update::Event(Box::new(event)));
    }

    /// The run waits on `what` (a front-end may show a spinner).
    pub fn busy(&mut self, what: &str) {
        self.feed.send(Update::Waiting(Some(what.to_owned())));
    }

    /// The run no longer waits.
    pub fn idle(&mut self) {
        self.feed.send(Update::Waiting(None));
    }

    /// A line the person must see even under `--json`.
    pub fn notice(&mut self, text: &str) {
        self.feed.send(Update::Notice(text.to_owned()));
    }
}
