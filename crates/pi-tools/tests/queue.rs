//! The per-file mutation queue through the library API: many `edit` and
//! `write` calls on one file in parallel (the binary runs one call per
//! process, so this is where concurrency is proved).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use pi_tools::{ToolContext, ToolName, ToolResult, ToolSpec, args, execute_validated, prepare_arguments};

/// Prepare, validate and run one call (the tools alone, without handlers).
async fn call_tool(name: ToolName, raw: serde_json::Value, ctx: &ToolContext) -> ToolResult {
    let prepared = prepare_arguments(name, raw);
    match args::validate(name.as_str(), &ToolSpec::of(name).parameters, &prepared) {
        Err(e) => ToolResult::error(e.to_string()),
        Ok(valid) => execute_validated(name, valid, ctx).await.unwrap_or_else(|e| ToolResult::error(e.to_string())),
    }
}
use serde_json::json;

fn marker(i: usize) -> String {
    format!("<slot {i:02}>")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_parallel_edits_of_one_file_all_land() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    let original: String = (0..50).map(|i| format!("{}\n", marker(i))).collect();
    std::fs::write(&path, &original).unwrap();
    let ctx = ToolContext::new(dir.path());
    let mut tasks = Vec::new();
    for i in 0..50 {
        let ctx = ctx.clone();
        tasks.push(tokio::spawn(async move {
            let args = json!({"path": "f.txt", "edits": [{"oldText": marker(i), "newText": format!("edited {i}")}]});
            call_tool(ToolName::Edit, args, &ctx).await
        }));
    }
    for t in tasks {
        let r = t.await.unwrap();
        assert!(!r.is_error, "{}", r.text_content());
    }
    let expected: String = (0..50).map(|i| format!("edited {i}\n")).collect();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
    assert!(ctx.mutation_queue.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn edits_through_symlink_aliases_share_the_queue() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("real.txt");
    let original: String = (0..20).map(|i| format!("{}\n", marker(i))).collect();
    std::fs::write(&path, &original).unwrap();
    for k in 0..3 {
        std::os::unix::fs::symlink("real.txt", dir.path().join(format!("alias{k}.txt"))).unwrap();
    }
    let ctx = ToolContext::new(dir.path());
    let mut tasks = Vec::new();
    for i in 0..20 {
        let ctx = ctx.clone();
        let name = if i % 4 == 3 { "real.txt".to_string() } else { format!("alias{}.txt", i % 4) };
        tasks.push(tokio::spawn(async move {
            let args = json!({"path": name, "edits": [{"oldText": marker(i), "newText": format!("x{i}")}]});
            call_tool(ToolName::Edit, args, &ctx).await
        }));
    }
    for t in tasks {
        let r = t.await.unwrap();
        assert!(!r.is_error, "{}", r.text_content());
    }
    let expected: String = (0..20).map(|i| format!("x{i}\n")).collect();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn write_and_edit_share_the_queue() {
    // Each write replaces the file with a fresh marker line; each edit then
    // needs the file whole. Interleaved without the queue, an edit could read a
    // half-written file; with it, every call sees a complete file.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "base\n").unwrap();
    let ctx = ToolContext::new(dir.path());
    let big = "y".repeat(1 << 20);
    let mut tasks = Vec::new();
    for i in 0..20 {
        let ctx = ctx.clone();
        let big = big.clone();
        tasks.push(tokio::spawn(async move {
            if i % 2 == 0 {
                let content = format!("{big}\nbase\n");
                call_tool(ToolName::Write, json!({"path": "f.txt", "content": content}), &ctx).await
            } else {
                call_tool(
                    ToolName::Edit,
                    json!({"path": "f.txt", "edits": [{"oldText": "base\n", "newText": "base\n\n"}]}),
                    &ctx,
                )
                .await
            }
        }));
    }
    for t in tasks {
        let r = t.await.unwrap();
        assert!(!r.is_error, "{}", r.text_content());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn different_files_in_parallel_all_land() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path());
    let mut tasks = Vec::new();
    for i in 0..30 {
        let ctx = ctx.clone();
        tasks.push(tokio::spawn(async move {
            let args = json!({"path": format!("d{}/f{i}.txt", i % 3), "content": format!("{i}")});
            call_tool(ToolName::Write, args, &ctx).await
        }));
    }
    for t in tasks {
        assert!(!t.await.unwrap().is_error);
    }
    for i in 0..30 {
        let got = std::fs::read_to_string(dir.path().join(format!("d{}/f{i}.txt", i % 3))).unwrap();
        assert_eq!(got, i.to_string());
    }
}

#[tokio::test]
async fn aborted_calls_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "a\n").unwrap();
    let ctx = ToolContext::new(dir.path());
    ctx.abort.cancel();
    let r =
        call_tool(ToolName::Edit, json!({"path": "f.txt", "edits": [{"oldText": "a", "newText": "b"}]}), &ctx).await;
    assert!(r.is_error);
    assert_eq!(r.text_content(), "Operation aborted");
    let r = call_tool(ToolName::Write, json!({"path": "g.txt", "content": "x"}), &ctx).await;
    assert_eq!(r.text_content(), "Operation aborted");
    assert_eq!(std::fs::read_to_string(dir.path().join("f.txt")).unwrap(), "a\n");
    assert!(!dir.path().join("g.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abort_while_waiting_for_the_file_returns_at_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "a\n").unwrap();
    let ctx = ToolContext::new(dir.path());
    // Someone else holds the file.
    let held = ctx.mutation_queue.lock(&dir.path().join("f.txt")).await;
    let waiter = {
        let ctx = ctx.clone();
        tokio::spawn(async move {
            call_tool(ToolName::Edit, json!({"path": "f.txt", "edits": [{"oldText": "a", "newText": "b"}]}), &ctx).await
        })
    };
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    ctx.abort.cancel();
    let r = tokio::time::timeout(std::time::Duration::from_secs(5), waiter).await.unwrap().unwrap();
    assert_eq!(r.text_content(), "Operation aborted");
    drop(held);
    assert_eq!(std::fs::read_to_string(dir.path().join("f.txt")).unwrap(), "a\n");
}
