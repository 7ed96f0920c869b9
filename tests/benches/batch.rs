//! Several services in one command (issue 18): the nine practice flows
//! cancelled by one `subterminator cancel … --jobs N`, offline, headless,
//! throwaway profiles, every approval answered yes. For N = 1, 2 and 4:
//! wall time and throughput, the peak memory of everything the command
//! started (PSS: shared pages split between their users), and how busy the
//! machine's cores were (from /proc/stat).
//!
//! Run: `cargo bench -p subterminator-tests --bench batch`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use subterminator_practice::{FlowSite, flow};
use subterminator_tests::e2e;
use subterminator_tests::flow_script::FLOW_SERVICES;

const JOBS: &[usize] = &[1, 2, 4];
const POLL: Duration = Duration::from_millis(100);

/// (busy, total) jiffies of every core since boot.
fn cpu() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let fields: Vec<u64> = stat
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    let total: u64 = fields.iter().sum();
    // idle and iowait are the 4th and 5th fields.
    let idle = fields.get(3).copied().unwrap_or(0) + fields.get(4).copied().unwrap_or(0);
    (total - idle, total)
}

struct Measured {
    wall: Duration,
    verified: usize,
    peak_mib: f64,
    /// The most browsers (Chromium main processes) up at once.
    sessions: usize,
    busy: f64,
}

async fn once(services: &[&str], jobs: usize) -> Measured {
    // Fresh sites: a practice flow remembers that it was cancelled.
    let mut sites = Vec::new();
    for id in services {
        sites.push(
            FlowSite::serve(flow::load(id, None).unwrap())
                .await
                .unwrap(),
        );
    }
    let home = tempfile::tempdir().unwrap();
    let mut command = e2e::command(home.path());
    command.arg("cancel").args(services);
    for (id, site) in services.iter().zip(&sites) {
        command.args(["--start-url", &format!("{id}={}", site.url())]);
    }
    command.args(["--model", "offline", "--headless", "--isolated", "--json"]);
    command.args(["--jobs", &jobs.to_string()]);
    let (busy0, total0) = cpu();
    let started = Instant::now();
    let mut child = command.spawn().unwrap();
    let pid = child.id().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut stdin, "y\n".repeat(services.len()).as_bytes())
        .await
        .unwrap();
    drop(stdin);
    let mut stdout = child.stdout.take().unwrap();
    let reading = tokio::spawn(async move {
        let mut out = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut stdout, &mut out)
            .await
            .unwrap();
        out
    });
    let (mut peak_kib, mut sessions) = (0u64, 0usize);
    let status = loop {
        let tree = e2e::descendants(pid);
        let kib: u64 = tree
            .iter()
            .chain([pid].iter())
            .map(|p| e2e::pss_kib(*p))
            .sum();
        peak_kib = peak_kib.max(kib);
        let browsers = tree
            .iter()
            .filter(|p| {
                let cmdline =
                    std::fs::read_to_string(format!("/proc/{p}/cmdline")).unwrap_or_default();
                let program = cmdline.split('\0').next().unwrap_or_default();
                // The browser process itself: not its renderers and helpers
                // (`--type=`), nor Debian's `/usr/bin/chromium`, a shell
                // script that waits for it.
                (program.ends_with("/chromium") || program.ends_with("/chrome"))
                    && !cmdline.contains("--type=")
            })
            .count();
        sessions = sessions.max(browsers);
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        tokio::time::sleep(POLL).await;
    };
    let wall = started.elapsed();
    let (busy1, total1) = cpu();
    let out = reading.await.unwrap();
    let all: serde_json::Value = serde_json::from_slice(&out).unwrap_or_default();
    let verified = all
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|r| r["result"]["success"] == true && r["result"]["verified"] == true)
                .count()
        })
        .unwrap_or(0);
    assert!(
        status.success(),
        "jobs {jobs}: {status}\n{}",
        String::from_utf8_lossy(&out)
    );
    Measured {
        wall,
        verified,
        peak_mib: peak_kib as f64 / 1024.0,
        sessions,
        busy: (busy1 - busy0) as f64 / (total1 - total0).max(1) as f64,
    }
}

#[tokio::main]
async fn main() {
    // Warm the compiled-plugin cache and the npm cache once, unmeasured.
    let _ = once(&FLOW_SERVICES[..2], 2).await;
    println!(
        "batch bench: {} practice flows, offline, headless, --isolated, {} cores",
        FLOW_SERVICES.len(),
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!(
        "| --jobs | wall | cancellations/min | verified | browsers at once | peak PSS, all processes | cores busy |"
    );
    println!("|---|---|---|---|---|---|---|");
    for &jobs in JOBS {
        let m = once(FLOW_SERVICES, jobs).await;
        println!(
            "| {jobs} | {:.1} s | {:.1} | {}/{} | {} | {:.0} MiB | {:.0}% |",
            m.wall.as_secs_f64(),
            FLOW_SERVICES.len() as f64 * 60.0 / m.wall.as_secs_f64(),
            m.verified,
            FLOW_SERVICES.len(),
            m.sessions,
            m.peak_mib,
            m.busy * 100.0
        );
    }
}
