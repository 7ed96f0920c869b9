//! Robust runs (issue 16): interruptions the host clears before anyone
//! moves, a failed click mended and tried once more, a remembered path
//! replayed with no model and healed when the site changed, and a local
//! model that writes its calls as text. The real binary, Playwright MCP,
//! Chromium and the plugins; the sites' own request logs are the proof that
//! a hostile "Close" never ended anything.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use serde_json::Value;
use subterminator_practice::{FlowSite, PracticeSite, SiteOptions, flow};
use subterminator_tests::compact_script::snapshot_in;
use subterminator_tests::e2e::{self, ServedBrowser};
use subterminator_tests::flow_script::Script;
use subterminator_tests::model_server::{ModelServer, Reply};
use subterminator_tests::scripted::SCRIPTED_ANTHROPIC_KEY;
use subterminator_tests::site::{Site, site_dir};
use subterminator_tests::sloppy::{REPAIR_PROMPT, sloppy};

/// The overlays of the `interruptions` variant, by the buttons that close
/// them, in the order the host does: no model may ever read them. "Later"
/// closes Spotify's own teaser, which only the plugin's metadata names.
const OVERLAY_BUTTONS: &[&str] = &["Later", "Reject non-essential", "Not now", "Minimize chat"];

fn cancel(home: &Path, service: &str, url: &str, model: &str) -> tokio::process::Command {
    let mut command = e2e::command(home);
    command.args(["cancel", service, "--start-url", url, "--model", model]);
    if model != "offline" {
        // A scripted model's steps are the test: it takes every one.
        command.arg("--model-drives");
    }
    command.args(["--headless", "--isolated"]);
    command
}

/// `command` driven by the scripted model at `model`, in Anthropic's format.
fn driven_by(mut command: tokio::process::Command, model: &ModelServer) -> tokio::process::Command {
    command
        .env("ANTHROPIC_API_KEY", SCRIPTED_ANTHROPIC_KEY)
        .env("ANTHROPIC_BASE_URL", model.anthropic_base_url());
    command
}

