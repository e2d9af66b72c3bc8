//! The reference's own `RpcClient` (exported by
//! `@earendil-works/pi-coding-agent` 1.6.0, what IDE plug-ins and scripts
//! use) drives `pi --mode rpc` through every command an integrator uses
//! (`tests/rpc_client/drive.mjs`), against the mock model server. Each step
//! must succeed or fail as it does against the reference, with the same data
//! shapes, values and events: `tests/rpc_client/expected.json`, recorded from
//! the reference with this same harness.
//!
//! Needs `node` and the package (`PI_REF_PKG`, or
//! `$HOME/.cache/pi-ref/node_modules/@earendil-works/pi-coding-agent`, where
//! `.ci/run` installs it); without them the test says so and passes
//! (fails under `.ci/run`, which sets `PI_RPC_CLIENT_REQUIRED`).
//! `PI_RPC_CLIENT_RECORD=1` re-records the expectation from the reference
//! (`PI_REF_CLI`: its `cli.js`, run with the `node` of `PI_REF_NODE_DIR`
//! when given, since the reference wants Node 22); with `PI_REF_CLI` alone
//! the test also runs the reference live and compares.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use crate::rpc_client_support;

use std::path::{Path, PathBuf};

use rpc_client_support::{differences, drive};

/// Differences we know of and keep for now, each with why (one substring of
/// the difference line each). Everything else fails the test.
const KNOWN: &[(&str, &str)] = &[];

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rpc_client")
}

/// The reference package, when installed.
fn ref_pkg() -> Option<PathBuf> {
    let pkg = std::env::var_os("PI_REF_PKG").map(PathBuf::from).or_else(|| {
        let home = std::env::var_os("HOME")?;
        Some(PathBuf::from(home).join(".cache/pi-ref/node_modules/@earendil-works/pi-coding-agent"))
    })?;
    pkg.join("dist/modes/rpc/rpc-client.js").is_file().then_some(pkg)
}

/// Skip with a note, or fail when `.ci/run` said the test must run.
fn skip(why: &str) {
    assert!(std::env::var_os("PI_RPC_CLIENT_REQUIRED").is_none(), "cannot run: {why}");
    eprintln!("skipped: {why}");
}

fn node_works() -> bool {
    std::process::Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success())
}

#[test]
fn reference_rpc_client_drives_pi_as_it_drives_the_reference() {
    if !node_works() {
        return skip("no `node` on PATH");
    }
    let Some(pkg) = ref_pkg() else {
        return skip("the reference package is not installed (PI_REF_PKG or ~/.cache/pi-ref)");
    };
    let client_js = pkg.join("dist/modes/rpc/rpc-client.js");
    let expected_path = here().join("expected.json");
    let reference_cli = std::env::var_os("PI_REF_CLI").map(PathBuf::from);
    let ref_node = std::env::var_os("PI_REF_NODE_DIR").map(PathBuf::from);
    if std::env::var_os("PI_RPC_CLIENT_RECORD").is_some() {
        let cli = reference_cli.expect("PI_RPC_CLIENT_RECORD needs PI_REF_CLI");
        let recorded = drive(&client_js, &cli, None, ref_node.as_deref());
        let text = serde_json::to_string_pretty(&recorded).unwrap() + "\n";
        std::fs::write(&expected_path, text).unwrap();
        return;
    }
    let expected: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&expected_path).unwrap()).unwrap();
    let ours = drive(&client_js, &here().join("spawn-pi.mjs"), Some(Path::new(env!("CARGO_BIN_EXE_pi"))), None);
    let mut diffs = differences(&expected, &ours);
    if let Some(cli) = reference_cli {
        let live = drive(&client_js, &cli, None, ref_node.as_deref());
        diffs.extend(differences(&live, &ours).into_iter().map(|d| format!("(live) {d}")));
    }
    let mut tolerated = vec![0usize; KNOWN.len()];
    diffs.retain(|d| match KNOWN.iter().position(|(pattern, _)| d.contains(pattern)) {
        Some(i) => {
            tolerated[i] += 1;
            false
        }
        None => true,
    });
    for ((pattern, why), n) in KNOWN.iter().zip(&tolerated) {
        eprintln!("known difference, {n} place(s) `{pattern}`: {why}");
    }
    assert!(
        diffs.is_empty(),
        "{} difference(s) from the reference:\n{}\nours: {}",
        diffs.len(),
        diffs.join("\n"),
        serde_json::to_string_pretty(&ours).unwrap()
    );
}
