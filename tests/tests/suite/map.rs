//! ARCHITECTURE.md's checkable claims, checked: a claim that stops being
//! true fails here, so the map cannot drift from the code. Each test names
//! the claim it keeps. Reads files only: no build, no browser.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use regex::Regex;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn architecture() -> String {
    std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap()
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    subterminator_tests::e2e::files_under(dir)
        .unwrap()
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| dir.join(p))
        .collect()
}

/// A file's code before its first `#[cfg(test)]`, comments removed.
fn code_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    let block = Regex::new(r"(?s)/\*.*?\*/").unwrap();
    let text = block.replace_all(text, "");
    text.lines()
        .map(|line| {
            // `//` outside a string starts a comment.
            let mut quoted = false;
            let bytes = line.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' if quoted => i += 1,
                    b'"' => quoted = !quoted,
                    b'/' if !quoted && bytes.get(i + 1) == Some(&b'/') => return &line[..i],
                    _ => {}
                }
                i += 1;
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `a, b::{c, d}` under `prefix`, as whole paths.
fn expand(prefix: &str, body: &str) -> Vec<String> {
    let mut items = Vec::new();
    let (mut depth, mut current) = (0, String::new());
    for c in body.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            items.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    items.push(current);
    let nested = Regex::new(r"(?s)^([A-Za-z0-9_:]*?)::\{(.*)\}$").unwrap();
    let mut paths = Vec::new();
    for item in items.iter().map(|i| i.trim()) {
        if item.is_empty() || item == "self" {
            paths.push(prefix.to_owned());
        } else if let Some(m) = nested.captures(item) {
            paths.extend(expand(&format!("{prefix}::{}", &m[1]), &m[2]));
        } else {
            let name = item.split(" as ").next().unwrap_or(item).trim();
            paths.push(format!("{prefix}::{name}"));
        }
    }
    paths
}

/// The paths a file reaches under `head` (`crate` or `super`), without it.
fn reached(code: &str, head: &str) -> Vec<String> {
    let mut found = Vec::new();
    let grouped = Regex::new(&format!(r"(?s)\buse\s+{head}::\{{(.*?)\}};")).unwrap();
    for m in grouped.captures_iter(code) {
        for path in expand(head, &m[1]) {
            if let Some((_, rest)) = path.split_once("::") {
                found.push(rest.to_owned());
            }
        }
    }
    let plain = Regex::new(&format!(
        r"\b{head}::([a-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)"
    ))
    .unwrap();
    found.extend(plain.captures_iter(code).map(|m| m[1].to_owned()));
    found
}

/// A crate's modules (by path, `agent::pipeline`) and which others each one
/// reaches, tests aside.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = BTreeMap::new();
    for path in rust_files(src) {
        let name = path.file_name().unwrap().to_string_lossy();
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let relative = path.strip_prefix(src).unwrap().with_extension("");
        let parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let mut module = parts.join("::");
        for top in ["lib", "main", "mod"] {
            if module == top {
                module.clear();
            } else if let Some(stripped) = module.strip_suffix(&format!("::{top}")) {
                module = stripped.to_owned();
            }
        }
        if module.starts_with("bin::") || relative.starts_with("bin") {
            continue;
        }
        files.insert(module, path);
    }
    let resolve = |path: &str| -> Option<String> {
        let parts: Vec<&str> = path.split("::").collect();
        (1..=parts.len())
            .rev()
            .map(|n| parts[..n].join("::"))
            .find(|m| files.contains_key(m))
    };
    let mut edges = BTreeMap::new();
    for (module, path) in &files {
        let code = code_of(path);
        let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
        let mut targets: Vec<Option<String>> =
            reached(&code, "crate").iter().map(|u| resolve(u)).collect();
        targets.extend(reached(&code, "super").iter().map(|u| {
            resolve(&if parent.is_empty() {
                u.clone()
            } else {
                format!("{parent}::{u}")
            })
        }));
        let set: BTreeSet<String> = targets
            .into_iter()
            .flatten()
            .filter(|t| {
                t != module
                    && !t.is_empty()
                    && !module.starts_with(&format!("{t}::"))
                    && !t.starts_with(&format!("{module}::"))
            })
            .collect();
        edges.insert(module.clone(), set);
    }
    edges
}

