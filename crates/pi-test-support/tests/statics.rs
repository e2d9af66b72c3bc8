//! The workspace's statics, accounted for: every `static` in non-test code
//! (a file read up to its first `#[cfg(test)]`; `*tests.rs` files left out)
//! must be listed in [`STATICS`] with what kind of thing it holds and why it
//! is a static. Run-time state held by the process rather than by a run
//! makes two agents in one process share what they should not, and tests
//! depend on their order: it belongs to the values that own a run, and a
//! static may hold it only where the OS forces it ([`Kind::Os`]: what a
//! signal handler, the panic hook or the exit path must reach), at most
//! [`CEILING`] of them. Caches (losing one costs time, never behaviour), id
//! counters and constant data do not count.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What a static holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Compile-time data (tables, embedded scripts and their bytecode).
    Const,
    /// Computed once or memoised: a compiled regex, a probe's answer, a
    /// client, a token until it expires. Losing it costs time only.
    Cache,
    /// An id or a count that only has to be unique or monotonic.
    Counter,
    /// Forced by the OS: what a signal handler, a panic hook or the exit
    /// path must reach without a context argument (children to kill, the
    /// terminal to restore, the process's own file descriptors).
    Os,
}

use Kind::*;

/// At most this many statics of kind [`Kind::Os`].
const CEILING: usize = 6;

/// Every static outside tests: `(file under crates/, name, kind, why)`.
const STATICS: &[(&str, &str, Kind, &str)] = &[
    ("pi-agent/src/compaction/estimate.rs", "ESTIMATED", Counter, "messages estimated, read by the turn-cost test"),
    ("pi-agent/src/compaction/overflow.rs", "SETS", Cache, "compiled overflow patterns"),
    ("pi-ai/src/copilot.rs", "CACHE", Cache, "Copilot's token until it expires"),
    ("pi-ai/src/http.rs", "CLIENT", Cache, "the HTTP client (its connection pool), built once"),
    ("pi-ai/src/http.rs", "H2C_CLIENT", Cache, "the HTTP/2 cleartext client, built once"),
    ("pi-ai/src/oauth/http.rs", "CLIENT", Cache, "the login flows' HTTP client, built once"),
    ("pi-ai/src/intern.rs", "NAMES", Cache, "API, provider and model names shared by messages (bounded)"),
    ("pi-ai/src/providers/faux.rs", "N", Counter, "faux response ids"),
    ("pi-ai/src/providers/google/adc.rs", "TOKEN", Cache, "the application-default token until it expires"),
    ("pi-ai/src/providers/google/stream.rs", "CALLS_WITHOUT_ID", Counter, "ids of tool calls Gemini sent without one"),
    ("pi-ai/src/providers/bedrock/credentials.rs", "VAR", Const, "the environment reader"),
    ("pi-runtime/src/docs.rs", "ROOT", Cache, "where the docs were found"),
    ("pi-cli/src/flags.rs", "FLAGS", Const, "the flag table"),
    ("pi-runtime/src/auth/resolve.rs", "COMMANDS", Cache, "`!command` keys run once per process, as the reference"),
    ("pi-runtime/src/auth/resolve.rs", "SNAPSHOT", Cache, "auth.json as last read, re-read when it changes"),
    ("pi-cli/src/tui/stderr.rs", "SAVED", Os, "the process's own stderr, restored by the panic hook"),
    ("pi-codemode/src/search/tokenize.rs", "LOWER_UPPER", Cache, "compiled regex"),
    ("pi-codemode/src/search/tokenize.rs", "ACRONYM", Cache, "compiled regex"),
    ("pi-codemode/src/search/tokenize.rs", "NOT_WORD", Cache, "compiled regex"),
    ("pi-codemode/src/run/vm.rs", "HARDEN_SOURCE", Const, "embedded script"),
    ("pi-codemode/src/run/vm.rs", "RUNTIME_SOURCE", Const, "embedded script"),
    ("pi-codemode/src/run/warm.rs", "SPARE", Cache, "a runtime made ahead of the next script"),
    ("pi-codemode/src/run/warm.rs", "PREPARING", Cache, "whether the spare is being made"),
    ("pi-config/src/resources/expand.rs", "PLACEHOLDER", Cache, "compiled regex"),
    ("pi-config/src/trust/fsio.rs", "TEMP_COUNTER", Counter, "temporary file names"),
    ("pi-ext/src/builtins.rs", "BUILTINS", Const, "embedded modules (bytecode compiled once)"),
    ("pi-ext/src/node/cjs.rs", "CJS", Const, "embedded script"),
    ("pi-ext/src/engine/component.rs", "NEXT_ID", Counter, "component ids"),
    ("pi-ext/src/engine/host.rs", "REALM", Const, "embedded script"),
    ("pi-ext/src/engine/host.rs", "BOOTSTRAP", Const, "embedded script"),
    ("pi-ext/src/engine/host.rs", "SESSION", Const, "embedded script"),
    ("pi-ext/src/engine/host.rs", "NODE_GLOBALS", Const, "embedded script"),
    ("pi-ext/src/engine/host.rs", "WEB", Const, "embedded script"),
    ("pi-ext/src/engine/host.rs", "INTL", Const, "embedded script"),
    ("pi-ext/src/engine/host.rs", "LAZY_GLOBALS", Const, "embedded script"),
    ("pi-ext/src/engine/state.rs", "ON_REALM", Os, "thread-local: which engine owns this thread"),
    ("pi-ext/src/engine/realm.rs", "NEXT_REALM", Counter, "engine ids"),
    ("pi-ext/src/js/surface/list.rs", "SURFACES", Const, "embedded modules"),
    ("pi-mcp/src/client.rs", "NEXT", Counter, "JSON-RPC request ids"),
    ("pi-mcp/src/process.rs", "LIVE", Os, "servers' process groups, ended on exit and signals"),
    ("pi-policies/src/permission_gate.rs", "DANGEROUS", Cache, "compiled regexes"),
    ("pi-sandbox/src/linux/mod.rs", "HELPER", Cache, "the helper binary's path, set once at start"),
    ("pi-sandbox/src/linux/mod.rs", "MECHANISM", Cache, "the probe's answer"),
    ("pi-test-support/src/eventstream.rs", "TABLE", Cache, "CRC table"),
    ("pi-tools/src/tools/bash/process.rs", "LIVE_GROUPS", Os, "commands' process groups, ended on signals"),
    ("pi-tools/src/tools/bash/session.rs", "SESSIONS", Os, "session sandboxes, ended on exit and signals"),
    ("pi-tools/src/tools/bash/session.rs", "NEXT_ID", Counter, "session ids"),
    ("pi-tools/src/tools/bash/supervisor.rs", "SUPERVISOR", Cache, "the supervisor binary's path, set once at start"),
    ("pi-tui/src/terminal.rs", "TERMINAL", Os, "the one terminal: one dialog at a time, restored by the panic hook"),
];