/// The last run's transcript events.
fn events(home: &Path) -> Vec<Value> {
    let dir = e2e::run_dirs(home).pop().expect("a run folder");
    std::fs::read_to_string(dir.join("transcript.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["event"].clone())
        .collect()
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// Exit 0, verified, exactly one yes.
fn assert_verified(out: &std::process::Output, home: &Path, what: &str) {
    let said = e2e::text(out);
    assert_eq!(out.status.code(), Some(0), "{what}: {said}");
    assert_eq!(
        e2e::last_result(home).unwrap()["verified"],
        true,
        "{what}: {said}"
    );
    let asked = of_type(&events(home), "approval_asked").len();
    assert_eq!(asked, 1, "{what}: exactly one yes\n{said}");
}

fn commits(site: &FlowSite) -> usize {
    site.requests()
        .iter()
        .filter(|r| r.starts_with(&site.flow().commit_request()))
        .count()
}

async fn spotify(variant: Option<&str>) -> FlowSite {
    FlowSite::serve(flow::load("spotify", variant).unwrap())
        .await
        .unwrap()
}

/// A cookie banner, an app promotion and a help chat: the host dismisses
/// each before anyone moves, the scripted model never reads them, and the
/// run asks once, as an ordinary one does.
#[tokio::test(flavor = "multi_thread")]
async fn interruptions_are_cleared_before_the_model_sees_the_page() {
    let site = spotify(Some("interruptions")).await;
    let model = ModelServer::start(Script::load("spotify").unwrap().handler())
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let command = driven_by(
        cancel(home.path(), "spotify", &site.url(), "claude-opus-4-6"),
        &model,
    );
    let out = e2e::run(command, "y\n").await.unwrap();
    assert_verified(&out, home.path(), "interruptions");
    assert_eq!(commits(&site), 1, "{:?}", site.requests());

    let all = events(home.path());
    let dismissed: Vec<String> = of_type(&all, "interruption")
        .iter()
        .filter(|e| e["dismissed"] == true)
        .map(|e| e["button"].as_str().unwrap_or_default().to_owned())
        .collect();
    let expected: Vec<String> = OVERLAY_BUTTONS
        .iter()
        .map(|b| format!("button \"{b}\""))
        .collect();
    assert_eq!(dismissed, expected, "{all:#?}");
    let kinds: Vec<&str> = of_type(&all, "interruption")
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    assert_eq!(
        kinds,
        ["service", "consent", "promotion", "chat"],
        "{all:#?}"
    );
    assert!(
        !site.requests().iter().any(|r| r.contains("offer/accept")),
        "took the offer: {:?}",
        site.requests()
    );
    // Every snapshot is some request's latest input once; none lists an
    // overlay's element (the host's note naming what it pressed aside).
    for request in model.requests() {
        let input = request.latest_input().unwrap_or_default();
        let page = snapshot_in(&input).expect("a snapshot in every input");
        for name in OVERLAY_BUTTONS
            .iter()
            .chain(&["Accept all", "Download the app", "Let's go"])
        {
            assert!(
                !page["elements"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|e| e["name"] == *name),
                "request {} showed the model {name:?}",
                request.index
            );
        }
    }
    let said = e2e::text(&out);
    assert!(
        said.contains("dismissed a cookie and consent banner: button \"Reject non-essential\""),
        "{said}"
    );
    // The static prefix, tools and system prompt, is marked for the
    // prompt cache on every request; the conversation is not, since the
    // compact toolset sums up older turns afresh each time and a cache
    // written there would never be read. The last line says what was
    // cached (here nothing: the prefix is under the provider's 1,024-token
    // minimum).
    for request in model.requests() {
        assert_eq!(
            request.body["system"][0]["cache_control"]["type"], "ephemeral",
            "request {}",
            request.index
        );
        assert!(
            !request.body["messages"]
                .to_string()
                .contains("cache_control"),
            "request {}",
            request.index
        );
    }
    let result = e2e::last_result(home.path()).unwrap();
    assert_eq!(result["usage"]["cache_write"], 0, "{result}");
    assert!(said.contains(" cached) · "), "{said}");
    assert!(said.contains("browser "), "{said}");
}

/// With `[agent] dismiss-interruptions = false` the model meets the
/// overlays itself: the switch works, the script closes them, and the
/// person is asked more than once, since a model's click on a commit page
/// needs a yes whatever it closes. The prompts the handler spares.
#[tokio::test(flavor = "multi_thread")]
async fn with_dismissal_off_the_model_meets_the_overlays() {
    let site = spotify(Some("interruptions")).await;
    let model = ModelServer::start(Script::load("spotify").unwrap().handler())
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("config")).unwrap();
    std::fs::write(
        home.path().join("config/config.toml"),
        "[agent]\ndismiss-interruptions = false\n",
    )
    .unwrap();
    let command = driven_by(
        cancel(home.path(), "spotify", &site.url(), "claude-opus-4-6"),
        &model,
    );
    let out = e2e::run(command, "y\ny\ny\ny\n").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert_eq!(e2e::last_result(home.path()).unwrap()["verified"], true);
    let all = events(home.path());
    assert!(of_type(&all, "interruption").is_empty());
    assert!(of_type(&all, "approval_asked").len() > 1, "{said}");
    let shown = model
        .requests()
        .iter()
        .any(|r| r.body.to_string().contains("Reject non-essential"));
    assert!(shown, "the model saw the banner");
}

/// A consent banner that appears when the pointer first moves takes the
/// click: Playwright gives up, the host dismisses the banner, and the click
/// is tried once more, unasked, and works.
#[tokio::test(flavor = "multi_thread")]
async fn a_click_taken_by_a_late_banner_is_tried_again() {
    let site = Site::serve(&site_dir("robust")).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut command = cancel(
        home.path(),
        "practice",
        &site.url("/late-banner.html"),
        "offline",
    );
    command.args(["--max-turns", "2"]);
    let out = e2e::run(command, "").await.unwrap();
    let said = e2e::text(&out);
    let all = events(home.path());
    let recovered = of_type(&all, "recovered");
    assert_eq!(recovered.len(), 1, "{said}\n{all:#?}");
    assert_eq!(recovered[0]["trouble"], "obscured", "{:#?}", recovered[0]);
    assert_eq!(recovered[0]["ok"], true, "{:#?}", recovered[0]);
    assert!(
        recovered[0]["after"]
            .as_str()
            .unwrap()
            .contains("dismissing"),
        "{:#?}",
        recovered[0]
    );
    assert!(site.was_requested("/offer.html"), "{:?}", site.requests());
    assert!(of_type(&all, "approval_asked").is_empty(), "{said}");
    // The failure never reached the driver as an error.
    assert!(
        !of_type(&all, "tool_result")
            .iter()
            .any(|e| e["ok"] == false),
        "{all:#?}"
    );
}

/// A flow whose every step is drawn 450 ms after its button is clicked,
/// with no request between (a slide, a debounce): longer than Playwright
/// MCP's settle time, so the page looked at right after a click is the
/// step clicked, unchanged. The host waits for it once, and the plan,
/// which would otherwise find its next step missing and give up, takes
/// every step; the site's log shows the one commit, after the one yes.
///
/// The host's wait is 500 ms from its look, which comes after the click,
/// so a step drawn 450 ms after the click is there at the second look on
/// any machine. Whether the first look already sees it depends on how
/// long the click took: on a busy machine a click can outlast the slide
/// (one took 628 ms on CI's), and then there is nothing to wait for. So
/// every try must end verified with the one commit, and the run is tried
/// again until one of its steps was waited for.
#[tokio::test(flavor = "multi_thread")]
async fn a_step_drawn_late_is_waited_for() {
    let mut tries = Vec::new();
    for _ in 0..3 {
        let site = Site::serve(&site_dir("robust")).await.unwrap();
        let home = tempfile::tempdir().unwrap();
        let command = cancel(
            home.path(),
            "practice",
            &site.url("/late-steps.html"),
            "offline",
        );
        let out = e2e::run(command, "y\n").await.unwrap();
        assert_verified(&out, home.path(), "late steps");
        let posts: Vec<_> = site
            .requests()
            .into_iter()
            .filter(|r| r.method == "POST")
            .collect();
        assert_eq!(posts.len(), 1, "{posts:?}");
        assert_eq!(posts[0].path(), "/api/cancel", "{posts:?}");
        let all = events(home.path());
        let waited = of_type(&all, "page_waited_for");
        // Three steps drawn late; the last step's post is answered at once.
        assert!(waited.len() <= 3, "{all:#?}");
        assert!(
            waited.iter().all(|w| w["changed"] == Value::Bool(true)),
            "a wait that saw no new step, yet the run went on: {all:#?}"
        );
        if !waited.is_empty() {
            return;
        }
        tries.push(all);
    }
    panic!("every click outlasted the slide, three times: {tries:#?}");
}

/// The channels `late-send.html` sends the cancellation by (`?via=`), and
/// how each shows in the site's log.
const LATE_SENDS: &[(&str, &str)] = &[
    ("post", "POST /api/membership"),
    ("get", "GET /membership/cancel/complete"),
    ("beacon", "POST /offer/accept"),
    ("ws", "WS {\"intent\""),
    ("worker", "POST /api/membership"),
];

/// What `site` was sent after its first `before` requests, a line each.
fn logged_since(site: &Site, before: usize) -> Vec<String> {
    site.requests()[before..]
        .iter()
        .map(|r| format!("{} {}", r.method, r.target))
        .collect()
}

/// Why each request the record says the guard refused was refused.
fn refused_whys(all: &[Value]) -> Vec<String> {
    of_type(all, "guard_blocked")
        .into_iter()
        .flat_map(|e| e["requests"].as_array().unwrap().clone())
        .map(|r| r["why"].as_str().unwrap().to_owned())
        .collect()
}

/// Runs `command`, answering no: its exit, what it printed, and what `site`
/// was sent meanwhile.
async fn run_answering_no(
    site: &Site,
    command: tokio::process::Command,
) -> (std::process::Output, String, Vec<String>) {
    let before = site.requests().len();
    let out = e2e::run(command, "n\n").await.unwrap();
    let said = e2e::text(&out);
    (out, said, logged_since(site, before))
}

/// Whether the record names a request refused with a why ending in `how`.
fn refused_as(all: &[Value], how: &str) -> bool {
    refused_whys(all).iter().any(|w| w.ends_with(how))
}

/// The escape test for the wait before that second look: a page whose
/// "Cancel Membership" changes nothing, so the host waits, and which sends
/// the cancellation by a timer, through each channel in turn: a POST, a GET
/// navigation, a beacon, a WebSocket message and a worker's POST. Nothing
/// covers what the page sent by itself inside the wait: it is refused
/// unasked and named in the record. The site's log has the timer's harmless
/// ping and never the cancellation; the run neither hangs on the held
/// navigation nor ends verified.
///
/// The timer runs on the page's clock and the wait on the host's, so where
/// it lands depends on how long the click took: on a busy machine 200 ms
/// can fire inside the click itself (then the click's own follow-up is
/// asked about), or after the host's look and before its wait (the page is
/// loading, so no wait: it is refused "held when the run ended"; 120 ms
/// does that here, 200 ms did on CI's machine). So each channel tries
/// later timers until one lands inside the wait; every try must keep the
/// cancellation off the site and name what the page sent in the record.
#[tokio::test(flavor = "multi_thread")]
async fn what_a_page_sends_while_the_host_waits_is_held() {
    let site = Site::serve(&site_dir("robust")).await.unwrap();
    // Up to twenty runs, each a session of one served browser.
    let browser = ServedBrowser::start().await.unwrap();
    for &(via, commit) in LATE_SENDS {
        let mut tries = Vec::new();
        for after in [120, 200, 450, 900] {
            let home = tempfile::tempdir().unwrap();
            let mut command = cancel(
                home.path(),
                "practice",
                &site.url(&format!("/late-send.html?via={via}&after={after}")),
                "offline",
            );
            command.args(browser.args());
            let (out, said, log) = run_answering_no(&site, command).await;
            assert!(
                !log.iter().any(|r| r.starts_with(commit)),
                "{via} after {after} ms: the cancellation reached the site\n{log:#?}\n{said}"
            );
            assert_ne!(out.status.code(), Some(0), "{via} after {after} ms: {said}");
            if !log.iter().any(|r| r == &format!("GET /ping?via={via}")) {
                // The run ended before the timer: nothing was sent.
                tries.push(format!("{after} ms: the run ended first"));
                continue;
            }
            let all = events(home.path());
            let refused = refused_whys(&all);
            let asked = of_type(&all, "approval_asked").len();
            assert!(
                !refused.is_empty() || asked > 0,
                "{via} after {after} ms: what the page sent is not in the record\n{all:#?}"
            );
            let waited = !of_type(&all, "page_waited_for").is_empty();
            if waited && asked == 0 && refused.iter().any(|w| w.contains("while the host waited")) {
                tries.clear();
                break;
            }
            tries.push(format!(
                "{after} ms: waited {waited}, asked {asked}, refused {refused:?}"
            ));
        }
        assert!(
            tries.is_empty(),
            "{via}: no timer landed inside the host's wait: {tries:#?}"
        );
    }
}

/// The escape test for the run's last take: the page sends the
/// cancellation by a timer 1.5 s after it loads, while a scripted model
/// thinks for 3 s about the first page and then gives up, so nothing the
/// run did sent it and no take of an action's comes after it. Through each
/// channel (a POST, a GET navigation, a beacon, a WebSocket message, a
/// worker's POST) the site's log has the timer's ping and never the
/// cancellation, nobody is asked, and the record names what the guard
/// still held as "held when the run ended" rather than leaving it to
/// vanish with the browser.
#[tokio::test(flavor = "multi_thread")]
async fn what_a_page_sends_as_the_run_ends_is_named() {
    let site = Site::serve(&site_dir("robust")).await.unwrap();
    let browser = ServedBrowser::start().await.unwrap();
    for &(via, commit) in LATE_SENDS {
        let model = ModelServer::start(|_| {
            Reply::delayed(
                std::time::Duration::from_secs(3),
                Reply::tool(
                    "complete_task",
                    serde_json::json!({"status": "failed", "reason": "I cannot find the way."}),
                ),
            )
        })
        .await
        .unwrap();
        let home = tempfile::tempdir().unwrap();
        let url = site.url(&format!("/late-send.html?via={via}&on=load&after=1500"));
        let mut command = driven_by(
            cancel(home.path(), "practice", &url, "claude-opus-4-6"),
            &model,
        );
        command.args(browser.args());
        let (out, said, log) = run_answering_no(&site, command).await;
        assert!(
            log.iter().any(|r| r == &format!("GET /ping?via={via}")),
            "{via}: the timer never ran\n{log:#?}\n{said}"
        );
        assert!(
            !log.iter().any(|r| r.starts_with(commit)),
            "{via}: the cancellation reached the site\n{log:#?}\n{said}"
        );
        let all = events(home.path());
        assert!(
            of_type(&all, "approval_asked").is_empty(),
            "{via}: {all:#?}"
        );
        assert!(
            refused_as(&all, ", held when the run ended"),
            "{via}: {:#?}\n{said}",
            refused_whys(&all)
        );
        assert_ne!(out.status.code(), Some(0), "{via}: {said}");
    }
}

/// Whatever refuses a held request names it in the record, not only the
/// person's no: a plan step's click whose page accepts the retention offer
/// by a beacon at once, inside the click, is refused unasked as a change to
/// what the person pays (the plan moves only towards cancelling). Found by
/// a timer of the test above that fired inside a slow click: the refusal
/// reached the model's note and never the record. The site's log is the
/// proof nothing was accepted; nobody is asked.
#[tokio::test(flavor = "multi_thread")]
async fn a_beacon_refused_inside_an_action_is_named() {
    let site = Site::serve(&site_dir("robust")).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let url = site.url("/late-send.html?via=beacon&after=0");
    let (_, said, log) =
        run_answering_no(&site, cancel(home.path(), "practice", &url, "offline")).await;
    assert!(
        log.iter().any(|r| r == "GET /ping?via=beacon"),
        "{log:#?}\n{said}"
    );
    assert!(
        !log.iter().any(|r| r.starts_with("POST /offer/accept")),
        "{log:#?}\n{said}"
    );
    let all = events(home.path());
    assert!(of_type(&all, "approval_asked").is_empty(), "{all:#?}");
    assert!(
        refused_as(&all, ", refused unasked: it changes what the person pays"),
        "{:#?}\n{said}",
        refused_whys(&all)
    );
}

/// A banner whose only button, "Close", submits the form that ends the
/// membership: as a submit button on an account page and on the final page
/// (the decision asks, so the host leaves it), and as a plain button whose
/// script submits (on a page that offers the final step the host presses
/// nothing unasked; elsewhere the guard would hold the post). The site's log
/// is the proof that "Close" never ended anything.
#[tokio::test(flavor = "multi_thread")]
async fn a_banner_whose_close_commits_never_ends_anything() {
    for page in [
        "/overlay-close.html",
        "/overlay-final.html",
        "/overlay-script.html",
    ] {
        let site = Site::serve(&site_dir("robust")).await.unwrap();
        let home = tempfile::tempdir().unwrap();
        let mut command = cancel(home.path(), "practice", &site.url(page), "offline");
        command.args(["--max-turns", "3"]);
        let out = e2e::run(command, "n\nn\nn\n").await.unwrap();
        let said = e2e::text(&out);
        assert_ne!(out.status.code(), Some(0), "{page}: {said}");
        let posted: Vec<_> = site
            .requests()
            .into_iter()
            .filter(|r| !["GET", "HEAD"].contains(&r.method.as_str()))
            .collect();
        assert!(posted.is_empty(), "{page}: {posted:?}\n{said}");
        assert!(!site.was_requested("/commit.html"), "{page}: {said}");
        let all = events(home.path());
        let tried = of_type(&all, "interruption");
        assert!(!tried.is_empty(), "{page}: the banner was found\n{all:#?}");
        assert!(
            !tried.iter().any(|e| e["dismissed"] == true),
            "{page}: {all:#?}"
        );
        if page == "/overlay-script.html" {
            // On a page that offers the final step the host presses nothing
            // unasked, and says why (the guard would hold the script's post
            // too, but a worker's WebSocket it could not see).
            assert!(
                tried.iter().any(|e| e["left"]
                    .as_str()
                    .is_some_and(|l| l.contains("offers the final step"))),
                "{page}: the banner was left, and why\n{all:#?}"
            );
        }
    }
}

/// A careless plugin whose `interruptions` name the offer: the host never
/// presses it for it. It sits in a box that speaks of the cancellation, so
/// it is no interruption at all; the offline run then asks at the final step
/// as ever, and a no ends it with nothing sent. The same plugin naming the
/// final button too is refused at load (API 0.3.0 on, overlays that read
/// as commits are), and nothing is loaded at all.
#[tokio::test(flavor = "multi_thread")]
async fn a_plugin_that_names_the_final_button_an_interruption_gets_no_press() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let careless = |names: &str| {
        let text = std::fs::read_to_string(root.join("plugins/spotify/service.toml"))
            .unwrap()
            .replacen("id = \"spotify\"", "id = \"careless\"", 1)
            .replacen(
                "name = [\"later\"]",
                &format!("name = [\"later\", {names}]"),
                1,
            );
        assert!(text.contains("\"careless\"") && text.contains("\"keep premium\""));
        text
    };

    // The final button named too: refused before anything runs.
    let site = spotify(None).await;
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("careless.toml");
    std::fs::write(
        &file,
        careless("\"yes, cancel premium\", \"keep premium\", \"premium\""),
    )
    .unwrap();
    e2e::install_declarative(home.path(), "careless", &file).unwrap();
    let command = cancel(home.path(), "careless", &site.url(), "offline");
    let out = e2e::run(command, "n\n").await.unwrap();
    let said = e2e::text(&out);
    assert_ne!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("reads as a commit"), "{said}");
    assert!(site.requests().is_empty(), "{:?}", site.requests());

    // The offer alone: loads, and is never pressed.
    let site = spotify(None).await;
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("careless.toml");
    std::fs::write(&file, careless("\"keep premium\"")).unwrap();
    e2e::install_declarative(home.path(), "careless", &file).unwrap();
    let command = cancel(home.path(), "careless", &site.url(), "offline");
    let out = e2e::run(command, "n\n").await.unwrap();
    let said = e2e::text(&out);
    assert_ne!(out.status.code(), Some(0), "{said}");
    assert_eq!(commits(&site), 0, "{:?}", site.requests());
    assert!(
        !site.requests().iter().any(|r| r.contains("offer/accept")),
        "{:?}",
        site.requests()
    );
    let all = events(home.path());
    assert!(
        !of_type(&all, "interruption")
            .iter()
            .any(|e| e["dismissed"] == true),
        "{all:#?}"
    );
    assert_eq!(of_type(&all, "approval_asked").len(), 1, "{said}");
}

