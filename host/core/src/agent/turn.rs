//! What one turn leaves behind: a result for the driver and the loop going
//! on, or the run's end.

use crate::feed::result::TaskResult;

/// What a turn leaves behind.
pub enum Turn {
    /// The tool result for the driver; the loop goes on.
    Continue { content: String, is_error: bool },
    /// The run is over.
    End(Box<TaskResult>),
}

pub(super) fn end(result: TaskResult) -> Turn {
    Turn::End(Box::new(result))
}
