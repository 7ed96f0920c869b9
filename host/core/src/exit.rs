//! What kind of failure ended the process, and the exit code each kind
//! means (the Python prototype's codes). A leaf: every layer's error says
//! its class, and nothing here knows any layer.

/// What kind of failure an error is, which decides the process's exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// The task failed, was not verified or was rejected: exit 1.
    Failure,
    /// Missing key, unknown service, bad setting, nothing to run with: exit 2.
    Configuration,
    /// The MCP server or the model could not be reached: exit 3.
    Connection,
    /// The user pressed Ctrl+C: exit 130.
    Interrupted,
}

/// A run that verified its goal (or a dry run that showed its first move).
pub const EXIT_SUCCESS: u8 = 0;

impl ErrorClass {
    pub const fn exit_code(self) -> u8 {
        match self {
            ErrorClass::Failure => 1,
            ErrorClass::Configuration => 2,
            ErrorClass::Connection => 3,
            ErrorClass::Interrupted => 130,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_prototypes() {
        let cases = [
            (ErrorClass::Failure, 1),
            (ErrorClass::Configuration, 2),
            (ErrorClass::Connection, 3),
            (ErrorClass::Interrupted, 130),
        ];
        for (class, code) in cases {
            assert_eq!(class.exit_code(), code, "{class:?}");
        }
    }
}