/// `memory show` as text.
async fn memory(home: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut command = e2e::command(home);
    command.arg("memory").args(args);
    let out = e2e::run(command, "").await.unwrap();
    (out.status.code(), e2e::text(&out))
}

/// A verified run remembers its path; `--replay` follows it with no model
/// at all (the model server would fail any request) and still asks once;
/// `memory forget` forgets it, and `--replay` then says why it cannot.
#[tokio::test(flavor = "multi_thread")]
async fn a_remembered_path_is_replayed_without_a_model() {
    let home = tempfile::tempdir().unwrap();
    let first = spotify(None).await;
    let out = e2e::run(
        cancel(home.path(), "spotify", &first.url(), "offline"),
        "y\n",
    )
    .await
    .unwrap();
    assert_verified(&out, home.path(), "first run");
    assert_eq!(of_type(&events(home.path()), "remembered").len(), 1);

    let (code, shown) = memory(home.path(), &["show", "spotify"]).await;
    assert_eq!(code, Some(0), "{shown}");
    assert!(shown.contains("spotify (plugin "), "{shown}");
    assert!(shown.contains("on 127.0.0.1"), "{shown}");
    assert!(shown.contains("\"Cancel subscription\""), "{shown}");

    let model = ModelServer::start(|_| Reply::status(400, "no model may be asked"))
        .await
        .unwrap();
    let second = spotify(None).await;
    let mut command = driven_by(
        cancel(home.path(), "spotify", &second.url(), "claude-opus-4-6"),
        &model,
    );
    command.arg("--replay");
    let out = e2e::run(command, "y\n").await.unwrap();
    assert_verified(&out, home.path(), "replay");
    assert_eq!(model.request_count(), 0, "the replay asked the model");
    assert_eq!(commits(&second), 1, "{:?}", second.requests());
    let result = e2e::last_result(home.path()).unwrap();
    assert_eq!(result["usage"]["input"], 0, "{result}");

    let (code, said) = memory(home.path(), &["forget", "spotify"]).await;
    assert_eq!(code, Some(0), "{said}");
    let (_, shown) = memory(home.path(), &["show", "spotify"]).await;
    assert!(
        shown.contains("Nothing is remembered for spotify"),
        "{shown}"
    );
    let mut command = cancel(home.path(), "spotify", &second.url(), "offline");
    command.arg("--replay");
    let out = e2e::run(command, "").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("no path is remembered for spotify"), "{said}");
    let (code, said) = memory(home.path(), &["show", "Spotify!"]).await;
    assert_eq!(code, Some(2), "{said}");
}

