//! Attaching to a browser that already runs (`--cdp-endpoint`): the
//! endpoint and its one header, checked before anything starts, and the
//! form in which the endpoint may be shown.

/// The schemes Playwright's `connectOverCDP` takes.
const SCHEMES: &[&str] = &["ws", "wss", "http", "https"];

/// Longest header value taken, in bytes: a bearer token is a few hundred.
pub const MAX_HEADER_BYTES: usize = 8 * 1024;

/// A browser that already runs, reached over the Chrome DevTools Protocol
/// through Playwright MCP's own `--cdp-endpoint` support.
///
/// Each session opens a context of its own in that browser (Playwright
/// MCP's `--isolated`), never the browser's default one: the context is
/// created with service workers blocked, which the network guard needs and
/// which cannot be switched on in a context that already exists; and the
/// person's own tabs and cookies are left alone. Shutdown closes that
/// context and disconnects; the browser goes on running.
#[derive(Clone, PartialEq, Eq)]
pub struct Attach {
    /// `ws://`, `wss://`, `http://` or `https://`: a DevTools WebSocket
    /// endpoint, or the HTTP address Chrome answers `/json/version` on.
    pub endpoint: String,
    /// One header sent with the connect request (a grid's token), as name
    /// and value. Passed to the server through its environment, never its
    /// command line, which every local user can read.
    pub header: Option<(String, String)>,
}

impl Attach {
    /// The endpoint as it may be shown and recorded: scheme, host, port
    /// and path, without credentials or query (where grids put tokens).
    pub fn shown(&self) -> String {
        match url::Url::parse(&self.endpoint) {
            Ok(mut url) => {
                let _ = url.set_username("");
                let _ = url.set_password(None);
                url.set_query(None);
                url.set_fragment(None);
                url.to_string()
            }
            Err(_) => "(an endpoint that is not a URL)".to_owned(),
        }
    }
}

impl Attach {
    /// `text` with the endpoint and the header's value, wherever they
    /// appear whole, replaced by what may be shown.
    pub fn redact(&self, text: &str) -> String {
        let mut text = text.replace(&self.endpoint, &self.shown());
        if let Some((_, value)) = &self.header
            && !value.is_empty()
        {
            text = text.replace(value.as_str(), "(the header's value)");
        }
        text
    }
}

impl std::fmt::Debug for Attach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Attach")
            .field("endpoint", &self.shown())
            .field("header", &self.header.as_ref().map(|(name, _)| name))
            .finish()
    }
}

impl Attach {
    /// Checks `endpoint` and `header` (`Name: value`, as a grid documents
    /// it). The error says what is wrong in words for the person; it never
    /// repeats the header's value.
    pub fn parse(endpoint: &str, header: Option<&str>) -> Result<Attach, String> {
        let endpoint = endpoint.trim();
        let url = url::Url::parse(endpoint).map_err(|e| {
            format!("the CDP endpoint {endpoint:?} is not a URL ({e}); give one such as http://127.0.0.1:9222 or ws://grid:3000/chromium")
        })?;
        if !SCHEMES.contains(&url.scheme()) || url.host_str().is_none_or(str::is_empty) {
            return Err(format!(
                "the CDP endpoint must be a ws://, wss://, http:// or https:// address with a host, not {:?}",
                Attach {
                    endpoint: endpoint.to_owned(),
                    header: None
                }
                .shown()
            ));
        }
        let header = match header.map(str::trim).filter(|h| !h.is_empty()) {
            None => None,
            Some(h) => Some(parse_header(h)?),
        };
        Ok(Attach {
            endpoint: endpoint.to_owned(),
            header,
        })
    }
}

fn parse_header(text: &str) -> Result<(String, String), String> {
    if text.len() > MAX_HEADER_BYTES {
        return Err(format!("the CDP header is over {MAX_HEADER_BYTES} bytes"));
    }
    if text.contains(['\n', '\r']) {
        return Err(
            "the CDP header holds more than one line; one header, as `Name: value`, is taken"
                .into(),
        );
    }
    let Some((name, value)) = text.split_once(':') else {
        return Err(
            "the CDP header has no `:`; write it as `Name: value`, e.g. `Authorization: Bearer …`"
                .into(),
        );
    };
    let name = name.trim();
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(token) {
        return Err(format!(
            "the CDP header's name {name:?} is not a header name; write it as `Name: value`"
        ));
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn endpoints_and_headers() {
        type Case = (
            &'static str,
            Option<&'static str>,
            Result<Option<(&'static str, &'static str)>, &'static str>,
        );
        let cases: &[Case] = &[
            ("http://127.0.0.1:9222", None, Ok(None)),
            ("ws://grid:3000/chromium?token=s3cret", None, Ok(None)),
            (
                "wss://grid.example/playwright",
                Some("Authorization: Bearer abc"),
                Ok(Some(("Authorization", "Bearer abc"))),
            ),
            ("https://grid.example", Some("  "), Ok(None)),
            ("127.0.0.1:9222", None, Err("is not a URL")),
            ("localhost:9222", None, Err("must be a ws://")),
            ("ftp://grid", None, Err("must be a ws://")),
            ("not a url", None, Err("is not a URL")),
            ("ws://grid", Some("Bearer abc"), Err("has no `:`")),
            (
                "ws://grid",
                Some("Auth orization: x"),
                Err("is not a header name"),
            ),
            ("ws://grid", Some("A: b\nB: c"), Err("more than one line")),
        ];
        for (endpoint, header, want) in cases {
            let got = Attach::parse(endpoint, *header);
            match (want, got) {
                (Ok(h), Ok(a)) => assert_eq!(
                    a.header,
                    h.map(|(n, v)| (n.to_owned(), v.to_owned())),
                    "{endpoint}"
                ),
                (Err(part), Err(e)) => assert!(e.contains(part), "{endpoint}: {e}"),
                (want, got) => panic!("{endpoint} {header:?}: want {want:?}, got {got:?}"),
            }
        }
    }

    #[test]
    fn what_is_shown_has_no_secret() {
        let a = Attach::parse(
            "wss://user:pw@grid.example:3000/chromium?token=s3cret",
            Some("Authorization: Bearer t0ken"),
        )
        .unwrap();
        let shown = a.shown();
        assert_eq!(shown, "wss://grid.example:3000/chromium");
        let debug = format!("{a:?}");
        for secret in ["s3cret", "t0ken", "pw"] {
            assert!(!debug.contains(secret), "{debug}");
        }
        let said = a.redact(
            "connect failed: wss://user:pw@grid.example:3000/chromium?token=s3cret (Bearer t0ken)",
        );
        assert!(
            !said.contains("s3cret") && !said.contains("t0ken"),
            "{said}"
        );
        // A refusal does not repeat the query either.
        let e = Attach::parse("ftp://grid/?token=s3cret", None).unwrap_err();
        assert!(!e.contains("s3cret"), "{e}");
    }
}
