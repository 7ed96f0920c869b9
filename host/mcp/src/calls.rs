//! The tools: each call, its arguments already checked against the tool's
//! schema, becomes a session lookup, a run or a turn of one, and ends as a
//! structured [`Reply`], or (2026-07-28) as an `input_required` result when
//! the run waits on the person.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{InputRequiredResult, InputResponses};
use serde_json::{Map, Value, json};

use super::caller::Caller;
use super::reply::Reply;
use super::rounds;
use super::sessions::{OpenError, Sessions};
use super::slot::{Fingerprint, Launch, Outcome, Refused, Slot, SlotKey};
use super::start::check_start_url;
use super::tools::{self, agent_arguments};
use super::{CLIENT_MAX_TURNS, DEFAULT_SESSION_ID};
use subterminator_core::agent::{Driver, client_model};
use subterminator_core::llm::ToolCall;
use subterminator_core::plugin::ServiceEntry;
use subterminator_core::session::{self, SessionSpec};

/// How a call ends.
#[derive(Debug)]
pub enum Response {
    Done(Reply),
    /// The run waits on the person: the client calls again with the answer.
    Asks(InputRequiredResult),
}

/// One call: the server's sessions, who calls, the tool and its arguments.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub sessions: &'a Sessions,
    pub caller: &'a Caller,
    pub tool: &'a str,
    pub args: &'a Map<String, Value>,
}

type Answer = Result<Response, ErrorData>;

/// Why a call stops before it waits on a run: a result the client's model
/// reads, or params the client got wrong (-32602).
#[derive(Debug)]
enum Stop {
    Tool(Reply),
    Params(ErrorData),
}

impl From<Reply> for Stop {
    fn from(reply: Reply) -> Self {
        Stop::Tool(reply)
    }
}

impl From<ErrorData> for Stop {
    fn from(error: ErrorData) -> Self {
        Stop::Params(error)
    }
}

impl From<Stop> for Answer {
    fn from(stop: Stop) -> Self {
        match stop {
            Stop::Tool(reply) => Ok(Response::Done(reply)),
            Stop::Params(error) => Err(error),
        }
    }
}

/// A call made for the first time.
pub async fn dispatch(call: Call<'_>) -> Answer {
    let done = match call.tool {
        tools::LIST_SERVICES => list_services(call.sessions).await,
        tools::CANCEL_SUBSCRIPTION => return cancel(call).await,
        tools::SCREENSHOT => screenshot(call).await,
        tools::CLOSE => close(call).await,
        other => match tools::agent_tool(other) {
            Some(agent_tool) => return turn(call, agent_tool).await,
            None => Err(Reply::error(
                format!("there is no tool called {other}"),
                "Call tools/list for the tools this server has.",
            )),
        },
    };
    Ok(Response::Done(done.unwrap_or_else(|reply| reply)))
}

/// A call again, with the person's answer to the question its
/// `input_required` result carried (2026-07-28).
pub async fn resume(call: Call<'_>, state: &str, responses: Option<&InputResponses>) -> Answer {
    let continuation =
        rounds::parse_state(state).map_err(|e| invalid("requestState", e.to_string()))?;
    if let Some(named) = call.args.get("session_id").and_then(Value::as_str)
        && named != continuation.session
    {
        return Err(invalid(
            "session_id",
            format!("`session_id` {named:?} is not the session the answer belongs to"),
        ));
    }
    let key = SlotKey {
        connection: call.caller.scope,
        session: continuation.session,
    };
    let Some(slot) = call.sessions.get(&key).filter(|s| !s.is_done()) else {
        return Err(invalid(
            "requestState",
            super::desk::Refusal::NotWaiting.to_string(),
        ));
    };
    let response = responses.and_then(|r| r.get(&continuation.question));
    slot.desk.client_can_answer(call.caller.can_answer);
    listen(call, &slot);
    let outcome = until_cancelled(
        call,
        &slot,
        slot.resume(&fingerprint(call), &continuation.question, response),
    )
    .await;
    slot.desk.hang_up();
    respond(call, &slot, outcome)
}

async fn list_services(sessions: &Sessions) -> Result<Reply, Reply> {
    let registry = sessions
        .registry()
        .await
        .map_err(|e| Reply::from_error(&e))?;
    let services: Vec<Value> = registry
        .services()
        .iter()
        .map(|s| {
            json!({
                "id": s.metadata.id,
                "name": s.metadata.display_name,
                "version": s.metadata.version,
                "starts_at": s.metadata.initial_url,
                "goal": s.metadata.goal,
            })
        })
        .collect();
    Ok(Reply::ok(json!({ "services": services })))
}

/// `cancel_subscription`: the host's own agent, to the end, with progress
/// each turn.
async fn cancel(call: Call<'_>) -> Answer {
    let slot = match open_for_host(call).await {
        Ok(slot) => slot,
        Err(stop) => return stop.into(),
    };
    slot.desk.client_can_answer(call.caller.can_answer);
    listen(call, &slot);
    let outcome = until_cancelled(call, &slot, slot.wait_for_end(fingerprint(call))).await;
    slot.desk.hang_up();
    respond(call, &slot, outcome)
}