/// The site renamed "Cancel subscription" to "Cancel Premium plan": the
/// replay stops where the remembered step finds nothing, the model takes
/// over with the old path as hints, and the new path is remembered. Offline,
/// the plugin's plan takes over the same way.
#[tokio::test(flavor = "multi_thread")]
async fn a_replay_heals_when_the_site_is_reworded() {
    let home = tempfile::tempdir().unwrap();
    let first = spotify(None).await;
    let out = e2e::run(
        cancel(home.path(), "spotify", &first.url(), "offline"),
        "y\n",
    )
    .await
    .unwrap();
    assert_verified(&out, home.path(), "first run");

    let model = ModelServer::start(Script::load("spotify").unwrap().handler())
        .await
        .unwrap();
    let reworded = spotify(Some("reworded")).await;
    let mut command = driven_by(
        cancel(home.path(), "spotify", &reworded.url(), "claude-opus-4-6"),
        &model,
    );
    command.arg("--replay");
    let out = e2e::run(command, "y\n").await.unwrap();
    assert_verified(&out, home.path(), "healed with a model");
    let all = events(home.path());
    let handed = of_type(&all, "handed_over");
    assert_eq!(handed.len(), 1, "{all:#?}");
    assert_eq!(handed[0]["replayed"], 1, "{:#?}", handed[0]);
    assert!(
        handed[0]["why"]
            .as_str()
            .unwrap()
            .contains("\"Cancel subscription\""),
        "{:#?}",
        handed[0]
    );
    let first_request = model
        .requests()
        .into_iter()
        .next()
        .expect("the model was asked");
    let body = first_request.body.to_string();
    assert!(body.contains("Hints: this path worked on"), "{body}");
    assert!(body.contains("Replaying step 1"), "{body}");
    let (_, shown) = memory(home.path(), &["show", "spotify"]).await;
    assert!(shown.contains("\"Cancel Premium plan\""), "{shown}");
    assert!(!shown.contains("\"Cancel subscription\""), "{shown}");

    // Offline, on a home that remembers the old path: the plan takes over.
    let home = tempfile::tempdir().unwrap();
    let out = e2e::run(
        cancel(
            home.path(),
            "spotify",
            &spotify(None).await.url(),
            "offline",
        ),
        "y\n",
    )
    .await
    .unwrap();
    assert_verified(&out, home.path(), "first offline run");
    let reworded = spotify(Some("reworded")).await;
    let out = e2e::run(
        cancel(home.path(), "spotify", &reworded.url(), "offline"),
        "y\n",
    )
    .await
    .unwrap();
    assert_verified(&out, home.path(), "healed offline");
    let all = events(home.path());
    assert_eq!(of_type(&all, "handed_over").len(), 1, "{all:#?}");
    assert_eq!(commits(&reworded), 1);
    let said = e2e::text(&out);
    assert!(
        said.contains("the remembered path took 1 step(s)"),
        "{said}"
    );
}

