//! Many `pi tool edit` processes on one file: every edit that reports
//! success is in the file afterwards, no line is lost, and a reader never
//! sees half a file (issue: torn files and lost edits across processes).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use crate::common;

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;

const PROCESSES: usize = 20;
const LINES: usize = 2000;

fn original() -> String {
    (0..LINES).map(|i| format!("line {i:05} {}\n", "x".repeat(90))).collect()
}

/// One round: PROCESSES edits of distinct lines at once, with a reader
/// polling the file meanwhile; returns how many edits reported success.
fn round(dir: &std::path::Path, round: usize) -> usize {
    let file = dir.join("f.txt");
    std::fs::write(&file, original()).unwrap();
    let expected_len = original().len();
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (stop, file) = (stop.clone(), file.clone());
        std::thread::spawn(move || {
            let mut torn = 0;
            while !stop.load(Ordering::Relaxed) {
                let text = std::fs::read_to_string(&file).unwrap();
                if text.lines().count() != LINES || !text.ends_with('\n') {
                    torn += 1;
                }
            }
            torn
        })
    };
    let children: Vec<_> = (0..PROCESSES)
        .map(|p| {
            let line = p * (LINES / PROCESSES);
            let old = format!("line {line:05} ");
            let new = format!("EDIT {p:02}r{round:02} ");
            let args = json!({"path": "f.txt", "edits": [{"oldText": old, "newText": new}]});
            common::pi()
                .args(["tool", "edit", &args.to_string(), "--cwd"])
                .arg(dir)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let ok = children.into_iter().map(|mut c| c.wait().unwrap().success()).filter(|s| *s).count();
    stop.store(true, Ordering::Relaxed);
    assert_eq!(reader.join().unwrap(), 0, "a reader saw a torn file in round {round}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.lines().count(), LINES, "lines were lost in round {round}");
    assert_eq!(text.len(), expected_len, "the file changed size in round {round}");
    for p in 0..PROCESSES {
        assert!(text.contains(&format!("EDIT {p:02}r{round:02} ")), "edit {p} of round {round} is missing");
    }
    ok
}

#[test]
fn twenty_processes_lose_no_edit_and_never_tear_the_file() {
    let dir = tempfile::tempdir().unwrap();
    for r in 0..3 {
        assert_eq!(round(dir.path(), r), PROCESSES, "every edit reports success");
    }
    let names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    assert_eq!(names, ["f.txt"], "no temporary file is left behind");
}
