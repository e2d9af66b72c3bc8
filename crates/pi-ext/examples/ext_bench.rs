//! Measures what extensions cost: start-up (loading five extensions against
//! none) and one `tool_call` handler round trip. Run by `bench/extensions.sh`.
//!
//! Usage: `ext_bench [ROUNDS]` (default 2000 round trips).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pi_agent::ToolCallEvent;
use pi_ext::{ExtensionHost, HostOptions};
use serde_json::json;

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    ["permission-gate.ts", "protected-paths.ts", "typebox-tool.ts", "nested.ts", "mutate-a.ts"]
        .iter()
        .map(|f| dir.join(f))
        .collect()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let cwd = std::env::temp_dir();
    let opts = || HostOptions { cwd: cwd.clone(), ..Default::default() };
    let paths = fixtures();

    let mut none = Vec::new();
    let mut five = Vec::new();
    for _ in 0..15 {
        let t = Instant::now();
        let loaded = ExtensionHost::load(&[], opts()).await.unwrap();
        none.push(t.elapsed());
        drop(loaded);
        let t = Instant::now();
        let loaded = ExtensionHost::load(&paths, opts()).await.unwrap();
        five.push(t.elapsed());
        drop(loaded);
    }
    let (none, five) = (median(none), median(five));
    println!(
        "load: none {:.2} ms, five extensions {:.2} ms (+{:.2} ms)",
        ms(none),
        ms(five),
        ms(five.saturating_sub(none))
    );

    let loaded = ExtensionHost::load(&paths[..1], opts()).await.unwrap();
    let gate = loaded.interceptors[0].clone();
    let mut times = Vec::with_capacity(rounds);
    for i in 0..rounds {
        let bash = pi_agent::BuiltinTool::new(pi_tools::ToolName::Bash);
        let mut ev = ToolCallEvent::new(&format!("c{i}"), &bash, json!({"command": "ls -la"}), None);
        let t = Instant::now();
        let decision = gate.on_tool_call(&mut ev).await;
        times.push(t.elapsed());
        assert_eq!(decision, Ok(None));
    }
    let total: Duration = times.iter().sum();
    println!(
        "tool_call round trip (permission gate, {rounds} calls): median {:.3} ms, mean {:.3} ms",
        ms(median(times)),
        ms(total / rounds as u32)
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