async fn open_for_host(call: Call<'_>) -> Result<Arc<Slot>, Stop> {
    let key = key(call, true)?;
    let service = service(call).await?;
    let spec = spec(call, &service)?;
    let driver = session::driver(&spec, call.sessions.config(), &service)
        .map_err(|e| Reply::from_error(&e))?;
    let launch = Launch {
        key,
        service,
        spec,
        driver,
        calls: None,
        asking: call.caller.asking(),
        tether: call.caller.tether.clone(),
    };
    Ok(call
        .sessions
        .open(launch)
        .await
        .map_err(|e| open_failed(&e))?)
}

/// A browser tool: one turn of the session's run, driven by the client's
/// model. `browser_snapshot` with `service` starts the run.
async fn turn(call: Call<'_>, agent_tool: &str) -> Answer {
    let opening = call.tool == tools::SNAPSHOT && call.args.contains_key("service");
    let slot = match session_for_turn(call, opening).await {
        Ok(slot) => slot,
        Err(stop) => return stop.into(),
    };
    let tool_call = ToolCall {
        id: format!("mcp-{}", call.sessions.next_call()),
        name: agent_tool.to_owned(),
        arguments: Ok(agent_arguments(call.args)),
    };
    slot.desk.client_can_answer(call.caller.can_answer);
    let outcome = if call.caller.stateless() {
        until_cancelled(call, &slot, slot.call(tool_call, fingerprint(call))).await
    } else {
        // A connection's client may withdraw one call and go on; the
        // action it started still ends as the run decides.
        slot.call(tool_call, fingerprint(call)).await
    };
    respond(call, &slot, outcome)
}

async fn session_for_turn(call: Call<'_>, opening: bool) -> Result<Arc<Slot>, Stop> {
    let key = key(call, opening)?;
    match call.sessions.get(&key).filter(|s| !s.is_done()) {
        Some(slot) => {
            if let Some(asked) = call.args.get("service").and_then(Value::as_str)
                && asked != slot.service_id
            {
                return Err(Stop::Tool(Reply::error(
                    format!(
                        "session \"{}\" is cancelling {}, not {asked}",
                        key.session, slot.service_id
                    ),
                    "Close it with browser_close first, or pass another session_id.",
                )));
            }
            if slot.driving == super::slot::Driving::Host {
                return Err(Stop::Tool(Reply::error(
                    format!(
                        "session \"{}\" is run by subterminator's own agent (cancel_subscription)",
                        key.session
                    ),
                    "Wait for cancel_subscription to return, or pass another session_id.",
                )));
            }
            Ok(slot)
        }
        None if opening => open_for_client(call, key).await,
        None => Err(Stop::Tool(Reply::error(
            format!("no browser session \"{}\" is open", key.session),
            "Start one with browser_snapshot and `service` (list_services names them).",
        ))),
    }
}

async fn open_for_client(call: Call<'_>, key: SlotKey) -> Result<Arc<Slot>, Stop> {
    let service = service(call).await?;
    let mut spec = spec(call, &service)?;
    spec.dry_run = false;
    spec.max_turns = CLIENT_MAX_TURNS;
    spec.tools = session::Tools::Compact;
    spec.vision = false;
    let (calls, model) = client_model(format!("the MCP client's model ({})", call.caller.client));
    let launch = Launch {
        key,
        service,
        spec,
        driver: Driver::Client(model),
        calls: Some(calls),
        asking: call.caller.asking(),
        tether: call.caller.tether.clone(),
    };
    Ok(call
        .sessions
        .open(launch)
        .await
        .map_err(|e| open_failed(&e))?)
}

async fn screenshot(call: Call<'_>) -> Result<Reply, Reply> {
    let key = key(call, false)?;
    let Some(slot) = call.sessions.get(&key).filter(|s| !s.is_done()) else {
        return Err(Reply::error(
            format!("no browser session \"{}\" is open", key.session),
            "Start one with browser_snapshot and `service`.",
        ));
    };
    let path = slot.next_screenshot();
    let taken = slot
        .browser
        .screenshot(&path)
        .await
        .map_err(|e| Reply::from_error(&e.into()))?;
    let png = tokio::fs::read(&taken).await.map_err(|e| {
        Reply::from_error(&subterminator_core::Error::io(
            "cannot read the screenshot",
            &taken,
            e,
        ))
    })?;
    Ok(Reply::ok(json!({ "session_id": key.session, "path": taken })).with_image(png))
}

async fn close(call: Call<'_>) -> Result<Reply, Reply> {
    let key = key(call, false)?;
    let Some(slot) = call.sessions.get(&key) else {
        return Ok(Reply::ok(json!({
            "session_id": key.session,
            "closed": false,
            "message": "no session of that id was open",
        })));
    };
    let finished = slot.close(false).await;
    call.sessions.remove(&slot);
    Ok(Reply::finished(&finished, &slot.service_id, &key.session))
}