/// The groups of modules that reach each other (strongly connected
/// components of more than one module).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Kosaraju: order by finish time, then walk the reversed graph.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        seen: &mut BTreeSet<String>,
        out: &mut Vec<String>,
    ) {
        if !seen.insert(node.to_owned()) {
            return;
        }
        for next in graph.get(node).into_iter().flatten() {
            visit(next, graph, seen, out);
        }
        out.push(node.to_owned());
    }
    let mut order = Vec::new();
    let mut seen = BTreeSet::new();
    for node in graph.keys() {
        visit(node, graph, &mut seen, &mut order);
    }
    let mut reversed: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, tos) in graph {
        for to in tos {
            reversed.entry(to.clone()).or_default().insert(from.clone());
        }
    }
    let mut seen = BTreeSet::new();
    let mut groups = Vec::new();
    for node in order.iter().rev() {
        let mut group = Vec::new();
        visit(node, &reversed, &mut seen, &mut group);
        if group.len() > 1 {
            group.sort();
            groups.push(group);
        }
    }
    groups
}

/// The workspace's crates with a `src/`: their folder and package name.
fn crates() -> Vec<(PathBuf, String)> {
    let manifest: toml::Value =
        toml::from_str(&std::fs::read_to_string(root().join("Cargo.toml")).unwrap()).unwrap();
    let mut found = Vec::new();
    for member in manifest["workspace"]["members"].as_array().unwrap() {
        let member = member.as_str().unwrap();
        let dirs: Vec<PathBuf> = match member.strip_suffix("/*") {
            Some(parent) => std::fs::read_dir(root().join(parent))
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.join("Cargo.toml").is_file())
                .collect(),
            None => vec![root().join(member)],
        };
        for dir in dirs {
            let package: toml::Value =
                toml::from_str(&std::fs::read_to_string(dir.join("Cargo.toml")).unwrap()).unwrap();
            let name = package["package"]["name"].as_str().unwrap().to_owned();
            found.push((dir, name));
        }
    }
    found.sort();
    found
}

/// Claim: "`modcycles` finds no cycle in any crate".
#[test]
fn no_crate_has_a_module_cycle() {
    let mut found = Vec::new();
    for (dir, name) in crates() {
        for group in cycles(&module_graph(&dir.join("src"))) {
            found.push(format!("{name}: {}", group.join(" ↔ ")));
        }
    }
    assert!(found.is_empty(), "module cycles:\n{}", found.join("\n"));
}

/// The finder finds: a cycle planted in a scratch crate is named.
#[test]
fn a_planted_cycle_is_found() {
    let src = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(src.path().join(name), text).unwrap();
    write("lib.rs", "mod a;\nmod b;\nmod c;\n");
    write("a.rs", "use crate::{b::Thing, c};\n");
    write("b.rs", "// use crate::c;\npub fn f() { super::a::g(); }\n");
    write("c.rs", "#[cfg(test)]\nuse crate::a;\n");
    let groups = cycles(&module_graph(src.path()));
    assert_eq!(groups, [vec!["a".to_owned(), "b".to_owned()]]);
}

