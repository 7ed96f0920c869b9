//! The bench's errors, by meaning.

/// What can go wrong in the bench.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The flows or language packs the crate carries are broken: a bug in
    /// the bench, named with the file and the key.
    #[error("the bench's data is broken: {0}")]
    Data(String),
    #[error("there is no flow {0:?}")]
    UnknownFlow(String),
    #[error("{what} ({addr}): {source}")]
    Io {
        what: &'static str,
        addr: String,
        source: std::io::Error,
    },
    /// The serve interface refuses to start more runs than its cap.
    #[error(
        "{live} runs are live, the most this server keeps at once; DELETE /runs/{{run}} one first"
    )]
    TooManyRuns { live: usize },
    #[error("the bench server listens on loopback only, not on {0}")]
    NotLoopback(String),
    #[error("the scorer's token must be at least {0} characters")]
    WeakToken(usize),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(what: &'static str, addr: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            what,
            addr: addr.into(),
            source,
        }
    }
}