/// The session a call names. A connection's calls without `session_id`
/// share "default"; a 2026-07-28 HTTP call belongs to no connection, so the
/// call that opens a session is given a fresh id (in its result) and later
/// calls must name it.
fn key(call: Call<'_>, opening: bool) -> Result<SlotKey, Reply> {
    let session = match call.args.get("session_id").and_then(Value::as_str) {
        Some(id) => id.to_owned(),
        None if !call.caller.stateless() => DEFAULT_SESSION_ID.to_owned(),
        None if opening => format!("s-{}", uuid::Uuid::new_v4().simple()),
        None => {
            return Err(Reply::error(
                "`session_id` is missing: over stateless HTTP a session is named by the id the call that opened it returned",
                "Pass the session_id from the result of the browser_snapshot (with `service`) or cancel_subscription that opened it.",
            ));
        }
    };
    Ok(SlotKey {
        connection: call.caller.scope,
        session,
    })
}

async fn service(call: Call<'_>) -> Result<ServiceEntry, Reply> {
    let Some(id) = call.args.get("service").and_then(Value::as_str) else {
        return Err(Reply::error(
            "`service` is missing",
            "Pass the service's id from list_services, e.g. {\"service\": \"netflix\"}.",
        ));
    };
    let registry = call
        .sessions
        .registry()
        .await
        .map_err(|e| Reply::from_error(&e))?;
    // An address runs the plugin that knows its site, else the generic
    // service, under the host's own rules, as `cancel <address>` does.
    subterminator_core::plugin::generic::named(&registry, id)
        .await
        .map_err(|e| {
            Reply::error(
                e.to_string(),
                "Call list_services for the ids it knows, or pass the site's address (e.g. {\"service\": \"crunchyroll.com\"}).",
            )
        })
}

/// The run's spec: the server's, with what this call asks for. A
/// `start_url` off the service's sites is refused here, before anything
/// starts; a dry run presses nothing, not even an overlay's button, so the
/// start page is all it loads.
fn spec(call: Call<'_>, service: &ServiceEntry) -> Result<SessionSpec, ErrorData> {
    let mut spec = call.sessions.base().clone();
    let flag = |name: &str| call.args.get(name).and_then(Value::as_bool);
    spec.isolated = flag("isolated").unwrap_or(call.sessions.options().isolated_by_default);
    spec.dry_run = flag("dry_run").unwrap_or(false);
    if spec.dry_run {
        spec.dismiss_overlays = false;
    }
    spec.start_url = match call.args.get("start_url").and_then(Value::as_str) {
        Some(url) => Some(
            check_start_url(url, &service.metadata.id, &service.metadata.allowed_origins)
                .map_err(|e| invalid("start_url", e.to_string()))?,
        ),
        None => None,
    };
    session::start_url(&spec, service).map_err(|e| invalid("start_url", e.to_string()))?;
    Ok(spec)
}

/// The call as the client made it, which a retry must repeat.
fn fingerprint(call: Call<'_>) -> Fingerprint {
    Fingerprint {
        tool: call.tool.to_owned(),
        arguments: Value::Object(call.args.clone()),
    }
}

/// Progress of this call goes to this caller.
fn listen(call: Call<'_>, slot: &Slot) {
    slot.desk
        .listen(call.caller.peer.clone(), call.caller.progress.clone());
}

/// Waits on `waiting` unless the client withdraws the call: then its
/// session is closed at once (a stateless client that closes its stream is
/// gone; a connection's client that withdraws `cancel_subscription` wants
/// it stopped).
async fn until_cancelled(
    call: Call<'_>,
    slot: &Slot,
    waiting: impl Future<Output = Result<Outcome, Refused>>,
) -> Result<Outcome, Refused> {
    tokio::select! {
        outcome = waiting => outcome,
        () = call.caller.cancelled.cancelled() => Ok(Outcome::Finished(slot.close(true).await)),
    }
}

fn respond(call: Call<'_>, slot: &Arc<Slot>, outcome: Result<Outcome, Refused>) -> Answer {
    let session = &slot.key.session;
    match outcome {
        Ok(Outcome::Reply(reply)) => Ok(Response::Done(Reply::turn(&reply, session))),
        Ok(Outcome::Finished(finished)) => {
            call.sessions.remove(slot);
            Ok(Response::Done(Reply::finished(
                &finished,
                &slot.service_id,
                session,
            )))
        }
        Ok(Outcome::Asks(parked)) => Ok(Response::Asks(rounds::input_required(session, &parked))),
        Err(refused @ Refused::Waiting { .. }) => Ok(Response::Done(Reply::error(
            refused.to_string(),
            "Call that tool again with the person's answer (inputResponses and requestState), or close the session with browser_close.",
        ))),
        Err(refused) => Err(invalid("requestState", refused.to_string())),
    }
}

fn open_failed(error: &OpenError) -> Reply {
    Reply::error(error.to_string(), error.remediation())
}

/// Invalid params (-32602), naming the argument at fault.
pub fn invalid(argument: &str, message: impl Into<String>) -> ErrorData {
    ErrorData::invalid_params(message.into(), Some(json!({ "argument": argument })))
}
