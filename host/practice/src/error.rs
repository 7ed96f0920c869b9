//! What can go wrong serving a practice site: a flow that does not read,
//! or a socket that cannot be had.

/// A practice site's failure, by its meaning.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A practice flow or one of its variants is missing or malformed:
    /// the files under `plugins/<id>/practice/` need fixing.
    #[error("{0}")]
    Flow(String),
    /// The site could not listen on 127.0.0.1.
    #[error("{context} on {address}: {source}")]
    Serve {
        context: &'static str,
        address: &'static str,
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    pub(crate) fn serve(
        context: &'static str,
        address: &'static str,
        source: std::io::Error,
    ) -> Self {
        Error::Serve {
            context,
            address,
            source,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
