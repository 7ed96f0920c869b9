//! A Chromium the tests start themselves with remote debugging on 127.0.0.1,
//! standing for a person's own Chrome or a grid's browser: subterminator
//! attaches to it (`--cdp-endpoint`) and must leave it running.

use std::path::PathBuf;

use subterminator_core::browser::SharedChromium;

/// A running Chromium, killed with its whole process group when dropped.
#[derive(Debug)]
pub struct RemoteChromium {
    chromium: SharedChromium,
    /// Its DevTools port on 127.0.0.1.
    pub port: u16,
}

impl RemoteChromium {
    /// Starts headless Chromium with an empty profile and one tab at `url`:
    /// the product's own shared browser (`SharedChromium`, what the bench
    /// attaches its runs to), started as a person's Chrome would be.
    pub fn start(url: &str) -> anyhow::Result<Self> {
        let exe = subterminator_core::browser::detect_executable(None)?;
        // Always without the sandbox: tests run as root in CI and in
        // containers where Chromium's sandbox cannot start either way.
        let chromium = SharedChromium::start(&exe, true, Some(url))?;
        Ok(Self {
            port: chromium.port(),
            chromium,
        })
    }

    /// `http://127.0.0.1:<port>`, what `--cdp-endpoint` takes.
    pub fn endpoint(&self) -> String {
        self.chromium.endpoint()
    }

    pub fn pid(&self) -> u32 {
        self.chromium.pid()
    }

    /// The browser process has not exited.
    pub fn running(&mut self) -> bool {
        self.chromium.running()
    }

    /// The URLs of its open tabs, from its own `/json/list`.
    pub async fn tabs(&self) -> anyhow::Result<Vec<String>> {
        subterminator_core::tls::ready();
        let list: serde_json::Value = reqwest::get(format!("{}/json/list", self.endpoint()))
            .await?
            .json()
            .await?;
        Ok(list
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["type"] == "page")
            .filter_map(|t| t["url"].as_str().map(str::to_owned))
            .collect())
    }

    /// The profile folder, to look for anything written there.
    pub fn profile(&self) -> PathBuf {
        self.chromium.profile()
    }
}
