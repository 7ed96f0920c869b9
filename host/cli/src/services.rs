//! `subterminator services` and `services show <id>`.

use anstream::println;

use subterminator_core::error::Result;
use subterminator_core::plugin::{ApiVersion, HarmlessRequest, PlanStep, Registry};
use subterminator_core::text::sanitize;

/// How the host's safety treats a plugin of this API version.
fn safety_mode(api_version: &str) -> &'static str {
    if api_version == ApiVersion::V0_1_0.as_str() {
        "plan-less: its plan marks no irreversible step, so the host's floor decides every prompt"
    } else {
        "plan-marked: its irreversible steps always ask; the host's floor still applies"
    }
}

pub fn list(registry: &Registry, json: bool) -> Result<u8> {
    if json {
        let services: Vec<_> = registry
            .services()
            .iter()
            .map(|s| {
                serde_json::json!({
                    "id": s.metadata.id,
                    "name": s.metadata.display_name,
                    "version": s.metadata.version,
                    "source": s.source,
                    "kind": s.kind,
                    "sha256": s.sha256,
                    "api_version": s.api_version,
                    "safety": safety_mode(s.api_version),
                })
            })
            .collect();
        let broken = super::broken_json(registry);
        println!(
            "{}",
            serde_json::json!({ "services": services, "broken": broken })
        );
        return Ok(0);
    }
    let rows: Vec<[String; 6]> = registry
        .services()
        .iter()
        .map(|s| {
            let api = if s.api_version == ApiVersion::V0_1_0.as_str() {
                format!(
                    "{} (plan-less: the host's floor decides every prompt)",
                    s.api_version
                )
            } else {
                s.api_version.to_owned()
            };
            [
                s.metadata.id.clone(),
                s.metadata.display_name.clone(),
                s.metadata.version.clone(),
                s.sha256.chars().take(12).collect(),
                s.source.to_string(),
                api,
            ]
        })
        .collect();
    super::table::print_table(&["ID", "NAME", "VERSION", "SHA256", "SOURCE", "API"], &rows);
    super::print_broken(registry);
    Ok(0)
}

pub fn show(registry: &Registry, id: &str, json: bool) -> Result<u8> {
    let s = registry.get(id)?;
    let m = &s.metadata;
    if json {
        let value = serde_json::json!({
            "metadata": m,
            "plan": s.plan,
            "source": s.source,
            "kind": s.kind,
            "sha256": s.sha256,
            "api_version": s.api_version,
            "safety": safety_mode(s.api_version),
        });
        println!("{value}");
        return Ok(0);
    }
    println!("{} ({}) {}", m.display_name, m.id, m.version);
    println!("  source:          {}", s.source);
    println!("  kind:            {}", s.kind);
    println!("  sha256:          {}", s.sha256);
    println!(
        "  plugin API:      {} ({})",
        s.api_version,
        safety_mode(s.api_version)
    );
    println!("  starts at:       {}", m.initial_url);
    println!("  allowed origins: {}", m.allowed_origins.join(", "));
    println!("  sign-in pages:   {}", m.login_url_patterns.join(", "));
    println!("  goal:            {}", m.goal);
    if !m.system_prompt_addition.is_empty() {
        println!("  guidance:        {}", m.system_prompt_addition);
    }
    if s.plan.is_empty() {
        println!("  plan:            none (the model finds its own way)");
    } else {
        println!("  plan:");
        for (i, step) in s.plan.iter().enumerate() {
            let asks = if step.irreversible {
                "  [irreversible: you are asked first]"
            } else {
                ""
            };
            println!("    {}. {}{asks}", i + 1, step.description);
            println!("       done when: {}", step.done_when);
            for h in m
                .harmless
                .iter()
                .filter(|h| usize::try_from(h.step) == Ok(i))
            {
                println!("       passes unasked: {}", request(h));
            }
        }
    }
    println!("  on statements:   {}", descriptors(&m.billing_descriptors));
    if let Some(practice) = practice_line(&m.id) {
        println!("  practice:        {practice}");
    }
    Ok(0)
}

/// A harmless request as a person reads it: `POST www.example.com/survey*`.
pub fn request(h: &HarmlessRequest) -> String {
    format!(
        "{} {}{}",
        sanitize(&h.method),
        sanitize(&h.host),
        sanitize(&h.path)
    )
}

/// The plan step a harmless request belongs to, counted from 1 as
/// `services show` lists the plan: `plan step 3 ("Answer the survey")`.
pub fn request_step(h: &HarmlessRequest, plan: &[PlanStep]) -> String {
    let described = usize::try_from(h.step)
        .ok()
        .and_then(|i| plan.get(i))
        .map(|s| format!(" ({:?})", sanitize(&s.description)))
        .unwrap_or_default();
    format!("plan step {}{described}", u64::from(h.step) + 1)
}

/// The billing descriptors on one line, or what it means to have none.
pub fn descriptors(list: &[String]) -> String {
    if list.is_empty() {
        return "none given (`subterminator scan` knows it by its own table, if at all)".to_owned();
    }
    list.iter()
        .map(|d| sanitize(d))
        .collect::<Vec<_>>()
        .join(", ")
}

/// How to try a service on its practice flow, if the binary has one.
fn practice_line(id: &str) -> Option<String> {
    if id == "netflix" || id == subterminator_practice::DEFAULT_FLOW {
        return Some(format!("subterminator demo {id}"));
    }
    let (_, variants) = subterminator_practice::catalogue()
        .into_iter()
        .find(|(service, _)| service == id)?;
    let names: Vec<String> = variants.into_iter().map(|(name, _)| name).collect();
    Some(if names.is_empty() {
        format!("subterminator demo {id}")
    } else {
        format!("subterminator demo {id} [--variant {}]", names.join(" | "))
    })
}
