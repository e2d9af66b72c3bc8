//! Stopping servers: the whole process group goes (a server's own children
//! too), whether the server leaves when its standard input closes, needs
//! SIGTERM, or ignores SIGTERM and needs SIGKILL.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::*;

use pi_mcp::Transport;

/// Whether `pid` is a running process (a zombie counts as gone).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().next()) != Some("Z"),
        Err(_) => false,
    }
}

async fn family_is_stopped(mode: &str) {
    let dir = tempfile::tempdir().unwrap();
    let pids_file = dir.path().join("pids");
    let mut s = server("fam", mode, 10.0);
    if let Transport::Stdio { env, .. } = &mut s.transport {
        env.push(("PI_FIXTURE_PIDS".into(), pids_file.to_string_lossy().into_owned()));
    }
    let (m, sink) = start(vec![s]);
    ready(&m).await;
    let r = call(&sink, "mcp__fam__echo", serde_json::json!({"text": "x"})).await;
    assert_eq!(r.text_content(), "echo: x");
    let pids: Vec<u32> =
        std::fs::read_to_string(&pids_file).unwrap().split_whitespace().filter_map(|p| p.parse().ok()).collect();
    assert_eq!(pids.len(), 2, "server and grandchild");
    assert!(pids.iter().all(|p| alive(*p)), "both run before the stop");
    m.shutdown().await;
    for pid in &pids {
        // The grandchild is reparented when killed; give its reaper a moment (not a timing assertion).
        for _ in 0..200 {
            if !alive(*pid) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        assert!(!alive(*pid), "{mode}: process {pid} survived the stop");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_and_its_child_are_stopped() {
    family_is_stopped("family").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_ignoring_sigterm_and_its_child_are_killed() {
    family_is_stopped("stubborn").await;
}