/// A small local model served in OpenAI's format writes its calls as text,
/// in four forms, once as broken JSON and once with an argument misnamed:
/// the host reads what it can, asks for a repair of what it cannot, refuses
/// the misnamed argument by the schema, and the run is verified.
#[tokio::test(flavor = "multi_thread")]
async fn a_local_model_that_writes_calls_as_text_still_cancels() {
    let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
    let model = ModelServer::start(sloppy).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut command = e2e::command(home.path());
    command
        .args(["cancel", "netflix", "--start-url", &site.url()])
        .args(["--tools", "compact", "--headless", "--isolated"])
        .args(["--model", "vllm:qwen2.5-7b-instruct", "--model-drives"])
        .args(["--base-url", &model.openai_base_url()]);
    let out = e2e::run(command, "y\n").await.unwrap();
    assert_verified(&out, home.path(), "sloppy model");

    let requests = model.requests();
    assert!(
        requests.iter().all(|r| r.body["tool_choice"] == "required"),
        "every request asks for a tool call"
    );
    let repaired = requests
        .iter()
        .any(|r| r.user_texts().iter().any(|t| t.contains(REPAIR_PROMPT)));
    assert!(repaired, "the broken call was sent back for repair");
    let all = events(home.path());
    let in_text = of_type(&all, "call_in_text");
    assert!(
        in_text.iter().filter(|e| e["tool"].is_string()).count() >= 3,
        "{in_text:#?}"
    );
    assert_eq!(
        in_text.iter().filter(|e| e["problem"].is_string()).count(),
        1,
        "{in_text:#?}"
    );
    // The refusal is the last action's result, quoted in the summary of
    // what was done (compact sends no turn whole).
    let refused = requests.iter().any(|r| {
        r.latest_input()
            .is_some_and(|t| t.contains("failed (invalid_params): ") && t.contains("ref"))
    });
    assert!(refused, "the misnamed argument was refused by the schema");
}