fn crates() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `(file under crates/, name)` of every static in non-test code.
fn found() -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (rel, code) in pi_test_support::sources::non_test_sources(&crates()) {
        for line in code.lines() {
            if let Some(name) = static_name(line) {
                out.insert((rel.clone(), name));
            }
        }
    }
    out
}

/// The name a line declares a static of, if it does.
fn static_name(line: &str) -> Option<String> {
    let mut rest = line.trim_start();
    if rest.starts_with("//") {
        return None;
    }
    if let Some(r) = rest.strip_prefix("pub") {
        rest = r.trim_start();
        if rest.starts_with('(') {
            rest = &rest[rest.find(')')? + 1..];
        }
        rest = rest.trim_start();
    }
    rest = rest.strip_prefix("static ")?.trim_start();
    rest = rest.strip_prefix("mut ").unwrap_or(rest);
    let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    (!name.is_empty() && rest[name.len()..].trim_start().starts_with(':')).then_some(name)
}

#[test]
fn every_static_is_accounted_for() {
    let listed: BTreeSet<(String, String)> =
        STATICS.iter().map(|(f, n, _, _)| (f.to_string(), n.to_string())).collect();
    let found = found();
    let unlisted: Vec<_> = found.difference(&listed).collect();
    let gone: Vec<_> = listed.difference(&found).collect();
    assert!(unlisted.is_empty(), "statics not in STATICS (say what each holds and why it is a static): {unlisted:?}");
    assert!(gone.is_empty(), "STATICS lists statics that no longer exist (remove them): {gone:?}");
}

#[test]
fn process_wide_state_stays_under_its_ceiling() {
    let held: Vec<_> = STATICS.iter().filter(|s| matches!(s.2, Os)).map(|s| (s.0, s.1)).collect();
    println!("{} statics hold run-time state (ceiling {CEILING}):", held.len());
    for (file, name) in &held {
        println!("  {file}: {name}");
    }
    assert!(held.len() <= CEILING, "{} statics hold run-time state, more than {CEILING}: {held:?}", held.len());
}

#[test]
fn a_static_is_recognised_in_its_forms() {
    assert_eq!(static_name("static A: u8 = 0;").as_deref(), Some("A"));
    assert_eq!(static_name("    pub(crate) static ON_REALM: Cell<usize> = x;").as_deref(), Some("ON_REALM"));
    assert_eq!(static_name("pub static B_2 : u8 = 0;").as_deref(), Some("B_2"));
    assert_eq!(static_name("// static C: u8 = 0;"), None);
    assert_eq!(static_name("let staticky: u8 = 0;"), None);
    assert_eq!(static_name("fn f() -> &'static str {"), None);
}