/// Claim: "`safety` and `feed` know nothing of the agent; `browser` nothing of
/// safety or the agent; `text` and `exit` import nothing of the crate,
/// `page` nothing but `text`".
#[test]
fn the_cores_lower_modules_import_no_higher_one() {
    let graph = module_graph(&root().join("host/core/src"));
    let under = |module: &str, top: &str| module == top || module.starts_with(&format!("{top}::"));
    enum Rule {
        /// May reach nothing outside itself but these.
        Only(&'static [&'static str]),
        /// May not reach these.
        Not(&'static [&'static str]),
    }
    let rules = [
        ("text", Rule::Only(&[])),
        ("exit", Rule::Only(&[])),
        ("page", Rule::Only(&["text"])),
        ("safety", Rule::Not(&["agent"])),
        ("feed", Rule::Not(&["agent"])),
        ("browser", Rule::Not(&["safety", "agent"])),
    ];
    let mut broken = Vec::new();
    for (low, rule) in &rules {
        for (module, targets) in graph.iter().filter(|(m, _)| under(m, low)) {
            for target in targets {
                let bad = match rule {
                    Rule::Only(allowed) => {
                        !under(target, low) && !allowed.iter().any(|a| under(target, a))
                    }
                    Rule::Not(forbidden) => forbidden.iter().any(|f| under(target, f)),
                };
                if bad {
                    broken.push(format!("{module} → {target}"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "layering broken:\n{}", broken.join("\n"));
    assert!(
        architecture().contains("`page` nothing but `text`"),
        "the claim this test keeps moved: update the test with it"
    );
}

/// Claim: the crate table under `### host/`: each crate's folder, and what
/// it must not import, by the names in backticks.
#[test]
fn every_host_crate_is_in_the_table_and_imports_nothing_it_must_not() {
    let doc = architecture();
    let row = Regex::new(r"(?m)^\| `([a-z-]+)` \| `(host/[a-z]+)/` \| .* \| ([^|]*) \|$").unwrap();
    let table: BTreeMap<String, (String, String)> = row
        .captures_iter(&doc)
        .map(|m| (m[1].to_owned(), (m[2].to_owned(), m[3].to_owned())))
        .collect();
    let host: Vec<(PathBuf, String)> = crates()
        .into_iter()
        .filter(|(dir, _)| dir.parent().is_some_and(|p| p.ends_with("host")))
        .collect();
    let names: BTreeSet<&String> = host.iter().map(|(_, n)| n).collect();
    assert_eq!(
        names,
        table.keys().collect::<BTreeSet<_>>(),
        "the table lists the crates of host/, no more, no fewer"
    );
    let backticked = Regex::new(r"`([a-z0-9-]+)`").unwrap();
    let mut broken = Vec::new();
    for (dir, name) in &host {
        let (folder, forbidden) = &table[name];
        assert!(dir.ends_with(folder), "{name} is in {folder}");
        let mut denied: BTreeSet<String> = backticked
            .captures_iter(forbidden)
            .map(|m| m[1].to_owned())
            .collect();
        // The phrases the column uses for groups of crates.
        if forbidden.contains("any other crate of `host/`") {
            denied.extend(names.iter().filter(|n| **n != name).map(|n| (*n).clone()));
        }
        if forbidden.contains("the binary crate") {
            denied.insert("subterminator".to_owned());
        }
        if forbidden.contains("the host") {
            denied.extend(
                ["subterminator", "subterminator-core", "subterminator-mcp"].map(String::from),
            );
        }
        assert!(
            forbidden.trim() == "—" || !denied.is_empty(),
            "{name}: the column {forbidden:?} names no crate this test can read"
        );
        let manifest: toml::Value =
            toml::from_str(&std::fs::read_to_string(dir.join("Cargo.toml")).unwrap()).unwrap();
        let deps = manifest
            .get("dependencies")
            .and_then(toml::Value::as_table)
            .map(|t| t.keys().cloned().collect::<BTreeSet<_>>())
            .unwrap_or_default();
        for dep in deps.intersection(&denied) {
            broken.push(format!("{name} depends on {dep}, which the table forbids"));
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// Claim: "every integration and end-to-end test in one binary
/// (`tests/tests/all.rs`)".
#[test]
fn every_integration_test_is_in_the_one_binary() {
    let mut binaries = Vec::new();
    for (dir, name) in crates() {
        if let Ok(entries) = std::fs::read_dir(dir.join("tests")) {
            for entry in entries.flatten() {
                let path = entry.path();
                let is_target =
                    path.extension().is_some_and(|e| e == "rs") || path.join("main.rs").is_file();
                if is_target {
                    binaries.push(format!("{name}: {}", path.display()));
                }
            }
        }
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        if manifest.contains("[[test]]") {
            binaries.push(format!("{name}: a [[test]] target"));
        }
    }
    assert_eq!(binaries.len(), 1, "{binaries:#?}");
    assert!(binaries[0].ends_with("tests/tests/all.rs"), "{binaries:?}");
    assert!(architecture().contains("every integration and end-to-end test in one binary"));
}

/// Claim: "the stages read what they share from the module that defines
/// it, never from `agent.rs`, which calls into them" (the hub flattened:
/// `agent.rs` declares and re-exports, its children import their
/// siblings).
#[test]
fn no_stage_imports_the_agent_hub() {
    let agent = root().join("host/core/src/agent");
    let siblings: BTreeSet<String> = std::fs::read_dir(&agent)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut hub = Vec::new();
    for name in &siblings {
        let code = code_of(&agent.join(format!("{name}.rs")));
        for path in reached(&code, "super") {
            let head = path.split("::").next().unwrap_or_default();
            if !siblings.contains(head) {
                hub.push(format!("agent/{name}.rs reaches agent.rs for {path}"));
            }
        }
    }
    assert!(hub.is_empty(), "{}", hub.join("\n"));
    let doc = architecture()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(doc.contains("never from `agent.rs`, which calls into them"));
}

/// What of the bench the agent's side must not reach: the person who
/// answers, the flows' truth, the sites and the scoring. The agent's side
/// takes them only through a served bench's interface.
const BENCH_TRUTH: [&str; 10] = [
    "person",
    "site",
    "score",
    "catalog",
    "Catalog",
    "BenchSite",
    "Flow",
    "Truth",
    "RunFacts",
    "Verdict",
];

/// Every file under `src` (tests aside) that reaches a part of
/// [`BENCH_TRUTH`], with what it reaches.
fn bench_truth_reached(src: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for path in rust_files(src) {
        let name = path.file_name().unwrap().to_string_lossy();
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        for reached in reached(&code_of(&path), "subterminator_bench") {
            let head = reached.split("::").next().unwrap_or_default();
            if BENCH_TRUTH.contains(&head) {
                found.push(format!("{}: {reached}", path.display()));
            }
        }
    }
    found
}

/// Claim: "no person and no flow's truth live in this crate" (the binary's
/// `bench` runs only against a served bench).
#[test]
fn the_binary_reaches_no_bench_person_and_no_truth() {
    let found = bench_truth_reached(&root().join("host/cli/src"));
    assert!(found.is_empty(), "{}", found.join("\n"));
    assert!(architecture().contains("no person and no flow's truth live in this crate"));
}

/// The check finds: a scratch crate that answers for the person, or scores
/// a run itself, is named.
#[test]
fn a_planted_bench_person_is_found() {
    let src = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(src.path().join(name), text).unwrap();
    write("lib.rs", "mod a;\nmod b;\nmod c;\n");
    write(
        "a.rs",
        "use subterminator_bench::{FlowSummary, person::answer};\n",
    );
    write(
        "b.rs",
        "fn f() { let v = subterminator_bench::score(&flow, &log, &facts); }\n",
    );
    write(
        "c.rs",
        "use subterminator_bench::{Claim, serve::Here};\n// subterminator_bench::person\n",
    );
    let found = bench_truth_reached(src.path());
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].ends_with("a.rs: person::answer"), "{found:?}");
    assert!(found[1].ends_with("b.rs: score"), "{found:?}");
}
